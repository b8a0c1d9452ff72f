import Foundation

/// One case at one size, with every run's measurements.
struct Job: Encodable {
  /// The case.
  let benchCase: BenchCase
  /// The size, or 0 for the cases that do not scale.
  let n: Int
  /// One entry per child process that succeeded.
  var runs: [Metrics] = []
  /// Why the other children failed.
  var failures: [String] = []

  /// The median of a measurement over the runs.
  func median(_ key: String) -> Double? {
    let values = runs.compactMap { $0[key] }.sorted()
    guard !values.isEmpty else { return nil }
    return (values[(values.count - 1) / 2] + values[values.count / 2]) / 2
  }

  /// (max - min) / median of the wall times: how noisy this row was.
  var spread: Double? {
    let walls = runs.compactMap { $0["wall"] }
    guard let median = median("wall"), median > 0, let low = walls.min(), let high = walls.max()
    else { return nil }
    return (high - low) / median
  }

  /// The row's name in the report, such as `(d) N=1M`.
  var label: String { "(\(benchCase.tag))" + (n > 0 ? " N=\(Format.size(n))" : "") }
}

/// The results of a run: as text for people, and as JSON with every run's measurements for tools.
///
/// The file of each case's measurement extends this with the case's targets, table, notes and
/// ratios; this assembles them, in the order of the report, with the main table.
struct Report {
  /// The options the run used.
  let options: Options
  /// Where it ran.
  let machine: [String: String]
  /// Every case at every size, in the order they ran.
  let jobs: [Job]

  /// A ratio that is not a target: its name, its value at one size, and what it means.
  typealias Comparison = (name: String, value: Double?, meaning: String)

  /// The two sizes of the cases that scale with N.
  var sizes: [Int] { options.sizes }
  /// The runners' update interval, in nanoseconds.
  var interval: Double { Measure.intervalNanoseconds }

  /// Every run of one case at one size.
  func runs(_ benchCase: BenchCase, _ n: Int = 0) -> [Metrics] {
    jobs.first { $0.benchCase == benchCase && $0.n == n }?.runs ?? []
  }

  /// The median of a measurement of one case at one size.
  func median(_ benchCase: BenchCase, _ n: Int = 0, _ key: String = "wall") -> Double? {
    jobs.first { $0.benchCase == benchCase && $0.n == n }?.median(key)
  }

  /// The median of a measurement of one case at size `n`, per item.
  func perItem(_ benchCase: BenchCase, _ n: Int, _ key: String = "wall") -> Double? {
    median(benchCase, n, key).map { $0 / Double(n) }
  }

  /// The ratio of two cases' medians at one size.
  func ratio(_ a: BenchCase, _ b: BenchCase, _ n: Int, _ key: String = "wall") -> Double? {
    guard let top = median(a, n, key), let bottom = median(b, n, key), bottom > 0 else {
      return nil
    }
    return top / bottom
  }

  /// The ratio of a case's wall time to its `control`, the same loop in the same child process.
  func ratio(_ benchCase: BenchCase, _ n: Int, to control: String) -> Double? {
    combine(median(benchCase, n), median(benchCase, n, control), /)
  }

  /// A value per size, labelled `N=1M`.
  func perSize(_ value: (Int) -> Double?) -> [(String, Double?)] {
    sizes.map { ("N=\(Format.size($0))", value($0)) }
  }

  /// The worst value over every run of the observed cases but `excluded`, with its row.
  func worst(
    excluding excluded: [BenchCase] = [], _ value: (Metrics) -> Double?
  ) -> [(String, Double?)] {
    let runs = jobs.filter { $0.benchCase.isObservedRun && !excluded.contains($0.benchCase) }
      .flatMap { job in job.runs.compactMap { value($0).map { (job.label, $0) } } }
    return runs.max { $0.1 < $1.1 }.map { [("worst \($0.0)", $0.1)] } ?? []
  }

  /// The line of the medians of a case without a table, after a blank line.
  ///
  /// Nothing when the first of `keys` was not measured. `times` are shown by `timeFormat`,
  /// `ratios` with two decimals, every other measurement as a count.
  func detailLine(
    _ benchCase: BenchCase, _ keys: [String], times: Set<String>,
    in timeFormat: (Double?) -> String = Format.duration, ratios: Set<String> = []
  ) -> [String] {
    guard median(benchCase, 0, keys[0]) != nil else { return [] }
    let values = keys.map { key in
      let value = median(benchCase, 0, key)
      let text =
        times.contains(key)
        ? timeFormat(value)
        : ratios.contains(key) ? Format.number(value, "%.2f") : Format.count(value)
      return "\(key) " + text
    }
    return [
      "", "(\(benchCase.tag)) \(benchCase.tagAndTitle.title): " + values.joined(separator: ", "),
    ]
  }

  /// One target, checked against this run.
  struct Target: Encodable {
    /// What is promised.
    var name: String
    /// `PASS`, `FAIL`, or `SKIP` when the cases it needs did not run.
    var status: String
    /// The numbers it was judged on.
    var detail: String

    /// A target that holds when every value that was measured holds.
    init(
      _ name: String, _ values: [(String, Double?)], _ holds: (Double) -> Bool,
      _ format: (Double) -> String
    ) {
      let measured = values.compactMap { label, value in value.map { (label, $0) } }
      self.name = name
      status = measured.isEmpty ? "SKIP" : measured.allSatisfy { holds($0.1) } ? "PASS" : "FAIL"
      detail =
        measured.isEmpty
        ? "not run" : measured.map { "\($0.0): \(format($0.1))" }.joined(separator: ", ")
    }
  }

  /// Every target, checked, in the order of the report.
  var targets: [Target] {
    let failures = jobs.flatMap(\.failures).count
    let unfinished = jobs.flatMap(\.runs).filter { $0["finished"] == 0 }.count
    return runnerTargets + compositionTargets + groupTargets + barsTargets + followedTargets
      + frameTargets + childCompleteTargets + scaleTargets + groupQueueTargets
      + [
        Target(
          "Every child process succeeded and every run ended in .finished",
          [("children failed", Double(failures)), ("runs ended otherwise", Double(unfinished))],
          { $0 == 0 }, Format.count)
      ]
  }

  /// The whole report as text.
  var text: String {
    var lines = ["progress-bench: the cost of progress reporting"]
    lines += ["system", "cpu", "cores", "swift", "date", "load"].map {
      "\($0): \(machine[$0, default: "?"])"
    }
    lines.append(
      "runs: medians of \(options.runs) child processes per row, \(min(options.runs, 3)) for (h)"
        + (options.quick ? " (--quick)" : ""))
    lines += mainTable

    let (pool, drain, idle) = (poolDetails, drainDetails, idleDetails)
    lines += pool + drain + barsDetails + idle
    if !(pool + drain + idle).isEmpty {
      lines.append(Self.poolNote + " " + Self.drainNote)
    }
    lines +=
      barsNote + manyTable + groupTable + followedProgressLines + scaleTables
      + groupQueueTable

    let comparisons = sizes.flatMap { n in
      (runnerRatios(n) + compositionRatios(n)).compactMap { name, value, meaning in
        // A time per call is in nanoseconds; every other comparison is a ratio.
        let format = meaning.hasPrefix("ns per") ? "%.2f ns" : "%.2fx"
        return value.map {
          "  \(name) at N=\(Format.size(n)): \(Format.number($0, format)): \(meaning)"
        }
      }
    }
    if !comparisons.isEmpty {
      lines += ["", "Ratios of medians, besides those in the targets"] + comparisons
    }
    lines += ["", "Targets"] + targets.map { "  \($0.status)  \($0.name): \($0.detail)" }
    lines += compositionNotes
    let spreads = jobs.compactMap { job in job.spread.map { (job.label, $0) } }.sorted {
      $0.1 < $1.1
    }
    if let worst = spreads.last {
      lines += [
        "",
        "Noise: wall-time spread over runs, median \(Format.percent(spreads[spreads.count / 2].1))"
          + " across rows, worst \(Format.percent(worst.1)) (\(worst.0)). Rows"
          + " run interleaved, round by round, so drift hits every case alike.",
      ]
    }
    return lines.joined(separator: "\n")
  }

  /// The table of every case and size but those with tables of their own, and its legend.
  private var mainTable: [String] {
    let rows = jobs.filter {
      $0.n > 0 && !$0.runs.isEmpty
        && ![
          .many, .manyBare, .group, .queue, .queueBare, .manyChildren, .manyChildrenRare,
          .manyItems, .manyItemsUnwatched, .manyItemsBare, .groupQueue, .groupQueueBare,
        ].contains($0.benchCase)
    }
    guard !rows.isEmpty else { return [] }
    let header = [
      "case", "what", "N", "wall", "spread", "ns/report", "deliveries", "bound", "frames",
      "latency", "max gap", "peak RSS",
    ]
    let table = rows.map { job in
      let perReport = job.median("wall").map { $0 / Double(job.n) }
      return [job.benchCase.tag, job.benchCase.tagAndTitle.title, Format.count(Double(job.n))]
        + [Format.duration(job.median("wall")), Format.percent(job.spread)]
        + [Format.number(perReport, perReport ?? 0 < 10 ? "%.2f" : "%.0f")]
        + ["deliveries", "bound", "frames"].map { Format.count(job.median($0)) }
        + ["latency", "maxGap"].map { Format.duration(job.median($0)) }
        + [Format.mebibytes(job.median("peakRSS"))]
    }
    return [
      "", Format.table([header] + table, leftAligned: 2), "",
      """
      wall: the timed part. (a) from the start until the main-actor model holds 1.0; (b), (c) \
      the loop; (d), (f) the reporting loop inside the run; (e), (e') from the call until the \
      observer sees .finished. ns/report = wall / N; (f) makes N reports in total. deliveries: \
      observer calls during the run ((a): main-actor tasks run); bound: ceil(end-to-end / \
      \(Format.duration(interval))) + 3 (the start, the last report and the end). frames: wake-ups \
      of the frame timer. latency: last report -> observer sees the end. max gap: the longest \
      time between two deliveries. spread: (max - min) / median of wall over the runs.
      """,
      "",
      "peak RSS of an empty child: \(Format.mebibytes(median(.empty, 0, "peakRSS")))",
    ]
  }

  /// The JSON document: the machine, every run's measurements and the targets.
  func json() throws -> Data {
    struct Document: Encodable {
      let machine: [String: String]
      let runs: Int
      let quick: Bool
      let results: [Job]
      let targets: [Target]
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(
      Document(
        machine: machine, runs: options.runs, quick: options.quick, results: jobs,
        targets: targets))
  }
}

/// `operation(a, b)` when both were measured, such as `combine(frame, bare, -)`.
func combine(_ a: Double?, _ b: Double?, _ operation: (Double, Double) -> Double) -> Double? {
  a.flatMap { a in b.map { operation(a, $0) } }
}

/// Number formats for the report; `-` for what was not measured.
enum Format {
  /// A duration in nanoseconds, such as `812 ns`, `43.1 µs`, `7.12 ms` or `7.12 s`.
  static func duration(_ nanoseconds: Double?) -> String {
    guard let nanoseconds else { return "-" }
    switch abs(nanoseconds) {
    case ..<1e3: return String(format: "%.0f ns", nanoseconds)
    case ..<1e6: return String(format: "%.1f µs", nanoseconds / 1e3)
    case ..<1e9: return String(format: "%.2f ms", nanoseconds / 1e6)
    default: return String(format: "%.2f s", nanoseconds / 1e9)
    }
  }

  /// A duration in nanoseconds, in microseconds, such as `571.4 µs` or `1830.2 µs`.
  static func microseconds(_ nanoseconds: Double?) -> String {
    number(nanoseconds, "%.1f µs", times: 1e-3)
  }

  /// A value through a `printf` format, scaled first: `number(fraction, "%.0f%%", times: 100)`.
  static func number(_ value: Double?, _ format: String, times scale: Double = 1) -> String {
    value.map { String(format: format, $0 * scale) } ?? "-"
  }

  /// A ratio, such as `1.25x`.
  static func ratio(_ value: Double?) -> String { number(value, "%.2fx") }

  /// A fraction as a whole percentage, such as `12%`.
  static func percent(_ value: Double?) -> String { number(value, "%.0f%%", times: 100) }

  /// A size in bytes, in MiB.
  static func mebibytes(_ bytes: Double?) -> String {
    number(bytes, "%.1f MiB", times: 1.0 / 1_048_576)
  }

  /// A whole number with thousands separators, such as `1,000,000`.
  static func count(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "-" }
    let digits = String(Int(value.rounded()).magnitude)
    let grouped = digits.enumerated().map { offset, digit in
      (offset > 0 && (digits.count - offset).isMultiple(of: 3) ? "," : "") + String(digit)
    }
    return (value.rounded() < 0 ? "-" : "") + grouped.joined()
  }

  /// A size as the report names it: `100k`, `1M`, `10M`.
  static func size(_ n: Int) -> String {
    n.isMultiple(of: 1_000_000)
      ? "\(n / 1_000_000)M" : n.isMultiple(of: 1000) ? "\(n / 1000)k" : "\(n)"
  }

  /// Lays out rows as columns; the first `leftAligned` columns align left, the rest right.
  static func table(_ rows: [[String]], leftAligned: Int) -> String {
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
      row.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return column < leftAligned ? cell + padding : padding + cell
      }
      .joined(separator: "  ")
    }
    .joined(separator: "\n")
  }
}
