import Foundation
import TaskProgressFoundation
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A runner following a `Foundation.Progress`: read on the runner's frames, mapped to the run's
/// states, cancelled both ways, and never losing the last value.
@MainActor
@Suite("Following a Progress", .timeLimit(TestScale.timeLimit(minutes: 1)))
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
    let run = await HeldRun.start(on: runner)
    runner.cancel()
    run.reporter.follow(progress)
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

  @Test func aCancelledProgressInAStageDoesNotCompleteItsShare() async throws {
    let progress = rootProgress(total: 10)
    let run = await FollowingRun.start(on: runner, following: progress, assigning: (90, of: 100))
    progress.completedUnitCount = 1
    harness.clock.advance(by: frame)
    progress.cancel()
    harness.clock.advance(by: frame)
    try recorder.expectStates([
      .idle, .running(0),
      .running(RunProgress(fractionCompleted: 0.09, completed: 0, of: 100)), .cancelled,
    ])
    run.proceed.open()
  }

  @Test func aFailedRunCancelsTheProgressItFollowsAndKeepsItsShareOut() async throws {
    let progress = rootProgress(total: 10)
    let state = await runner.run { reporter in
      reporter.report(totalCount: 100)
      reporter.subprogress(assigningCount: 90).follow(progress)
      progress.completedUnitCount = 3
      throw TestError()
    }
    #expect(state.phase == .failed)
    #expect(progress.isCancelled)
    try recorder.expectStates([
      .idle, .running(0),
      .running(RunProgress(fractionCompleted: 0.27, completed: 0, of: 100)), state,
    ])
  }

  @Test func aProgressCancelledJustBeforeTheOperationEndsCancelsTheRun() async throws {
    let progress = rootProgress(total: 10)
    let state = await runner.run { reporter in
      reporter.follow(progress)
      progress.completedUnitCount = 4
      progress.cancel()
    }
    #expect(state == .cancelled)
    try recorder.expectStates([
      .idle, .running(0), .running(RunProgress(completed: 4, of: 10)), .cancelled,
    ])
  }

  @Test func aFinishedRunLeavesAProgressItStillFollowsAlone() async {
    let progress = rootProgress(total: 10)
    let state = await runner.run { reporter in
      reporter.follow(progress)
      progress.completedUnitCount = 4
    }
    #expect(state == .finished)
    #expect(!progress.isCancelled)
  }

  /// The progress learns of the cancel after the run's end is published: what its `cancel()`
  /// does, synchronously, finds the runner with observers told.
  @Test func theProgressIsCancelledAfterObserversHearOfTheCancel() async {
    let progress = CancelWatchingProgress()
    progress.watch = { [runner, recorder] in (runner.state, recorder.states.last) }
    let run = await FollowingRun.start(on: runner, following: progress)
    runner.cancel()
    #expect(progress.seen?.runner == .cancelled)
    #expect(progress.seen?.observed == .cancelled)
    run.proceed.open()
  }

  /// A source's cancel, answered after the drain, is for its own run: an observer of the
  /// drained state that starts another run keeps it.
  @Test func aSourcesCancelNeverReachesARunStartedMeanwhile() async throws {
    let progress = rootProgress(total: 10)
    let run = await FollowingRun.start(on: runner, following: progress)
    let next = Latch()
    var restarted = false
    let token = runner.observe { [runner] state in
      guard !restarted, state == .running(RunProgress(completed: 4, of: 10)) else { return }
      restarted = true
      runner.reset()
      runner.start { _ in await next.wait() }
    }
    progress.completedUnitCount = 4
    progress.cancel()
    harness.clock.advance(by: frame)
    #expect(restarted)
    #expect(runner.phase == .running)
    token.cancel()
    run.proceed.open()
    next.open()
  }

  @Test func aStandaloneReporterDoesNotKeepTheProgressItFollows() {
    weak var weakProgress: Progress?
    do {
      let progress = rootProgress(total: 10)
      weakProgress = progress
      let reporter = TaskRunner.Reporter()
      reporter.follow(progress)
      progress.completedUnitCount = 5
      #expect(reporter.progress == RunProgress(completed: 5, of: 10))
    }
    #expect(weakProgress == nil)
  }

  @Test func whatACancelledProgressesChildrenDidNoLongerCounts() {
    let progress = rootProgress(total: 4)
    let child = rootProgress(total: 2)
    progress.addChild(child, withPendingUnitCount: 2)
    child.completedUnitCount = 1
    let reporter = TaskRunner.Reporter()
    reporter.follow(progress)
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 4))
    progress.cancel()
    #expect(reporter.progress == RunProgress(completed: 0, of: 4))
    reporter.report(completed: 1, of: 4)
    #expect(reporter.progress == RunProgress(completed: 1, of: 4))
  }
}

/// A progress that notes what the runner and its observers show when it is cancelled.
final class CancelWatchingProgress: Progress, @unchecked Sendable {
  // Set and read on the main actor only, by the test that made it; `cancel()` is called there
  // too, by the runner's end of the run. `@unchecked` because `Progress` is a class that
  // Foundation declares `Sendable` itself.
  nonisolated(unsafe) var watch: (@MainActor () -> (runner: RunState, observed: RunState?))?
  nonisolated(unsafe) var seen: (runner: RunState, observed: RunState?)?

  init() {
    super.init(parent: nil, userInfo: nil)
    totalUnitCount = 10
  }

  override func cancel() {
    seen = MainActor.assumeIsolated { watch?() }
    super.cancel()
  }
}
