import Foundation
import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("Frames on the system clock", .timeLimit(TestScale.timeLimit(minutes: 3)))
struct MainQueueFrameTimerTests {
  @Test func runnersOnTheSystemClockShareOneTicker() {
    let first = TaskRunner()
    let second = TaskRunner(updateInterval: .milliseconds(5))
    #expect(
      FrameTicker.shared(for: ContinuousClock()) === FrameTicker.shared(for: ContinuousClock()))
    #expect(first.updateInterval != second.updateInterval)
  }

  @Test func aManualClockHasOneTickerForAsLongAsARunnerUsesIt() {
    let clock = ManualClock()
    let runner = TaskRunner(clock: clock)
    #expect(FrameTicker.shared(for: clock) === FrameTicker.shared(for: clock))
    #expect(FrameTicker.shared(for: clock) !== FrameTicker.shared(for: ManualClock()))
    withExtendedLifetime(runner) {}
  }

  /// Spinners that never suspend, until told to stop or until a deadline passes.
  final class Spinners: Sendable {
    let stop = Atomic<Bool>(false)
    let heard = Atomic<Int>(0)

    nonisolated func spin(_ reporter: TaskRunner.Reporter?, until deadline: ContinuousClock.Instant)
    {
      var step = 0
      while !stop.load(ordering: .relaxed) && ContinuousClock.now < deadline {
        step &+= 1
        reporter?.report(completed: step, of: Int.max)
      }
    }
  }

  /// Observers hear of the progress while every pool thread spins, the operation among them.
  ///
  /// Frames come from the main queue, which needs no thread of the pool. The spinners stop
  /// when the observer has heard twice (two updates: frames go on, not just one), or 20 s after
  /// the operation began, so that a failure ends with a message. How often frames come under
  /// load is a figure for the benchmark, case (i), not a promise a test on a shared machine can
  /// hold: with other suites on the main actor, two updates in 20 s were seen.
  ///
  /// It runs only when `TASKPROGRESS_POOL_PRESSURE=1`, by itself, as `.ci/run` and
  /// `Scripts/stress-tests.sh` run it: it takes every thread of the pool on purpose, and in a
  /// parallel run every other suite's bounded waits for the pool ran out behind it (with the
  /// sanitizer, it held the pool for 16 to 34 s).
  @Test(
    .enabled(
      if: ProcessInfo.processInfo.environment["TASKPROGRESS_POOL_PRESSURE"] == "1",
      "takes every thread of the pool: run alone with TASKPROGRESS_POOL_PRESSURE=1"))
  func observersHearFromARunWhileEveryPoolThreadIsBusy() async {
    let runner = TaskRunner(animation: .instant)
    let spinners = Spinners()
    let token = runner.observe { state in
      guard case .running(let progress) = state, (progress.completedCount ?? 0) > 0 else { return }
      if spinners.heard.add(1, ordering: .relaxed).newValue >= 2 {
        spinners.stop.store(true, ordering: .relaxed)
      }
    }
    let final = await runner.run { reporter in
      // Counted from here: other tests may keep the pool busy for a while before this begins.
      let deadline = ContinuousClock.now + .seconds(20)
      // Started from the operation, so that the operation has its thread before they take the rest.
      let tasks = (0..<8).map { _ in Task.detached { spinners.spin(nil, until: deadline) } }
      spinners.spin(reporter, until: deadline)
      for task in tasks { await task.value }
    }
    #expect(
      spinners.heard.load(ordering: .relaxed) >= 2,
      "no progress reached observers while the pool was busy")
    #expect(final == .finished)
    withExtendedLifetime(token) {}
  }
}
