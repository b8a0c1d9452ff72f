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
struct Report {
  /// The options the run used.
  let options: Options
  /// Where it ran.
  let machine: [String: String]
  /// Every case at every size, in the order they ran.
  let jobs: [Job]

  private var sizes: [Int] { options.sizes }
  private var interval: Double { Measure.intervalNanoseconds }

  /// The median of a measurement of one case at one size.
  private func median(_ benchCase: BenchCase, _ n: Int = 0, _ key: String = "wall") -> Double? {
    jobs.first { $0.benchCase == benchCase && $0.n == n }?.median(key)
  }

  /// The fewest and the most of a count over every run of one case at one size, from its
  /// `...Min` and `...Max` measurements: `1` when they agree, `1-3` when they do not.
  private func range(_ benchCase: BenchCase, _ n: Int, _ key: String) -> String {
    let runs = jobs.first { $0.benchCase == benchCase && $0.n == n }?.runs ?? []
    guard let low = runs.compactMap({ $0[key + "Min"] }).min(),
      let high = runs.compactMap({ $0[key + "Max"] }).max()
    else { return "-" }
    return low == high ? Format.count(low) : "\(Format.count(low))-\(Format.count(high))"
  }

  /// The ratio of two cases' medians at one size.
  private func ratio(_ a: BenchCase, _ b: BenchCase, _ n: Int, _ key: String = "wall") -> Double? {
    guard let top = median(a, n, key), let bottom = median(b, n, key), bottom > 0 else {
      return nil
    }
    return top / bottom
  }

  /// The worst value over every run of the observed cases but `excluded`, with its row.
  private func worst(
    excluding excluded: [BenchCase] = [], _ value: (Metrics) -> Double?
  ) -> [(String, Double?)] {
    let runs = jobs.filter { $0.benchCase.isObservedRun && !excluded.contains($0.benchCase) }
      .flatMap { job in job.runs.compactMap { value($0).map { (job.label, $0) } } }
    return runs.max { $0.1 < $1.1 }.map { [("worst \($0.0)", $0.1)] } ?? []
  }

  /// How much the peak memory of the runner cases grew from the smaller size to the larger.
  private var memoryGrowth: [(String, Double?)] {
    [BenchCase.reporter, .runOver, .reporterX2, .reporterX8].map { benchCase in
      let low = median(benchCase, sizes[0], "peakRSS")
      return (
        "(\(benchCase.tag))",
        median(benchCase, sizes[1], "peakRSS").flatMap { high in
          low.map { high - $0 }
        }
      )
    }
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

  /// The most the passes of the group in one frame of (p) differed from 1, over every frame of
  /// every run at `n` runners.
  private func passDeviation(n: Int) -> Double? {
    let runs = jobs.first { $0.benchCase == .group && $0.n == n }?.runs ?? []
    return runs.compactMap { run in
      run["passesMin"].flatMap { low in
        run["passesMax"].map { high in max(abs(low - 1), abs(high - 1)) }
      }
    }.max()
  }

  /// The name of the target of (k), which the report explains when it fails.
  static let completeTargetName = "(k) complete(count: 1) is within 4x of the raw atomic store (c)"

  /// The name of the target of (l), which the report explains when it fails.
  static let contendedTargetName =
    "(l) 8 tasks completing one reporter keep at least half the completions per second of one "
    + "task (k): wall (l) / wall (k) for the same N in total"

  /// Whether the target named `name` failed in this run.
  private func failed(_ name: String) -> Bool {
    targets.contains { $0.name == name && $0.status == "FAIL" }
  }

  /// Why (k) and (l) miss their targets when they do: what atomic additions cost on this machine.
  private var atomicTargetNotes: [String] {
    completeTargetNote + contendedTargetNote
  }

  /// Why (l) misses its target when it does: what one counter shared by several cores costs.
  private var contendedTargetNote: [String] {
    guard failed(Self.contendedTargetName) else { return [] }
    let measured = sizes.compactMap { n -> String? in
      guard let raw = ratio(.atomicAddX8, .atomicAdd, n),
        let x8 = ratio(.completeX8, .atomicAddX8, n)
      else { return nil }
      return "at N=\(Format.size(n)) 8 tasks of raw wrappingAdd (c'8) take "
        + "\(Format.number(raw, "%.2fx")) as long as one (c'), and (l) \(Format.number(x8, "%.2fx"))"
        + " as long as (c'8)"
    }
    return [
      """
        Why (l) misses 2x: every completion is an atomic add to the reporter's one counter, so \
      that none is lost. When tasks on different cores add to one counter, each add waits for \
      the cache line to move between the cores, whatever the code around it does. Here \
      \(measured.isEmpty ? "(c'8) did not run" : measured.joined(separator: "; ")).
      """
    ]
  }

  /// Why (k) misses its target when it does: what a lock-prefixed add costs on this machine.
  private var completeTargetNote: [String] {
    guard failed(Self.completeTargetName) else { return [] }
    let measured = sizes.compactMap { n -> String? in
      guard let add = ratio(.atomicAdd, .atomic, n), let complete = ratio(.complete, .atomicAdd, n)
      else { return nil }
      return "at N=\(Format.size(n)) the raw wrappingAdd (c') costs \(Format.number(add, "%.1fx"))"
        + " the store (c), and complete(count: 1) (k) \(Format.number(complete, "%.2fx")) the add"
    }
    return [
      """
        Why (k) misses 4x the store: complete(count:) is one atomic read-modify-write, by design, \
      so that concurrent workers never lose a count. On x86-64 that is a lock-prefixed \
      instruction (lock xadd), which costs several nanoseconds against well under one for a \
      plain store, whatever the code around it does; the floor that matters for (k) is the raw \
      add (c'). Here \(measured.isEmpty ? "(c') did not run" : measured.joined(separator: "; ")).
      """
    ]
  }

  /// How far the followed run of (r) went over what its matched run allows, in the observer's
  /// states and in the renderer's updates: the most over every run, negative when under.
  ///
  /// Both runs deliver about one state per frame, so the matched run's count is scaled to the
  /// followed run's length first: a slow spell of the machine during one of the two runs of a
  /// child process makes that run longer, and its count with it. The allowance is
  /// `matched x (followed run / matched run) x 1.1 + 2`.
  private var followedExcess: [(String, Double?)] {
    let runs = jobs.first { $0.benchCase == .followedProgress }?.runs ?? []
    return [("states", "deliveries"), ("renderer updates", "rendered")].map { label, key in
      let matchedKey = "matched" + key.prefix(1).uppercased() + key.dropFirst()
      let excess = runs.compactMap { run -> Double? in
        guard let followed = run[key], let matched = run[matchedKey], let length = run["run"],
          let matchedLength = run["matchedRun"], matchedLength > 0
        else { return nil }
        return followed - (matched * length / matchedLength * 1.1 + 2)
      }
      return (label, excess.max())
    }
  }

  /// The lines of (r): the three runs side by side, and what an update costs.
  private var followedProgressLines: [String] {
    let value = { (key: String) in median(.followedProgress, 0, key) }
    guard let updates = value("updates") else { return [] }
    let header = [
      "run", "loop", "ns/update", "run time", "states", "states/s", "renderer", "frames",
      "bound",
    ]
    let rows = [
      ("followed Progress", ""), ("plain report()", "plain"),
      ("report() + a Progress nobody follows", "matched"),
    ].map { name, prefix in
      let key = { (key: String) in
        prefix.isEmpty ? key : prefix + key.prefix(1).uppercased() + key.dropFirst()
      }
      let perSecond = value(key("deliveries")).flatMap { states in
        value(key("run")).map { states / $0 * 1e9 }
      }
      return [name, Format.duration(value(key("wall")))]
        + [Format.number(value(key("wall")).map { $0 / updates }, "%.2f")]
        + [Format.duration(value(key("run"))), Format.count(value(key("deliveries")))]
        + [Format.number(perSecond, "%.1f")]
        + ["rendered", "frames", "bound"].map { Format.count(value(key($0))) }
    }
    let pollTime = value("pollReadCost").flatMap { cost in value("frames").map { cost * $0 } }
    return [
      "",
      "(r) \(BenchCase.followedProgress.tagAndTitle.title): \(Format.count(updates)) updates on a "
        + "Thread in each run, on the system clock at the default update interval.",
      Format.table([header] + rows, leftAligned: 1),
      "  ns per update: Progress.completedUnitCount set with no observer "
        + Format.number(value("progressSetCost"), "%.1f") + ", followed "
        + Format.number(value("followedSetCost"), "%.1f") + ", on a child under a parent "
        + Format.number(value("childSetCost"), "%.1f") + "; report(completed:of:) "
        + Format.number(value("reportCost"), "%.2f") + ".",
      "  main actor: one poll's reads of the Progress (flags, counts, fraction) "
        + Format.number(value("pollReadCost"), "%.1f ns") + ", one per frame: "
        + Format.microseconds(pollTime) + " over the followed run's "
        + Format.count(value("frames")) + " frames.",
      """
      loop: the thread's updates; run time: from the call of run to its end. states: the \
      observer's calls; renderer: the updates an attached renderer received, a frame on every \
      update interval and each new state; bound: ceil(run / \(Format.duration(interval))) + 3. The \
      plain run ends within a few frames, so its states are mostly the start and the end; the \
      matched run makes the plain run's report and the followed run's set in every update, so \
      that it lasts about as long as the followed run: the target compares the two, the \
      matched run's counts scaled by the ratio of the two runs' times.
      """,
    ]
  }

  /// Every target, checked.
  var targets: [Target] {
    let perSize = { (value: (Int) -> Double?) in sizes.map { ("N=\(Format.size($0))", value($0)) } }
    let times = { (value: Double) in Format.number(value, "%.2fx") }
    let idle = jobs.first { $0.benchCase == .idle }?.runs ?? []
    let failures = jobs.flatMap(\.failures).count
    let unfinished = jobs.flatMap(\.runs).filter { $0["finished"] == 0 }.count
    let observed = "every run of d, e, e', f, g, g', i"
    return [
      Target(
        "(d) report() costs at most 5 ns per call",
        perSize { n in median(.reporter, n).map { $0 / Double(n) } }, { $0 <= 5 },
        { Format.number($0, "%.2f ns") }),
      Target(
        "(d) report() is within about 4x of the raw atomic store (c)",
        perSize { ratio(.reporter, .atomic, $0) }, { $0 <= 4 }, times),
      Target(
        "(d) report() is at least 8x faster than Foundation.Progress (b)",
        perSize { ratio(.foundationProgress, .reporter, $0) }, { $0 >= 8 }, times),
      Target(
        "(e) run(over:) is at least 100x faster than the AsyncStream pipeline (a)",
        [("N=\(Format.size(sizes[0]))", ratio(.stream, .runOver, sizes[0]))], { $0 >= 100 }, times),
      Target(
        "At most one main-actor delivery per update interval plus the transitions: the start, "
          + "and the end with the last report (\(observed))",
        worst { ($0["deliveries"] ?? 0) - ($0["bound"] ?? 0) }, { $0 <= 0 },
        { $0 > 0 ? "\(Format.count($0)) over the bound" : "\(Format.count(-$0)) under it" }),
      Target(
        "Memory flat: peak RSS grows by less than 1 MiB from N=\(Format.size(sizes[0])) to "
          + "N=\(Format.size(sizes[1])) (d, e, f)",
        memoryGrowth, { $0 < 1_048_576 }, { Format.number($0, "%+.0f KiB", times: 1.0 / 1024) }),
      Target(
        "The final state reaches observers within one update interval (\(observed))",
        worst { $0["latency"] }, { $0 <= interval }, Format.duration),
      Target(
        "Observers hear from an active run at least every 2 update intervals, one of them slack "
          + "for timer jitter (every run of d, e, e', f, g')",
        worst(excluding: [.saturated, .busy]) { $0["maxGap"] }, { $0 <= 2 * interval },
        Format.duration),
      Target(
        "(f8) 8 concurrent reporters make at least as many reports per second as one (d)",
        perSize { ratio(.reporter, .reporterX8, $0) }, { $0 >= 1 }, times),
      Target(
        "(j) A child's report() is within 1.5x of the run's own reporter's, in the same loop",
        perSize { n in
          median(.childReporter, n).flatMap { child in
            median(.childReporter, n, "rootReports").map { child / $0 }
          }
        }, { $0 <= 1.5 }, times),
      Target(
        Self.completeTargetName, perSize { ratio(.complete, .atomic, $0) }, { $0 <= 4 }, times),
      Target(
        Self.contendedTargetName,
        perSize { ratio(.completeX8, .complete, $0) }, { $0 <= 2 }, times),
      Target(
        "(m) One runner frame over \(Format.count(Double(Measure.drainedChildren))) live "
          + "children fits in an update interval (median frame)",
        [("frame", median(.drain, 0, "frame"))], { $0 <= interval }, Format.microseconds),
      Target(
        "(n) report() with counts above 2^31 (a 5 GiB file in bytes) is within 1.2x of the same "
          + "loop with small counts",
        perSize { n in
          median(.bytes, n).flatMap { big in median(.bytes, n, "smallCounts").map { big / $0 } }
        }, { $0 <= 1.2 }, times),
      Target(
        "(o) report(message:) with the text the run shows already costs at most 1.5x a "
          + "report(completed:of:) in the same loop (short text; long text in the table below)",
        perSize { n in
          median(.message, n).flatMap { text in
            median(.message, n, "plainReports").map { text / $0 }
          }
        }, { $0 <= 1.5 }, times),
      Target(
        "(p) A group sums up its runners in exactly one pass per frame, at every N (every frame "
          + "of every run)",
        BenchCase.group.sizes(options).map { n in
          ("N=\(Format.count(Double(n)))", passDeviation(n: n))
        },
        { $0 == 0 }, { $0 == 0 ? "1 pass in every frame" : "off by up to \(Format.count($0))" }),
      Target(
        "(q) TerminalGroupRenderer draws \(Measure.drawnBars) bars and the total in under 1 ms "
          + "per drawn frame (median of the renderer's time in the frames it wrote)",
        [("draw", median(.bars, 0, "draw"))], { $0 < 1e6 }, Format.microseconds),
      Target(
        "(r) A Progress followed while a thread sets it "
          + "\(Format.size(Measure.followedUpdates(quick: options.quick))) times costs the main "
          + "actor no more deliveries than a report() loop as long, the matched run: states and "
          + "renderer updates <= matched x (followed run time / matched run time) x 1.1 + 2 "
          + "(every run)",
        followedExcess, { $0 <= 0 },
        { $0 > 0 ? "\(Format.number($0, "%.1f")) over" : "\(Format.number(-$0, "%.1f")) under" }),
      Target(
        "(h) 400 runners use at most 1.3x the CPU time of 400 bare tasks and a ticker (h')",
        [("N=400", ratio(.many, .manyBare, 400, "cpu"))], { $0 <= 1.3 }, times),
      Target(
        "(h) The runners' frame timer wakes up about 60 times per second (48 to 72) whatever N",
        BenchCase.many.sizes(options).map { ("N=\($0)", median(.many, $0, "wakeUpsPerSecond")) },
        { abs($0 * interval / 1e9 - 1) <= 0.2 }, { Format.number($0, "%.1f/s") }),
      Target(
        "(i) With every pool thread busy and no checkpoint(), observers get a .running update at "
          + "least every 50 ms",
        worst { $0["busyGap"] }, { $0 < 50e6 }, Format.duration),
      Target(
        "Idle costs nothing: no frame-timer wake-ups while no run is active and nothing animates",
        [
          ("most before any run", idle.compactMap { $0["wakeUpsBeforeAnyRun"] }.max()),
          ("most after the bar settled", idle.compactMap { $0["wakeUpsAfterSettling"] }.max()),
        ], { $0 == 0 }, Format.count),
      Target(
        "Every child process succeeded and every run ended in .finished",
        [("children failed", Double(failures)), ("runs ended otherwise", Double(unfinished))],
        { $0 == 0 }, Format.count),
    ]
  }
}

// MARK: - Text and JSON

extension Report {
  /// The medians the text shows for the cases outside the tables.
  private static let details: [(BenchCase, [String])] = [
    (.saturated, ["wall", "reports", "deliveries", "bound", "frames", "maxGap"]),
    (.saturatedCheckpoints, ["wall", "reports", "deliveries", "bound", "frames", "maxGap"]),
    (
      .busy,
      [
        "threads", "busy", "busyUpdates", "busyGap", "reporterStall", "deliveries", "frames",
        "latency",
      ]
    ),
    (.drain, ["children", "frame", "frameP90", "frameMax", "progressRead", "deliveries"]),
    (
      .bars,
      [
        "bars", "draw", "drawP90", "drawMax", "quietFrame", "wakeUp", "bytes", "writes", "lines",
        "framesPerDraw",
      ]
    ),
    (
      .idle,
      [
        "wakeUpsBeforeAnyRun", "run", "framesDuringRun", "framesExpected", "settle",
        "framesWhileSettling", "wakeUpsAfterSettling",
      ]
    ),
  ]

  /// The measurements that are times, in nanoseconds.
  private static let times: Set = [
    "wall", "maxGap", "busy", "busyGap", "reporterStall", "latency", "run", "settle", "frame",
    "frameP90", "frameMax", "progressRead", "draw", "drawP90", "drawMax", "quietFrame", "wakeUp",
  ]

  /// The times shown in microseconds whatever their size: those of (m) and (q).
  private static let microseconds: Set = [
    "frame", "frameP90", "frameMax", "progressRead", "draw", "drawP90", "drawMax", "quietFrame",
    "wakeUp",
  ]

  /// The measurements that are ratios, shown with two decimals.
  private static let ratios: Set = ["framesPerDraw"]

  /// The whole report as text.
  var text: String {
    var lines = ["progress-bench: the cost of progress reporting"]
    lines += ["system", "cpu", "cores", "swift", "date", "load"].map {
      "\($0): \(machine[$0, default: "?"])"
    }
    lines.append(
      "runs: medians of \(options.runs) child processes per row, \(min(options.runs, 3)) for (h)"
        + (options.quick ? " (--quick)" : ""))

    let rows = jobs.filter {
      $0.n > 0 && !$0.runs.isEmpty && ![.many, .manyBare, .group].contains($0.benchCase)
    }
    if !rows.isEmpty {
      let header = [
        "case", "what", "N", "wall", "spread", "ns/report", "deliveries", "bound", "frames",
        "latency", "max gap", "peak RSS",
      ]
      let table = rows.map { job in
        let perReport = job.median("wall").map { $0 / Double(job.n) }
        return [job.benchCase.tag, job.benchCase.tagAndTitle.title, Format.count(Double(job.n))]
          + [Format.duration(job.median("wall")), Format.number(job.spread, "%.0f%%", times: 100)]
          + [Format.number(perReport, perReport ?? 0 < 10 ? "%.2f" : "%.0f")]
          + ["deliveries", "bound", "frames"].map { Format.count(job.median($0)) }
          + ["latency", "maxGap"].map { Format.duration(job.median($0)) }
          + [Format.mebibytes(job.median("peakRSS"))]
      }
      lines += [
        "", Format.table([header] + table, leftAligned: 2), "",
        """
        wall: the timed part. (a) from the start until the main-actor model holds 1.0; (b), (c) \
        the loop; (d), (f) the reporting loop inside the run; (e), (e') from the call until the \
        observer sees .finished. ns/report = wall / N; (f) makes N reports in total. deliveries: \
        observer calls during the run ((a): main-actor tasks run); bound: ceil(end-to-end / \
        \(Format.duration(interval))) + 3 (the start, the last report and the end). frames: wake-ups of the frame timer. latency: last \
        report -> observer sees the end. max gap: the longest time between two deliveries. \
        spread: (max - min) / median of wall over the runs.
        """,
        "",
        "peak RSS of an empty child: \(Format.mebibytes(median(.empty, 0, "peakRSS")))",
      ]
    }

    let details = Self.details.filter { median($0.0, 0, $0.1[0]) != nil }
    for (benchCase, keys) in details {
      let values = keys.map { key in
        let value = median(benchCase, 0, key)
        let text =
          Self.microseconds.contains(key)
          ? Format.microseconds(value)
          : Self.times.contains(key)
            ? Format.duration(value)
            : Self.ratios.contains(key) ? Format.number(value, "%.2f") : Format.count(value)
        return "\(key) " + text
      }
      lines += [
        "", "(\(benchCase.tag)) \(benchCase.tagAndTitle.title): " + values.joined(separator: ", "),
      ]
    }
    if details.contains(where: { $0.0 != .bars }) {
      lines.append(
        """
        reports: in total over the tasks. busy: how long every pool thread ran a loop at once; \
        busyUpdates, busyGap: the .running updates then, and the longest time without one, edges \
        included; reporterStall: the longest time the reporting loop itself made no report (the \
        thread off the CPU). framesExpected: one per update interval of the run. (m) frame: one \
        runner frame, measured as ManualClock.advance(by:) one update interval on the main actor \
        (read the tree, publish the state to one observer), over a run whose reporter has \
        10,000 started, unfinished children at 50/100, one of them moving before each frame; \
        median, 90th percentile and worst of 200 frames (50 with --quick). progressRead: the median time of \
        reporter.progress on a standalone reporter with the same children.
        """)
    }
    if median(.bars, 0, "draw") != nil {
      lines.append(
        """
        (q) draw: the TerminalGroupRenderer's time, all its calls added up, in a frame in which \
        it wrote: the runners' updates it took in, then fitting the bars into the rows, building \
        the text and writing it; median, 90th percentile and worst of 200 drawn frames (50 with \
        --quick). quietFrame: its time in a frame in which it wrote nothing (it draws at most 20 \
        times per second). wakeUp: the whole ManualClock.advance(by:) of a drawn frame, the 50 \
        runners' frames and the group's pass included. bytes, writes: per drawn frame; lines: \
        the line breaks of the last write; framesPerDraw: frames per drawn frame.
        """)
    }

    let manySizes = BenchCase.many.sizes(options).filter {
      median(.many, $0) ?? median(.manyBare, $0) != nil
    }
    if !manySizes.isEmpty {
      let header = [
        "N", "h wall", "h CPU", "h' wall", "h' CPU", "CPU h/h'", "h frames", "h' ticks",
      ]
      let table = manySizes.map { n in
        [.many, .manyBare].flatMap {
          [Format.duration(median($0, n)), Format.duration(median($0, n, "cpu"))]
        }
          + [Format.number(ratio(.many, .manyBare, n, "cpu"), "%.2fx")]
          + [.many, .manyBare].map { Format.number(median($0, n, "wakeUpsPerSecond"), "%.1f/s") }
      }
      lines += [
        "",
        "(h) N runners and (h') N bare tasks with one ticker on the main actor: each task sleeps "
          + "5 ms \(options.quick ? 100 : 400) times and reports after each; CPU is user + system.",
        Format.table([header] + zip(manySizes, table).map { ["\($0)"] + $1 }, leftAligned: 0),
      ]
    }

    let groupSizes = BenchCase.group.sizes(options).filter { median(.group, $0, "frame") != nil }
    if !groupSizes.isEmpty {
      let header = [
        "N", "wake-up", "p90", "no group", "group pass", "pass share", "group cost", "per runner",
        "passes/frame", "updates/frame",
      ]
      let table = groupSizes.map { n in
        let frame = median(.group, n, "frame")
        let pass = median(.group, n, "groupPass")
        let bare = median(.group, n, "frameNoGroup")
        return ["\(Format.count(Double(n)))"]
          + [frame, median(.group, n, "frameP90"), bare, pass].map(Format.microseconds)
          + [Format.number(pass.flatMap { pass in frame.map { pass / $0 } }, "%.0f%%", times: 100)]
          + [Format.microseconds(frame.flatMap { frame in bare.map { frame - $0 } })]
          + [Format.number(frame.map { $0 / Double(n) }, "%.2f µs", times: 1e-3)]
          + ["passes", "updates"].map { range(.group, n, $0) }
      }
      lines += [
        "",
        "(p) N running runners on a ManualClock, each reporting before every frame, in one "
          + "TaskRunnerGroup; medians of one wake-up over \(options.quick ? 50 : 200) frames.",
        Format.table([header] + table, leftAligned: 0),
        """
        wake-up: ManualClock.advance(by:) one update interval: every runner's frame, then the \
        group's pass; p90: its 90th percentile. no group: the same wake-up over N runners in no \
        group, frames interleaved. group pass: the pass alone, from the last runner's last update \
        to the end of the pass; pass share: group pass / wake-up. group cost: wake-up - no \
        group, the pass and the runners' updates relayed to the group. per runner: wake-up / N. \
        passes/frame, updates/frame: the fewest and the most the group made and relayed in one \
        frame, over every run.
        """,
      ]
    }

    lines += followedProgressLines

    let comparisons = sizes.flatMap { n in
      [
        (
          "(e') vs (a)", ratio(.stream, .handLoop, n),
          "the loop by hand reaches 100% this many times sooner"
        ),
        (
          "(e) vs (e')", ratio(.runOver, .handLoop, n),
          "run(over:) takes this many times as long as the loop by hand"
        ),
        (
          "(f2) vs (d)", ratio(.reporter, .reporterX2, n),
          "2 tasks make this many times as many reports per second as 1"
        ),
        (
          "(j) vs (d)", ratio(.childReporter, .reporter, n),
          "a child's report() in (j)'s loop takes this many times as long as (d)'s root report()"
        ),
        (
          "(c') vs (c)", ratio(.atomicAdd, .atomic, n),
          "a raw Atomic<Int>.wrappingAdd takes this many times as long as a store"
        ),
        (
          "(k) vs (c')", ratio(.complete, .atomicAdd, n),
          "complete(count: 1) takes this many times as long as a raw wrappingAdd"
        ),
        (
          "(c'8) vs (c')", ratio(.atomicAddX8, .atomicAdd, n),
          "8 tasks adding to one atomic take this many times as long as 1 for the same N"
        ),
        (
          "(l) vs (c'8)", ratio(.completeX8, .atomicAddX8, n),
          "8 tasks completing one reporter take this many times as long as 8 raw adders"
        ),
        (
          "(o) short text", median(.message, n).map { $0 / Double(n) },
          "ns per unchanged report(message:) of a 7-byte text, kept by its bytes"
        ),
        (
          "(o) long text", median(.message, n, "longText").map { $0 / Double(n) },
          "ns per unchanged report(message:) of a 51-byte text, kept by its storage's address"
        ),
        (
          "(o) changed text", median(.message, n, "changedText").map { $0 / Double(n) },
          "ns per report(message:) with a new text each call (one lock each)"
        ),
        (
          "(o) plain", median(.message, n, "plainReports").map { $0 / Double(n) },
          "ns per report(completed:of:) in (o)'s loop"
        ),
        (
          "(n) vs (d)", ratio(.bytes, .reporter, n),
          "(n)'s loop with counts above 2^31 takes this many times as long as (d)'s, a loop "
            + "written differently"
        ),
      ].compactMap { name, value, meaning in
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
    lines += atomicTargetNotes
    let spreads = jobs.compactMap { job in job.spread.map { (job.label, $0) } }.sorted {
      $0.1 < $1.1
    }
    if let worst = spreads.last {
      lines += [
        "",
        "Noise: wall-time spread over runs, median "
          + Format.number(spreads[spreads.count / 2].1, "%.0f%%", times: 100)
          + " across rows, worst \(Format.number(worst.1, "%.0f%%", times: 100)) (\(worst.0)). Rows"
          + " run interleaved, round by round, so drift hits every case alike.",
      ]
    }
    return lines.joined(separator: "\n")
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
