import Foundation

/// The results of a full run, read three ways: the table, the ratios and the targets, printed
/// for people and written as JSON for tools.
struct Report {
  /// The options the run used.
  let options: BenchmarkOptions
  /// Where it ran.
  let machine: Machine
  /// Every case at every size, in the order they ran.
  let results: [CaseResult]

  private var small: Int { options.sizes[0] }
  private var large: Int { options.sizes[1] }
  private var interval: Double { Cases.updateInterval.nanoseconds }

  private func result(_ benchCase: BenchCase, _ n: Int = 0) -> CaseResult? {
    results.first { $0.benchCase == benchCase && $0.n == n && !$0.samples.isEmpty }
  }

  // MARK: - Ratios

  /// One comparison between two cases in this run.
  struct Ratio: Codable {
    /// What is compared, such as `(d) vs (b)`.
    var name: String
    /// The size both cases ran at.
    var n: Int
    /// The ratio of the medians.
    var value: Double
    /// How to read it.
    var meaning: String
  }

  /// The ratios the issue asks for, from the medians of this run.
  var ratios: [Ratio] {
    var ratios: [Ratio] = []
    func add(_ name: String, _ n: Int, _ value: Double?, _ meaning: String) {
      if let value, value.isFinite {
        ratios.append(Ratio(name: name, n: n, value: value, meaning: meaning))
      }
    }
    for n in options.sizes {
      let reporter = result(.reporter, n)?.median(\.nanosecondsPerReport)
      let progress = result(.foundationProgress, n)?.median(\.nanosecondsPerReport)
      let floor = result(.atomic, n)?.median(\.nanosecondsPerReport)
      add(
        "(d) vs (b)", n, divide(progress, reporter),
        "report() is this many times faster than Foundation.Progress")
      add("(d) vs (c)", n, divide(reporter, floor), "report() costs this many raw atomic stores")
    }
    for n in options.sizes {
      let seed = result(.seed, n)?.median(\.wallNanoseconds)
      let runOver = result(.runOver, n)?.median(\.wallNanoseconds)
      let handLoop = result(.handLoop, n)?.median(\.wallNanoseconds)
      add(
        "(e) vs (a)", n, divide(seed, runOver),
        "run(over:) reaches 100% this many times sooner than the seed")
      add(
        "(e') vs (a)", n, divide(seed, handLoop),
        "the hand-written loop reaches 100% this many times sooner than the seed")
      add(
        "(e) vs (e')", n, divide(runOver, handLoop),
        "run(over:) takes this many times as long as the same work written by hand")
    }
    for n in options.sizes {
      let one = result(.reporter, n)?.median(\.reportsPerSecond)
      for benchCase in [BenchCase.reporterX2, .reporterX8] {
        let many = result(benchCase, n)?.median(\.reportsPerSecond)
        add(
          "(\(benchCase.tag)) vs (d)", n, divide(many, one),
          "\(benchCase.reportingTasks) tasks report this many times as fast as one, in total")
      }
    }
    return ratios
  }

  private func divide(_ numerator: Double?, _ denominator: Double?) -> Double? {
    guard let numerator, let denominator, denominator > 0 else { return nil }
    return numerator / denominator
  }

  // MARK: - Memory

  /// How much a case's peak memory grew from the smaller size to the larger.
  struct MemoryGrowth: Codable {
    /// The case.
    var benchCase: BenchCase
    /// The median peak RSS at the smaller size, in bytes.
    var smallPeakBytes: Double
    /// The median peak RSS at the larger size, in bytes.
    var largePeakBytes: Double
    /// The difference, in bytes.
    var growthBytes: Double
  }

  /// The peak memory growth of the runner cases, where flat memory is a target.
  var memoryGrowth: [MemoryGrowth] {
    [BenchCase.reporter, .runOver, .reporterX2, .reporterX8].compactMap { benchCase in
      guard let low = result(benchCase, small)?.median({ Double($0.peakRSSBytes) }),
        let high = result(benchCase, large)?.median({ Double($0.peakRSSBytes) })
      else { return nil }
      return MemoryGrowth(
        benchCase: benchCase, smallPeakBytes: low, largePeakBytes: high, growthBytes: high - low)
    }
  }

  private var baselinePeakBytes: Double? {
    result(.empty)?.median { Double($0.peakRSSBytes) }
  }

  // MARK: - Targets

  /// One target of the issue, checked against this run.
  struct Target: Codable {
    /// Whether a target holds.
    enum Status: String, Codable {
      /// It holds.
      case pass = "PASS"
      /// It does not.
      case fail = "FAIL"
      /// A case it needs did not run.
      case skipped = "SKIP"
    }

    /// The target, as the issue states it.
    var name: String
    /// Whether it holds.
    var status: Status
    /// The numbers it was judged on.
    var detail: String
  }

  /// Every target of the issue, checked.
  var targets: [Target] {
    [
      perSize("(d) report() costs at most 5 ns per call") { n in
        guard let cost = result(.reporter, n)?.median(\.nanosecondsPerReport) else { return nil }
        return (cost <= 5, "\(Format.nanoseconds(cost)) ns")
      },
      perSize("(d) report() is within about 4x of the raw atomic store (c)") { n in
        let reporter = result(.reporter, n)?.median(\.nanosecondsPerReport)
        guard let ratio = divide(reporter, result(.atomic, n)?.median(\.nanosecondsPerReport))
        else { return nil }
        return (ratio <= 4, Format.ratio(ratio))
      },
      perSize("(d) report() is at least 8x faster than Foundation.Progress (b)") { n in
        let progress = result(.foundationProgress, n)?.median(\.nanosecondsPerReport)
        guard let ratio = divide(progress, result(.reporter, n)?.median(\.nanosecondsPerReport))
        else { return nil }
        return (ratio >= 8, Format.ratio(ratio))
      },
      seedTarget,
      deliveryTarget,
      memoryTarget,
      latencyTarget,
      freshnessTarget,
      perSize("(f) 8 concurrent reporters make at least as many reports per second as one") { n in
        let one = result(.reporter, n)?.median(\.reportsPerSecond)
        guard let ratio = divide(result(.reporterX8, n)?.median(\.reportsPerSecond), one) else {
          return nil
        }
        return (ratio >= 1, "\(Format.ratio(ratio)) of one task's rate")
      },
      idleTarget,
      finishedTarget,
    ]
  }

  /// A target checked at each size: it holds when it holds at every size that ran.
  private func perSize(
    _ name: String, _ check: (Int) -> (holds: Bool, detail: String)?
  ) -> Target {
    let checks = options.sizes.compactMap { n in
      check(n).map { (n: n, holds: $0.holds, detail: $0.detail) }
    }
    guard !checks.isEmpty else { return Target(name: name, status: .skipped, detail: "not run") }
    let detail = checks.map { "N=\(Format.size($0.n)): \($0.detail)" }.joined(separator: ", ")
    return Target(name: name, status: checks.allSatisfy(\.holds) ? .pass : .fail, detail: detail)
  }

  private var seedTarget: Target {
    let name = "(e) run(over:) is at least 100x faster than the seed (a) on N=\(Format.size(small))"
    guard let seed = result(.seed, small)?.median(\.wallNanoseconds),
      let runOver = result(.runOver, small)?.median(\.wallNanoseconds), runOver > 0
    else { return Target(name: name, status: .skipped, detail: "not run") }
    let ratio = seed / runOver
    return Target(
      name: name, status: ratio >= 100 ? .pass : .fail,
      detail: "\(Format.ratio(ratio)) (\(Format.duration(seed)) vs \(Format.duration(runOver)))")
  }

  /// A row's name in a target's detail, such as `(d) N=1M`.
  private func label(_ result: CaseResult) -> String {
    let tag = "(\(result.benchCase.tag))"
    return result.benchCase.scalesWithN ? "\(tag) N=\(Format.size(result.n))" : tag
  }

  private var runnerResults: [CaseResult] {
    results.filter { $0.benchCase.usesRunner && !$0.samples.isEmpty }
  }

  private var deliveryTarget: Target {
    let name =
      "At most one main-actor delivery per update interval plus the \(Cases.transitions) transitions"
    var worst: (headroom: Int, text: String)?
    var holds = true
    for result in runnerResults {
      for sample in result.samples {
        guard let deliveries = sample.deliveries, let bound = sample.deliveryBound else { continue }
        holds = holds && deliveries <= bound
        let headroom = bound - deliveries
        if headroom < worst?.headroom ?? .max {
          worst = (
            headroom,
            "closest: \(label(result)): \(deliveries) deliveries, \(bound) allowed"
          )
        }
      }
    }
    guard let worst else { return Target(name: name, status: .skipped, detail: "not run") }
    return Target(
      name: name + " (every run of d, e, e', f, g, g')", status: holds ? .pass : .fail,
      detail: worst.text)
  }

  private var memoryTarget: Target {
    let name =
      "Memory flat: peak RSS grows by less than 1 MiB from N=\(Format.size(small)) "
      + "to N=\(Format.size(large)) (d, e, f)"
    let growth = memoryGrowth
    guard !growth.isEmpty else { return Target(name: name, status: .skipped, detail: "not run") }
    let detail = growth.map { "(\($0.benchCase.tag)) \(Format.growth($0.growthBytes))" }
      .joined(separator: ", ")
    let holds = growth.allSatisfy { $0.growthBytes < 1_048_576 }
    return Target(name: name, status: holds ? .pass : .fail, detail: detail)
  }

  private var latencyTarget: Target {
    let name =
      "The final state reaches observers within one update interval (worst run of d, e, e', f, g, g')"
    let worst = runnerResults.compactMap { result in
      result.worst(\.latencyNanoseconds).map { (result, $0) }
    }
    .max { $0.1 < $1.1 }
    guard let (result, latency) = worst else {
      return Target(name: name, status: .skipped, detail: "not run")
    }
    return Target(
      name: name, status: latency <= interval ? .pass : .fail,
      detail:
        "worst \(Format.duration(latency)) (\(label(result))),"
        + " interval \(Format.duration(interval))")
  }

  /// Contract rule 4: observers see the latest value within about one update interval, so
  /// while a run is active they never go long without a delivery.
  private var freshnessTarget: Target {
    let slack = 2.0
    let name =
      "Observers hear from an active run at least every \(Int(slack)) update intervals "
      + "(contract rule 4, one interval of slack; every run of d, e, e', f, g'; "
      + "(g) never suspends, see below)"
    let worst = runnerResults.filter { $0.benchCase != .saturated }.compactMap { result in
      result.worst(\.longestGapNanoseconds).map { (result, $0) }
    }
    .max { $0.1 < $1.1 }
    guard let (result, gap) = worst else {
      return Target(name: name, status: .skipped, detail: "not run")
    }
    return Target(
      name: name, status: gap <= slack * interval ? .pass : .fail,
      detail:
        "longest silence \(Format.duration(gap)) (\(label(result))),"
        + " allowed \(Format.duration(slack * interval))")
  }

  private var idleTarget: Target {
    let name = "Idle costs nothing: no wake-ups while no run is active and nothing animates"
    let details = results.filter { $0.benchCase == .idle }.flatMap(\.samples).compactMap(\.idle)
    guard !details.isEmpty else { return Target(name: name, status: .skipped, detail: "not run") }
    let before = details.map(\.wakeUpsBeforeAnyRun).max() ?? 0
    let after = details.map { max($0.wakeUpsWhileIdle, $0.sleepsWhileIdle) }.max() ?? 0
    return Target(
      name: name, status: before == 0 && after == 0 ? .pass : .fail,
      detail:
        "most in any run: \(before) before the first run, \(after) in "
        + "\(Format.duration(options.idleSeconds * 1e9)) after the bar settled")
  }

  private var finishedTarget: Target {
    let name = "Every child process succeeded and every runner run ended in .finished"
    let failed = runnerResults.flatMap(\.samples).filter { !$0.finished }
    let failures = results.flatMap(\.failures)
    guard !runnerResults.isEmpty || !failures.isEmpty else {
      return Target(name: name, status: .skipped, detail: "not run")
    }
    let holds = failed.isEmpty && failures.isEmpty
    let detail =
      holds
      ? "\(runnerResults.map(\.samples.count).reduce(0, +)) runs"
      : "\(failed.count) ended otherwise, \(failures.count) child processes failed"
    return Target(name: name, status: holds ? .pass : .fail, detail: detail)
  }
}

// MARK: - Text

extension Report {
  /// The whole report as text: machine, table, memory, idle, ratios, targets, noise.
  var text: String {
    var lines: [String] = []
    lines.append("progress-bench: the cost of progress reporting")
    lines.append("machine: \(machine.system); \(machine.cpu); \(machine.cores) cores")
    lines.append("swift:   \(machine.swiftVersion ?? "(swift not on PATH; skipped)")")
    lines.append("date:    \(machine.date)")
    lines.append(
      "load:    \(machine.loadAverageAtStart ?? "?") at start, \(machine.loadAverageAtEnd ?? "?")"
        + " at end (1, 5, 15 min)")
    lines.append(
      "runs:    median of \(options.runs) child processes per row\(options.quick ? " (--quick)" : "");"
        + " (a) at N=\(options.seedSizes.map { Format.size($0) }.joined(separator: ", ")) only"
        + (options.seedAtLargeSize ? "" : " (add --seed-10m for N=\(Format.size(large)))"))
    lines.append("")
    lines.append(table)
    lines.append("")
    lines.append(
      """
      wall: the timed part. (a) from the start until the main-actor model holds 1.0; (b), (c) \
      the loop; (d), (f) the reporting loop inside the run; (e) from run(over:) until the \
      observer sees .finished. ns/report = wall / N. (f) makes N reports in total, N/k per task. \
      deliveries: observer calls during the run ((a): main-actor tasks run); bound: \
      ceil(end-to-end / \(Format.duration(interval))) + \(Cases.transitions). frames: frames the \
      runner scheduled (main-actor jobs). latency: last report -> observer sees the end. max gap: \
      the longest time between two deliveries during the run. spread: (max - min) / median of \
      wall over the runs.
      """)
    lines.append("")
    lines.append(contentsOf: memoryText)
    lines.append("")
    lines.append(contentsOf: saturatedText)
    lines.append("")
    lines.append(contentsOf: idleText)
    lines.append("")
    lines.append("Ratios (medians of this run)")
    for ratio in ratios {
      lines.append(
        "  \(ratio.name) at N=\(Format.size(ratio.n)): \(Format.ratio(ratio.value))  \(ratio.meaning)"
      )
    }
    lines.append("")
    lines.append("Targets")
    for target in targets {
      lines.append("  \(target.status.rawValue)  \(target.name): \(target.detail)")
    }
    lines.append("")
    lines.append(noiseText)
    return lines.joined(separator: "\n")
  }

  private var table: String {
    var rows = [
      [
        "case", "what", "N", "wall", "spread", "ns/report", "reports/s", "deliveries", "bound",
        "frames", "latency", "max gap", "peak RSS",
      ]
    ]
    for result in results where result.benchCase.scalesWithN {
      guard !result.samples.isEmpty else {
        rows.append(
          [result.benchCase.tag, result.benchCase.title, Format.count(result.n), "failed"]
            + Array(repeating: "", count: 9))
        continue
      }
      rows.append([
        result.benchCase.tag,
        result.benchCase.title,
        Format.count(result.n),
        Format.duration(result.median(\.wallNanoseconds)),
        Format.percent(result.wallSpread),
        Format.nanoseconds(result.median(\.nanosecondsPerReport)),
        Format.rate(result.median(\.reportsPerSecond)),
        Format.count(result.median { $0.deliveries.map(Double.init) }.map { Int($0.rounded()) }),
        Format.count(result.median { $0.deliveryBound.map(Double.init) }.map { Int($0.rounded()) }),
        Format.count(result.median { $0.frames.map(Double.init) }.map { Int($0.rounded()) }),
        Format.duration(result.median(\.latencyNanoseconds)),
        Format.duration(result.median(\.longestGapNanoseconds)),
        Format.mebibytes(result.median { Double($0.peakRSSBytes) }),
      ])
    }
    return Format.table(rows, leftAligned: 2)
  }

  private var memoryText: [String] {
    var lines = ["Peak RSS (VmHWM of each child process, medians)"]
    lines.append("  empty child (baseline): \(Format.mebibytes(baselinePeakBytes))")
    for n in options.seedSizes {
      guard let seed = result(.seed, n)?.median({ Double($0.peakRSSBytes) }) else { continue }
      let over = baselinePeakBytes.map { " (\(Format.growth(seed - $0)) over the baseline)" } ?? ""
      lines.append("  (a) seed at N=\(Format.size(n)): \(Format.mebibytes(seed))\(over)")
    }
    for growth in memoryGrowth {
      lines.append(
        "  (\(growth.benchCase.tag)) N=\(Format.size(small)) -> N=\(Format.size(large)): "
          + "\(Format.mebibytes(growth.smallPeakBytes)) -> \(Format.mebibytes(growth.largePeakBytes)),"
          + " growth \(Format.growth(growth.growthBytes))")
    }
    return lines
  }

  private var saturatedText: [String] {
    [BenchCase.saturated, .saturatedCheckpoints].flatMap { benchCase -> [String] in
      guard let result = result(benchCase) else {
        return ["Saturated pool (\(benchCase.tag)): not run"]
      }
      let wall = result.median(\.wallNanoseconds) ?? 0
      let count = { (value: Double?) in Format.count(value.map { Int($0.rounded()) }) }
      let how =
        benchCase == .saturated
        ? "never suspend" : "call reporter.checkpoint() every 4,096 reports"
      return [
        "Saturated pool (\(benchCase.tag)): \(benchCase.reportingTasks) tasks on a \(machine.cores)-thread"
          + " pool report in tight loops for \(Format.duration(Cases.saturationTime.nanoseconds))"
          + " and \(how) (medians of \(result.samples.count) runs)",
        "  \(count(result.median { Double($0.n) })) reports, \(Format.rate(result.median(\.reportsPerSecond)))"
          + " in total, in \(Format.duration(wall)) end to end",
        "  \(count(result.median { $0.deliveries.map(Double.init) })) deliveries"
          + " (one per interval would be about \(Int((wall / interval).rounded()) + Cases.transitions)),"
          + " \(count(result.median { $0.frames.map(Double.init) })) frames,"
          + " longest silence \(Format.duration(result.median(\.longestGapNanoseconds)))",
      ]
    }
  }

  private var idleText: [String] {
    let idle = results.filter { $0.benchCase == .idle }.flatMap(\.samples).compactMap(\.idle)
    guard !idle.isEmpty else { return ["Idle: not run"] }
    func median(_ value: (IdleDetails) -> Double) -> Double {
      Statistics.median(idle.map(value)) ?? 0
    }
    func count(_ value: (IdleDetails) -> Int) -> String {
      Format.count(Int(median { Double(value($0)) }.rounded()))
    }
    let window = Format.duration(options.idleSeconds * 1e9)
    return [
      "Idle and animation (default spring animation, a CountingClock; medians of \(idle.count) runs)",
      "  idle before any run (\(window)): \(count(\.wakeUpsBeforeAnyRun)) wake-ups",
      "  a run of 50 x 20 ms (\(Format.duration(median(\.runNanoseconds)))): "
        + "\(count(\.framesDuringRun)) frames (one per interval would be "
        + "\(count(\.expectedFramesDuringRun))), \(count(\.deliveriesDuringRun)) deliveries",
      "  the bar settling after the run (\(Format.duration(median(\.settleNanoseconds)))): "
        + "\(count(\.framesWhileSettling)) frames",
      "  idle after the bar settled (\(window)): \(count(\.sleepsWhileIdle)) frames scheduled, "
        + "\(count(\.wakeUpsWhileIdle)) wake-ups",
    ]
  }

  private var noiseText: String {
    let spreads = results.filter(\.benchCase.scalesWithN).compactMap { result in
      result.wallSpread.map { (result, $0) }
    }
    guard let worst = spreads.max(by: { $0.1 < $1.1 }) else { return "Noise: not measured" }
    let median = Statistics.median(spreads.map(\.1))
    return
      "Noise: wall-time spread over runs, median \(Format.percent(median)) across rows, worst "
      + "\(Format.percent(worst.1)) (\(label(worst.0)))."
      + " Rows run interleaved, round by round, so drift hits every case alike."
  }
}

// MARK: - JSON

extension Report {
  /// The JSON document: everything the text shows, plus every run's sample.
  private struct Document: Encodable {
    struct Options: Encodable {
      var runs: Int
      var sizes: [Int]
      var seedSizes: [Int]
      var quick: Bool
      var idleSeconds: Double
      var updateIntervalSeconds: Double
      var transitions: Int
    }

    struct Row: Encodable {
      var benchCase: BenchCase
      var tag: String
      var title: String
      var n: Int
      var medians: [String: Double]
      var wallSpread: Double?
      var runs: [Sample]
      var failures: [String]
    }

    var machine: Machine
    var options: Options
    var results: [Row]
    var baselinePeakRSSBytes: Double?
    var memoryGrowth: [MemoryGrowth]
    var ratios: [Ratio]
    var targets: [Target]
  }

  /// Writes the JSON document to `path`, creating its folder.
  func writeJSON(to path: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let document = Document(
      machine: machine,
      options: Document.Options(
        runs: options.runs, sizes: options.sizes, seedSizes: options.seedSizes,
        quick: options.quick, idleSeconds: options.idleSeconds,
        updateIntervalSeconds: interval / 1e9, transitions: Cases.transitions),
      results: results.map { result in
        Document.Row(
          benchCase: result.benchCase, tag: result.benchCase.tag, title: result.benchCase.title,
          n: result.n, medians: medians(of: result), wallSpread: result.wallSpread,
          runs: result.samples, failures: result.failures)
      },
      baselinePeakRSSBytes: baselinePeakBytes,
      memoryGrowth: memoryGrowth,
      ratios: ratios,
      targets: targets)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    try encoder.encode(document).write(to: url)
  }

  private func medians(of result: CaseResult) -> [String: Double] {
    let fields: [(String, (Sample) -> Double?)] = [
      ("wallNanoseconds", \.wallNanoseconds),
      ("nanosecondsPerReport", \.nanosecondsPerReport),
      ("reportsPerSecond", \.reportsPerSecond),
      ("endToEndNanoseconds", \.endToEndNanoseconds),
      ("deliveries", { $0.deliveries.map(Double.init) }),
      ("deliveryBound", { $0.deliveryBound.map(Double.init) }),
      ("frames", { $0.frames.map(Double.init) }),
      ("latencyNanoseconds", \.latencyNanoseconds),
      ("longestGapNanoseconds", \.longestGapNanoseconds),
      ("peakRSSBytes", { Double($0.peakRSSBytes) }),
    ]
    return fields.reduce(into: [:]) { medians, field in
      medians[field.0] = result.median(field.1)
    }
  }
}
