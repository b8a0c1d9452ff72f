import Foundation
import TaskProgressFoundation
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A runner following a `Foundation.Progress`: read on the runner's frames, mapped to the run's
/// states, cancelled both ways, and never losing the last value.
@MainActor
@Suite("Following a Progress", .timeLimit(.minutes(1)))
struct FollowingProgressTests {
  let harness = Harness()
  var runner: TaskRunner { harness.runner }
  var recorder: StateRecorder { harness.recorder }

  @Test func eachFrameShowsTheProgressAsItIsThen() async throws {
    let progress = rootProgress(total: 100)
    let run = await FollowingRun.start(on: runner, following: progress)
    progress.completedUnitCount = 10
    harness.clock.advance(by: frame)
    progress.completedUnitCount = 29
    harness.clock.advance(by: frame)
    progress.totalUnitCount = -1
    harness.clock.advance(by: frame)
    progress.totalUnitCount = 100
    progress.completedUnitCount = 100
    harness.clock.advance(by: frame)
    run.proceed.open()
    await runner.lastRunTask?.value
    try recorder.expectStates([
      .idle, .running(0), .running(RunProgress(completed: 10, of: 100)),
      .running(RunProgress(completed: 29, of: 100)),
      .running(.indeterminate(completed: 29)),
      .running(RunProgress(completed: 100, of: 100)), .finished,
    ])
    // 29 of 100 is 29%, and reads as its counts.
    #expect(recorder.states[3].progress?.description == "29/100")
  }

  @Test func aMillionUpdatesBetweenTwoFramesReachObserversOnce() async throws {
    let progress = rootProgress(total: 1_000_000)
    let run = await FollowingRun.start(on: runner, following: progress)
    await Task.detached {
      for count in 1...1_000_000 {
        progress.completedUnitCount = Int64(count)
      }
    }.value
    harness.clock.advance(by: frame)
    harness.clock.advance(by: frame)  // nothing new: no state
    run.proceed.open()
    await runner.lastRunTask?.value
    try recorder.expectStates([
      .idle, .running(0), .running(RunProgress(completed: 1_000_000, of: 1_000_000)), .finished,
    ])
  }

  @Test func theLastValueReachesObserversWhenTheOperationEndsBeforeAFrame() async throws {
    let progress = rootProgress(total: 50)
    let state = await runner.run { reporter in
      reporter.follow(progress)
      for count in 1...50 {
        progress.completedUnitCount = Int64(count)  // no frame in between: the clock is manual
      }
      progress.totalUnitCount = 60
    }
    #expect(state == .finished)
    try recorder.expectStates([
      .idle, .running(0), .running(RunProgress(completed: 50, of: 60)), .finished,
    ])
  }

  @Test func aCancelledProgressCancelsTheRunAfterItsLastValue() async throws {
    let progress = rootProgress(total: 10)
    let run = await FollowingRun.start(on: runner, following: progress)
    progress.completedUnitCount = 4
    progress.cancel()
    harness.clock.advance(by: frame)
    try recorder.expectStates([
      .idle, .running(0), .running(RunProgress(completed: 4, of: 10)), .cancelled,
    ])
    run.proceed.open()
  }

  @Test func cancellingTheRunCancelsTheProgressAndCallsItsHandler() async throws {
    let progress = rootProgress(total: 10)
    let handled = Latch()
    progress.cancellationHandler = { handled.open() }
    let run = await FollowingRun.start(on: runner, following: progress)
    runner.cancel()
    #expect(progress.isCancelled)
    await handled.wait()
    run.proceed.open()
  }

  @Test func resettingTheRunCancelsTheProgress() async throws {
    let progress = rootProgress(total: 10)
    let run = await FollowingRun.start(on: runner, following: progress)
    runner.reset()
    #expect(progress.isCancelled)
    run.proceed.open()
  }

  @Test func aProgressFollowedAfterTheRunWasCancelledIsCancelledAtOnce() async throws {
    let progress = rootProgress(total: 10)
    let reporterSlot = Locked<TaskRunner.Reporter?>(nil)
    let run = HoldingRun()
    runner.start { reporter in
      reporterSlot.withLock { $0 = reporter }
      run.started.open()
      await run.proceed.wait()
    }
    await run.started.wait()
    runner.cancel()
    reporterSlot.withLock { $0 }?.follow(progress)
    #expect(progress.isCancelled)
    run.proceed.open()
  }

  @Test func aProgressFollowedAfterTheRunFinishedIsLeftAlone() async throws {
    let progress = rootProgress(total: 10)
    let reporterSlot = Locked<TaskRunner.Reporter?>(nil)
    _ = await runner.run { reporter in reporterSlot.withLock { $0 = reporter } }
    reporterSlot.withLock { $0 }?.follow(progress)
    progress.completedUnitCount = 5
    harness.clock.advance(by: frame)
    #expect(!progress.isCancelled)
    try recorder.expectStates([.idle, .running(0), .finished])
  }

  @Test func followingEndsWhenTheProgressFinishes() async throws {
    let progress = rootProgress(total: 4)
    let run = await FollowingRun.start(on: runner, following: progress)
    progress.completedUnitCount = 4
    harness.clock.advance(by: frame)
    progress.totalUnitCount = 8  // after it finished: no longer followed
    harness.clock.advance(by: frame)
    runner.cancel()
    #expect(!progress.isCancelled)  // a progress no longer followed is not cancelled
    run.proceed.open()
    try recorder.expectStates([
      .idle, .running(0), .running(RunProgress(completed: 4, of: 4)), .cancelled,
    ])
  }

  @Test func aSubprogressFollowingAProgressShowsItsShare() async throws {
    let progress = rootProgress(total: 100)
    let run = await FollowingRun.start(on: runner, following: progress, assigning: (10, of: 100))
    progress.completedUnitCount = 50
    harness.clock.advance(by: frame)
    progress.completedUnitCount = -1  // indeterminate: contributes nothing
    harness.clock.advance(by: frame)
    progress.completedUnitCount = 100
    harness.clock.advance(by: frame)
    run.proceed.open()
    await runner.lastRunTask?.value
    try recorder.expectStates([
      .idle, .running(0),
      .running(RunProgress(fractionCompleted: 0.05, completed: 0, of: 100)),
      .running(RunProgress(completed: 0, of: 100)),
      .running(RunProgress(completed: 10, of: 100)), .finished,
    ])
  }

  @Test func aProgressWithChildrenUnderWayShowsTheirShareInTheFractionOnly() async throws {
    let progress = rootProgress(total: 4)
    let run = await FollowingRun.start(on: runner, following: progress)
    let child = rootProgress(total: 2)
    progress.addChild(child, withPendingUnitCount: 2)
    progress.completedUnitCount = 1
    child.completedUnitCount = 1
    harness.clock.advance(by: frame)
    child.completedUnitCount = 2
    harness.clock.advance(by: frame)
    run.proceed.open()
    await runner.lastRunTask?.value
    try recorder.expectStates([
      .idle, .running(0),
      .running(RunProgress(fractionCompleted: 0.5, completed: 1, of: 4)),
      .running(RunProgress(completed: 3, of: 4)), .finished,
    ])
  }
}

/// A run that holds until the test lets it end.
final class HoldingRun: Sendable {
  let started = Latch()
  let proceed = Latch()
}
