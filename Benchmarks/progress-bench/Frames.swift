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
