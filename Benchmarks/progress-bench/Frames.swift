import Foundation
import Synchronization
@_spi(Benchmarks) import TaskProgress

/// The cases about frames rather than the cost of a report: who wakes up, how often, and
/// whether observers hear from a run while the pool is busy.
extension Measure {
  /// (g) and (g'): 8 tasks, more than the pool has threads, report in tight loops for 0.5 s;
  /// with `checkpoints`, each calls `reporter.checkpoint()` every 4,096 reports.
  static func saturatedPool(checkpoints: Bool) async -> Metrics {
    let reports = Counter.make()
    var metrics = await observedRun { runner, span in
      await runner.run { reporter in
        let deadline = nowNanoseconds() + 500_000_000
        await withDiscardingTaskGroup { group in
          for _ in 0..<8 {
            group.addTask {
              let made = await reportUntil(deadline, to: reporter, checkpoints: checkpoints)
              reports.value.add(made.reports, ordering: .relaxed)
              span.end()
            }
          }
        }
      }
    }
    metrics["reports"] = Double(reports.value.load(ordering: .relaxed))
    return metrics
  }

  /// (i) Every pool thread runs a loop that never suspends for 1 s: one is the operation of a
  /// run, which reports without calling `checkpoint()`; the others spin.
  static func busyPool() async -> Metrics {
    let threads = max(2, ProcessInfo.processInfo.activeProcessorCount)
    let stall = Counter.make()
    var metrics = await observedRun(busyWindow: true) { runner, span in
      // The loops watch a deadline rather than a flag that a task sets: setting the flag would
      // need a pool thread, and every one of them is spinning.
      let deadline = nowNanoseconds() + 1_000_000_000
      return await runner.run { reporter in
        await withDiscardingTaskGroup { group in
          for _ in 1..<threads {
            group.addTask {
              span.begin()
              while nowNanoseconds() < deadline {}
              span.end()
            }
          }
          span.begin()
          let made = await reportUntil(deadline, to: reporter, checkpoints: false)
          span.end()
          stall.value.store(Int(made.longestStall), ordering: .relaxed)
        }
      }
    }
    metrics["threads"] = Double(threads)
    metrics["reporterStall"] = Double(stall.value.load(ordering: .relaxed))
    return metrics
  }

  /// Reports in a loop until `deadline`, in ``nowNanoseconds()``, calling `checkpoint()` every
  /// 4,096 reports or never suspending.
  ///
  /// Returns how many reports it made, and the longest time between two batches of 4,096, which
  /// take microseconds: a longer stall means that the thread was off the CPU, so that no new
  /// value came for a frame to deliver.
  nonisolated static func reportUntil(
    _ deadline: Int64, to reporter: TaskRunner.Reporter, checkpoints: Bool
  ) async -> (reports: Int, longestStall: Int64) {
    // Counts wrap below the total, so every report is valid and of the same kind.
    let total = 1 << 30
    var (count, last, longestStall) = (0, nowNanoseconds(), Int64(0))
    repeat {
      for _ in 0..<4096 {
        count += 1
        reporter.report(completed: count % total, of: total)
      }
      if checkpoints {
        try? await reporter.checkpoint()
      }
      let now = nowNanoseconds()
      (longestStall, last) = (max(longestStall, now - last), now)
    } while last < deadline
    return (count, longestStall)
  }

  /// (h) and (h'): `n` tasks each sleep 5 ms `steps` times and report after every step, as the
  /// runs of `n` runners with the default settings, or as bare tasks whose progress one ticker
  /// task on the main actor reads once per update interval.
  ///
  /// Measures, from the start of the work to its end, the process's CPU time and how often per
  /// second the runners' frame timer, or the ticker, woke up.
  static func many(n: Int, bare: Bool, steps: Int) async -> Metrics {
    let cpuBefore = cpuNanoseconds()
    let framesBefore = TaskRunner.systemFrameWakeUps
    let start = nowNanoseconds()
    let finished = Counter.make()
    var wakeUps = 0
    if bare {
      let progress = (0..<n).map { _ in Counter.make() }
      let shown = Counter.make()
      let ticker = Task {
        var ticks = 0
        while finished.value.load(ordering: .acquiring) < n {
          try? await Task.sleep(for: updateInterval)
          ticks += 1
          shown.value.store(
            progress.reduce(0) { $0 + $1.value.load(ordering: .acquiring) }, ordering: .relaxed)
        }
        return ticks
      }
      await withDiscardingTaskGroup { group in
        for counter in progress {
          group.addTask {
            try? await sleepPacedWork(steps: steps) {
              counter.value.store($0, ordering: .releasing)
            }
            finished.value.add(1, ordering: .releasing)
          }
        }
      }
      wakeUps = await ticker.value
    } else {
      let operation: @concurrent @Sendable (TaskRunner.Reporter) async throws -> Void = {
        reporter in
        try await sleepPacedWork(steps: steps) { reporter.report(completed: $0, of: steps) }
      }
      let runs = (0..<n).map { _ in
        let runner = TaskRunner()
        return Task { await runner.run(operation) }
      }
      for run in runs where await run.value == .finished {
        finished.value.add(1, ordering: .relaxed)
      }
      wakeUps = TaskRunner.systemFrameWakeUps - framesBefore
    }
    let seconds = Double(nowNanoseconds() - start) / 1e9
    return [
      "wall": seconds * 1e9, "cpu": cpuNanoseconds() - cpuBefore,
      "wakeUpsPerSecond": Double(wakeUps) / seconds,
      "finished": finished.value.load(ordering: .relaxed) == n ? 1 : 0,
    ]
  }

  /// Sleep-paced work: `steps` sleeps of `pace`, with a report after each.
  nonisolated static func sleepPacedWork(
    steps: Int, every pace: Duration = .milliseconds(5), report: (Int) -> Void
  ) async throws {
    for step in 1...steps {
      try await Task.sleep(for: pace)
      report(step)
    }
  }

  /// A runner with the default animation: frame-timer wake-ups while idle before any run, during
  /// a run of 50 steps of 20 ms, while the bar settles, and while idle after it settled.
  static func idle(seconds: Double) async -> Metrics {
    let runner = TaskRunner(updateInterval: updateInterval)
    var metrics: Metrics = ["idleSeconds": seconds]
    var counted = TaskRunner.systemFrameWakeUps
    func count(_ key: String) {
      let now = TaskRunner.systemFrameWakeUps
      metrics[key] = Double(now - counted)
      counted = now
    }

    try? await Task.sleep(for: .seconds(seconds))
    count("wakeUpsBeforeAnyRun")
    let runStart = nowNanoseconds()
    await runner.run { reporter in
      try await sleepPacedWork(steps: 50, every: .milliseconds(20)) {
        reporter.report(completed: $0, of: 50)
      }
    }
    metrics["run"] = Double(nowNanoseconds() - runStart)
    metrics["framesExpected"] = (metrics["run", default: 0] / intervalNanoseconds).rounded(.up)
    count("framesDuringRun")
    while runner.isAnimating {
      try? await Task.sleep(for: .milliseconds(10))
    }
    metrics["settle"] = Double(nowNanoseconds() - runStart) - metrics["run", default: 0]
    // Time for a last frame to notice that the bar stopped.
    try? await Task.sleep(for: updateInterval * 6)
    count("framesWhileSettling")
    try? await Task.sleep(for: .seconds(seconds))
    count("wakeUpsAfterSettling")
    return metrics
  }
}

extension Report {
  /// The targets of (h), (i) and idle.
  var frameTargets: [Target] {
    let idle = runs(.idle)
    return [
      Target(
        "(h) 400 runners use at most 1.3x the CPU time of 400 bare tasks and a ticker (h')",
        [("N=400", ratio(.many, .manyBare, 400, "cpu"))], { $0 <= 1.3 }, Format.ratio),
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
    ]
  }

  /// The medians of (g), (g') and (i).
  var poolDetails: [String] {
    let observed = ["wall", "reports", "deliveries", "bound", "frames", "maxGap"]
    let busy = [
      "threads", "busy", "busyUpdates", "busyGap", "reporterStall", "deliveries", "frames",
      "latency",
    ]
    return detailLine(.saturated, observed, times: ["wall", "maxGap"])
      + detailLine(.saturatedCheckpoints, observed, times: ["wall", "maxGap"])
      + detailLine(.busy, busy, times: ["busy", "busyGap", "reporterStall", "latency"])
  }

  /// The medians of idle.
  var idleDetails: [String] {
    let keys = [
      "wakeUpsBeforeAnyRun", "run", "framesDuringRun", "framesExpected", "settle",
      "framesWhileSettling", "wakeUpsAfterSettling",
    ]
    return detailLine(.idle, keys, times: ["run", "settle"])
  }

  /// What the medians of (g), (g'), (i) and idle are.
  static let poolNote = """
    reports: in total over the tasks. busy: how long every pool thread ran a loop at once; \
    busyUpdates, busyGap: the .running updates then, and the longest time without one, edges \
    included; reporterStall: the longest time the reporting loop itself made no report (the \
    thread off the CPU). framesExpected: one per update interval of the run.
    """

  /// The table of (h) and (h'), side by side at each N.
  var manyTable: [String] {
    let manySizes = BenchCase.many.sizes(options).filter {
      median(.many, $0) ?? median(.manyBare, $0) != nil
    }
    guard !manySizes.isEmpty else { return [] }
    let header = ["N", "h wall", "h CPU", "h' wall", "h' CPU", "CPU h/h'", "h frames", "h' ticks"]
    let table = manySizes.map { n in
      ["\(n)"]
        + [.many, .manyBare].flatMap {
          [Format.duration(median($0, n)), Format.duration(median($0, n, "cpu"))]
        }
        + [Format.ratio(ratio(.many, .manyBare, n, "cpu"))]
        + [.many, .manyBare].map { Format.number(median($0, n, "wakeUpsPerSecond"), "%.1f/s") }
    }
    return [
      "",
      "(h) N runners and (h') N bare tasks with one ticker on the main actor: each task sleeps "
        + "5 ms \(options.quick ? 100 : 400) times and reports after each; CPU is user + system.",
      Format.table([header] + table, leftAligned: 0),
    ]
  }
}
