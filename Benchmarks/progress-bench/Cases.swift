import Foundation
import Synchronization
import TaskProgress

/// The measurements, one function per case, each run in the child process the parent started.
///
/// Timed cases that use a ``TaskRunner`` build it with `ProgressAnimation.instant`, so animation
/// frames do not count, and on a ``CountingClock``, so every frame it schedules is counted.
@MainActor
enum Cases {
  /// The runners' update interval: the default, one frame at 60 Hz.
  nonisolated static let updateInterval: Duration = .seconds(1) / 60

  /// The transitions a run delivers besides its progress: `running(0)` and the terminal state.
  nonisolated static let transitions = 2

  /// Measures one case at size `n`.
  static func measure(_ benchCase: BenchCase, n: Int, idleSeconds: Double) async -> Sample {
    switch benchCase {
    case .seed: await seedPipeline(n: n)
    case .foundationProgress: await foundationProgress(n: n)
    case .atomic: await atomicStores(n: n)
    case .reporter, .reporterX2, .reporterX8: await reporterLoop(benchCase, n: n)
    case .runOver: await runOver(n: n)
    case .handLoop: await handLoop(n: n)
    case .saturated: await saturatedPool(checkpoints: false)
    case .saturatedCheckpoints: await saturatedPool(checkpoints: true)
    case .idle: await idleWakeUps(idleSeconds: idleSeconds)
    case .empty: Sample(benchCase: .empty, n: 0)
    }
  }

  // MARK: - (a) The seed

  /// (a) The blog's pipeline, timed until the main-actor model has applied 1.0.
  static func seedPipeline(n: Int) async -> Sample {
    let view = SeedView()
    let start = nowNanoseconds()
    let progressReportingTask = view.performTask(totalObjectCount: n)
    await view.waitUntilFull()
    let fullAt = view.fullAt ?? nowNanoseconds()
    let deliveriesWhenFull = view.deliveriesWhenFull

    // Count every delivery: wait for the consumer, then for the main-actor tasks it queued.
    await progressReportingTask.value
    let patience = nowNanoseconds() + 60_000_000_000
    while view.deliveries < n, nowNanoseconds() < patience {
      try? await Task.sleep(for: .milliseconds(1))
    }

    var sample = Sample(benchCase: .seed, n: n)
    sample.setTimed(wallNanoseconds: Double(fullAt - start))
    sample.endToEndNanoseconds = Double(fullAt - start)
    sample.deliveries = view.deliveries
    sample.latencyNanoseconds = view.lastYieldAt.map { Double(fullAt - $0) }
    sample.seed = SeedDetails(
      deliveriesWhenFull: deliveriesWhenFull, finalProgress: Double(view.progress))
    return sample
  }

  // MARK: - (b) Foundation.Progress and (c) the atomic floor

  /// (b) `completedUnitCount += 1` per item on a `Foundation.Progress`, in a detached task as
  /// the reporter's loop runs.
  static func foundationProgress(n: Int) async -> Sample {
    let elapsed = await Task.detached {
      let progress = Progress(totalUnitCount: Int64(n))
      let start = ContinuousClock.now
      for _ in 0..<n {
        progress.completedUnitCount += 1
      }
      let elapsed = start.duration(to: .now)
      // Reading the result keeps the loop alive.
      precondition(progress.completedUnitCount == Int64(n), "Foundation.Progress lost increments")
      return elapsed
    }.value

    var sample = Sample(benchCase: .foundationProgress, n: n)
    sample.setTimed(wallNanoseconds: elapsed.nanoseconds)
    return sample
  }

  /// A heap-allocated atomic, shared as a progress counter (and the reporter's mailbox) is.
  private final class AtomicBox: Sendable {
    let value = Atomic<Int>(0)

    /// Made out of line, so that the box cannot live on the stack, where the optimizer may see
    /// that nothing else reads it and delete the stores.
    @inline(never)
    static func make() -> AtomicBox {
      AtomicBox()
    }
  }

  /// (c) One releasing store per item into an `Atomic<Int>` on the heap, in a detached task as
  /// the reporter's loop runs: the floor for any reporting.
  static func atomicStores(n: Int) async -> Sample {
    let box = AtomicBox.make()
    let elapsed = await Task.detached {
      let start = ContinuousClock.now
      for index in 1...n {
        box.value.store(index, ordering: .releasing)
      }
      return start.duration(to: .now)
    }.value
    // The stored values depend on the index and are read back, so the loop cannot go.
    precondition(box.value.load(ordering: .acquiring) == n, "the atomic lost stores")

    var sample = Sample(benchCase: .atomic, n: n)
    sample.setTimed(wallNanoseconds: elapsed.nanoseconds)
    return sample
  }

  // MARK: - (d) and (f) The reporter

  /// (d) and (f): `n` calls of `report(completed:of:)` inside one run.
  ///
  /// (d) makes them from the operation itself; (f) splits them evenly over the case's reporting
  /// tasks in a task group. Only the reporting loop (and, for (f), the task group) is timed.
  static func reporterLoop(_ benchCase: BenchCase, n: Int) async -> Sample {
    let tasks = benchCase.reportingTasks
    return await measureRun(benchCase, n: n, tasks: tasks, timing: .loop) { runner, probe in
      _ = await runner.run { reporter in
        if tasks == 1 {
          let loopStart = ContinuousClock.now
          for completed in 1...n {
            reporter.report(completed: completed, of: n)
          }
          probe.recordLoop(loopStart.duration(to: .now))
        } else {
          // Timed from the first task's first report to the last task's last one, so that
          // creating the group and its tasks does not count as reporting time.
          let window = ReportingWindow()
          await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
              let slice = (n * task / tasks)..<(n * (task + 1) / tasks)
              group.addTask {
                window.begin()
                for index in slice {
                  reporter.report(completed: index + 1, of: n)
                }
                window.end()
              }
            }
          }
          probe.recordLoop(window.duration)
        }
        probe.recordLastReport()
      }
    }
  }

  // MARK: - (e) run(over:)

  /// (e) `run(over: 0..<n)` with a no-op async item, timed from the call until the observer
  /// sees `.finished`.
  ///
  /// The items are a `Range`, so no input array adds to the peak memory. The last item stores
  /// the instant it ends; the runner reports it right after, so the latency runs from the last
  /// report (give or take a few nanoseconds) to the observer.
  static func runOver(n: Int) async -> Sample {
    await measureRun(.runOver, n: n, timing: .endToEnd) { runner, probe in
      // The item is exactly `{ _ in await noOp() }`, shaped like the seed's
      // `{ object in try await object.someTask() }`: it captures nothing and ends with its await,
      // so the call forwards straight to the item. Any other code in the closure (a capture, or
      // a check of the item) costs 30-50 ns per item, whoever calls it; so the time of the last
      // item is noted by the collection, as the loop steps onto its end.
      _ = await runner.run(over: ProbedRange(0..<n, probe: probe)) { _ in await noOp() }
    }
  }

  /// (e') The work of (e) written by hand in `run { reporter in ... }`: the same no-op item, a
  /// cancellation check and a report per item, without the generic collection loop.
  static func handLoop(n: Int) async -> Sample {
    await measureRun(.handLoop, n: n, timing: .endToEnd) { runner, probe in
      _ = await runner.run { reporter in
        for item in 0..<n {
          try reporter.checkCancellation()
          await noOp()
          reporter.report(completed: item + 1, of: n)
        }
        probe.recordLastReport()
      }
    }
  }

  // MARK: - (g) A saturated pool

  /// How long each task of (g) reports.
  nonisolated static let saturationTime: Duration = .milliseconds(500)

  /// (g) Eight tasks, more than the cooperative pool has threads, report in tight loops for
  /// ``saturationTime``; timed from the start of the run until the observer sees it end.
  ///
  /// What counts here is not the cost of a report but whether the frames still come while
  /// every thread of the pool is busy: the deliveries and the longest silence between two of
  /// them show whether observers hear from the run once per update interval. Without
  /// checkpoints (g) they do not, since waking from a sleep needs a pool thread; with a
  /// `reporter.checkpoint()` every 4,096 reports (g') they do.
  static func saturatedPool(checkpoints: Bool) async -> Sample {
    let benchCase: BenchCase = checkpoints ? .saturatedCheckpoints : .saturated
    let tasks = benchCase.reportingTasks
    // Counts wrap below the total, so every report is valid and of the same kind.
    let total = 1 << 30
    return await measureRun(benchCase, n: nil, tasks: tasks, timing: .endToEnd) {
      runner, probe in
      _ = await runner.run { reporter in
        let deadline = ContinuousClock.now + saturationTime
        let reports = await withTaskGroup(of: Int.self) { group in
          for _ in 0..<tasks {
            group.addTask {
              var count = 0
              repeat {
                for _ in 0..<4096 {
                  count += 1
                  reporter.report(completed: count % total, of: total)
                }
                if checkpoints {
                  try? await reporter.checkpoint()
                }
              } while ContinuousClock.now < deadline
              return count
            }
          }
          return await group.reduce(0, +)
        }
        probe.recordReports(reports)
        probe.recordLastReport()
      }
    }
  }

  // MARK: - Runner cases

  /// Which part of a runner case is timed.
  enum Timing {
    /// The loop the operation timed into its probe.
    case loop
    /// From the start of the run until the observer saw it end.
    case endToEnd
  }

  /// Runs `body` against a fresh runner, with instant animation and a counting clock, and
  /// records what the run delivered to an observer.
  ///
  /// Pass `nil` for `n` when the operation counts its reports into the probe itself.
  private static func measureRun(
    _ benchCase: BenchCase, n: Int?, tasks: Int = 1, timing: Timing,
    _ body: @MainActor (TaskRunner, OperationProbe) async -> Void
  ) async -> Sample {
    let counter = WakeUpCounter()
    let runner = TaskRunner(
      animation: .instant, updateInterval: updateInterval, clock: CountingClock(counter: counter))
    let tally = DeliveryTally(observing: runner)
    let probe = OperationProbe()

    let start = nowNanoseconds()
    await body(runner, probe)
    tally.stop()

    var sample = Sample(benchCase: benchCase, n: n ?? probe.reportCount)
    sample.tasks = tasks
    switch timing {
    case .loop:
      sample.setTimed(wallNanoseconds: Double(probe.loopNanoseconds))
    case .endToEnd:
      sample.setTimed(wallNanoseconds: Double((tally.endedAt ?? nowNanoseconds()) - start))
    }
    sample.recordRun(
      start: start, tally: tally, lastReportAt: probe.lastReportAt, frames: counter.sleeps)
    return sample
  }

  // MARK: - Idle

  /// Counts a runner's wake-ups with the default animation: while idle before any run, during a
  /// run of known length, while the bar settles, and while idle after it settled (expected 0).
  static func idleWakeUps(idleSeconds: Double) async -> Sample {
    let counter = WakeUpCounter()
    let runner = TaskRunner(updateInterval: updateInterval, clock: CountingClock(counter: counter))
    let tally = DeliveryTally(observing: runner)
    let window = Duration.seconds(idleSeconds)

    // Idle before any run.
    try? await Task.sleep(for: window)
    let wakeUpsBeforeRun = counter.wakeUps

    // A run of known length: 50 steps of 20 ms, about one second.
    let steps = 50
    let sleepsBeforeRun = counter.sleeps
    let runStart = nowNanoseconds()
    _ = await runner.run { reporter in
      for step in 1...steps {
        try await Task.sleep(for: .milliseconds(20))
        reporter.report(completed: step, of: steps)
      }
    }
    let runEnd = tally.endedAt ?? nowNanoseconds()
    let framesDuringRun = counter.sleeps - sleepsBeforeRun
    let deliveriesDuringRun = tally.deliveries

    // The default spring settles in about 0.8 s; then give the last frame time to notice.
    let sleepsAfterRun = counter.sleeps
    while runner.isAnimating {
      try? await Task.sleep(for: .milliseconds(10))
    }
    let settledAt = nowNanoseconds()
    try? await Task.sleep(for: updateInterval * 6)
    let framesWhileSettling = counter.sleeps - sleepsAfterRun

    // Idle after the run: nothing runs and nothing moves.
    let sleepsBeforeIdle = counter.sleeps
    let wakeUpsBeforeIdle = counter.wakeUps
    try? await Task.sleep(for: window)
    tally.stop()

    let runNanoseconds = Double(runEnd - runStart)
    var sample = Sample(benchCase: .idle, n: 0)
    sample.idle = IdleDetails(
      idleSeconds: idleSeconds,
      wakeUpsBeforeAnyRun: wakeUpsBeforeRun,
      runNanoseconds: runNanoseconds,
      framesDuringRun: framesDuringRun,
      expectedFramesDuringRun: Int(
        (runNanoseconds / updateInterval.nanoseconds).rounded(.awayFromZero)),
      deliveriesDuringRun: deliveriesDuringRun,
      settleNanoseconds: Double(settledAt - runEnd),
      framesWhileSettling: framesWhileSettling,
      sleepsWhileIdle: counter.sleeps - sleepsBeforeIdle,
      wakeUpsWhileIdle: counter.wakeUps - wakeUpsBeforeIdle)
    return sample
  }
}
