import Foundation
import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("Task runner", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerTests {
  // MARK: - A new runner

  @Test func newRunnerIsIdleAndShowsZero() {
    let runner = TaskRunner()
    #expect(runner.state == .idle)
    #expect(runner.displayedProgress == 0)
    #expect(runner.phase != .running)
    #expect(runner.updateInterval == .seconds(1) / 60)
  }

  @Test func everyDocumentedInitializerCompiles() {
    _ = TaskRunner()
    _ = TaskRunner(animation: ProgressAnimation(curve: .easeInOut))
    _ = TaskRunner(animation: .instant, updateInterval: .milliseconds(50), clock: ManualClock())
    _ = TaskRunner(clock: SuspendingClock())
  }

  @Test func theUpdateIntervalIsKeptBetweenOneMillisecondAndAMinute() {
    #expect(TaskRunner(updateInterval: .zero).updateInterval == .milliseconds(1))
    #expect(TaskRunner(updateInterval: .seconds(-5)).updateInterval == .milliseconds(1))
    #expect(TaskRunner(updateInterval: .seconds(Int64.max)).updateInterval == .seconds(60))
  }

  @Test func aHugeUpdateIntervalNeverTrapsOnARealClock() async {
    let runner = TaskRunner(updateInterval: .seconds(Int64.max))
    #expect(await runner.run { _ in } == .finished)
  }

  // MARK: - Starting

  @Test(arguments: [RunPhase.idle, .finished, .failed, .cancelled])
  func startFromAnyPhaseButRunningIsRunningAtZeroBeforeItReturns(phase: RunPhase) async {
    let harness = Harness()
    await harness.drive(to: phase)
    #expect(harness.runner.state.phase == phase)
    let started = harness.runner.start { _ in await Latch().wait() }
    #expect(started)
    #expect(harness.runner.state == .running(0))
    #expect(harness.recorder.states.last == .running(0))
    #expect(harness.runner.displayedProgress == 0)
  }

  @Test func startWhileRunningChangesNothingAndNeverCallsTheOperation() async {
    let harness = Harness()
    let proceed = await harness.startHeldRun(reporting: 0.4)
    let before = harness.recorder.states
    let secondCalled = Locked(false)
    let started = harness.runner.start { _ in secondCalled.withLock { $0 = true } }
    #expect(!started)
    #expect(harness.runner.state == .running(0.4))
    #expect(harness.recorder.states == before)
    proceed.open()
    await harness.recorder.waitForTerminalState()
    await harness.runner.lastRunTask?.value
    #expect(!secondCalled.withLock { $0 })
    #expect(harness.recorder.states == [.idle, .running(0), .running(0.4), .finished])
  }

  // MARK: - Where and how the operation runs

  /// ``waitLimit`` in whole seconds, for a wait that blocks its thread.
  private nonisolated static let waitLimitSeconds = Int(waitLimit.components.seconds)

  @Test func operationRunsOffTheMainActor() async {
    let runner = TaskRunner(clock: ManualClock())
    let mainActorRan = DispatchSemaphore(value: 0)
    let blockedWithoutStarvingTheMainActor = Locked(false)
    runner.start { _ in
      // Blocks this thread until a main-actor job runs, which it could never do if this thread
      // were the main actor's. The timeout only turns such a deadlock into a failure.
      let ran =
        mainActorRan.wait(timeout: .now() + .seconds(Int(waitLimit.components.seconds))) == .success
      blockedWithoutStarvingTheMainActor.withLock { $0 = ran }
    }
    await Task { @MainActor in _ = mainActorRan.signal() }.value
    await runner.lastRunTask?.value
    #expect(blockedWithoutStarvingTheMainActor.withLock { $0 })
    #expect(runner.state == .finished)
  }

  @Test func itemsRunOffTheMainActorToo() async {
    let runner = TaskRunner(clock: ManualClock())
    let mainActorRan = DispatchSemaphore(value: 0)
    let blockedWithoutStarvingTheMainActor = Locked(false)
    runner.start(over: [1]) { _ in
      let ran =
        mainActorRan.wait(timeout: .now() + .seconds(Int(waitLimit.components.seconds))) == .success
      blockedWithoutStarvingTheMainActor.withLock { $0 = ran }
    }
    await Task { @MainActor in _ = mainActorRan.signal() }.value
    await runner.lastRunTask?.value
    #expect(blockedWithoutStarvingTheMainActor.withLock { $0 })
  }

  @Test func overPerformsItemsInOrderAndReportsEachStep() async {
    let harness = Harness()
    let performed = Locked<[Int]>([])
    let reached = (0..<4).map { _ in Latch() }
    let proceed = (0..<4).map { _ in Latch() }
    harness.runner.start(over: [10, 20, 30, 40]) { item in
      let index = item / 10 - 1
      performed.withLock { $0.append(item) }
      if index > 0 {
        // The report of the previous item is in the mailbox by now.
        reached[index - 1].open()
        await proceed[index - 1].wait()
      }
    }
    for index in 0..<3 {
      await reached[index].wait()
      harness.clock.advance(by: frame)
      proceed[index].open()
    }
    await harness.recorder.waitForTerminalState()
    #expect(performed.withLock { $0 } == [10, 20, 30, 40])
    #expect(
      harness.recorder.states == [
        .idle, .running(0),
        .running(RunProgress(completed: 1, of: 4)),
        .running(RunProgress(completed: 2, of: 4)),
        .running(RunProgress(completed: 3, of: 4)),
        .running(RunProgress(completed: 4, of: 4)),
        .finished,
      ])
  }

  @Test func overChecksCancellationBetweenItems() async {
    let harness = Harness()
    let performed = Locked<[Int]>([])
    let reached = Latch()
    let proceed = Latch()
    harness.runner.start(over: 1...100) { item in
      performed.withLock { $0.append(item) }
      if item == 3 {
        reached.open()
        await proceed.wait()  // returns when the run is cancelled; the item itself does not throw
      }
    }
    await reached.wait()
    harness.runner.cancel()
    proceed.open()
    await harness.runner.lastRunTask?.value
    #expect(performed.withLock { $0 } == [1, 2, 3])
    #expect(harness.recorder.phases == [.idle, .running, .cancelled])
  }

  @Test func overAnEmptyCollectionFinishesAtOnce() async {
    let harness = Harness()
    let called = Locked(false)
    let final = await harness.runner.run(over: [Int]()) { _ in called.withLock { $0 = true } }
    #expect(final == .finished)
    #expect(!called.withLock { $0 })
    #expect(harness.recorder.states == [.idle, .running(0), .finished])
  }

  // MARK: - Coalescing

  @Test func manyReportsBetweenFramesAreDeliveredOnceWithTheLatestValue() async {
    let harness = Harness()
    let reached = (0..<2).map { _ in Latch() }
    let proceed = (0..<2).map { _ in Latch() }
    harness.runner.start { reporter in
      for batch in 0..<2 {
        for index in 1...10_000 {
          reporter.report(completed: batch * 10_000 + index, of: 30_000)
        }
        reached[batch].open()
        await proceed[batch].wait()
      }
    }
    await reached[0].wait()
    #expect(harness.recorder.states == [.idle, .running(0)])
    harness.clock.advance(by: frame)
    #expect(harness.recorder.states.last == .running(RunProgress(completed: 10_000, of: 30_000)))
    // Nothing new arrived: more frames deliver nothing.
    harness.clock.advance(by: frame * 10)
    #expect(harness.recorder.states.count == 3)
    proceed[0].open()
    await reached[1].wait()
    harness.clock.advance(by: frame)
    #expect(
      harness.recorder.states == [
        .idle, .running(0),
        .running(RunProgress(completed: 10_000, of: 30_000)),
        .running(RunProgress(completed: 20_000, of: 30_000)),
      ])
    proceed[1].open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func aReportWaitsAtMostOneUpdateInterval() async {
    let harness = Harness()
    let reached = Latch()
    let proceed = Latch()
    harness.clock.advance(by: .milliseconds(3))
    harness.runner.start { reporter in
      reporter.report(fractionCompleted: 0.5)
      reached.open()
      await proceed.wait()
    }
    await reached.wait()
    // Frames fall on the clock's grid of intervals, shared by every runner on the clock: the
    // first comes at most one interval after the start.
    harness.clock.advance(by: frame - .milliseconds(3) - .nanoseconds(1))
    #expect(harness.runner.state == .running(0))
    harness.clock.advance(by: .nanoseconds(1))
    #expect(harness.runner.state == .running(0.5))
    proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func aCustomUpdateIntervalSetsTheFrameCadence() async {
    let clock = ManualClock()
    let runner = TaskRunner(animation: .instant, updateInterval: .milliseconds(100), clock: clock)
    let reached = Latch()
    let proceed = Latch()
    runner.start { reporter in
      reporter.report(fractionCompleted: 0.2)
      reached.open()
      await proceed.wait()
    }
    await reached.wait()
    clock.advance(by: .milliseconds(99))
    #expect(runner.state == .running(0))
    clock.advance(by: .milliseconds(1))
    #expect(runner.state == .running(0.2))
    proceed.open()
    await runner.lastRunTask?.value
  }

  @Test func reportedValuesNeverGoBackInTimeAcrossFrames() async {
    let harness = Harness()
    let steps = 20
    let reached = (0..<steps).map { _ in Latch() }
    let proceed = (0..<steps).map { _ in Latch() }
    harness.runner.start { reporter in
      for step in 0..<steps {
        for index in 0..<1_000 {
          reporter.report(completed: step * 1_000 + index, of: steps * 1_000)
        }
        reached[step].open()
        await proceed[step].wait()
      }
    }
    for step in 0..<steps {
      await reached[step].wait()
      harness.clock.advance(by: frame)
      proceed[step].open()
    }
    await harness.recorder.waitForTerminalState()
    let counts = harness.recorder.states.compactMap { $0.progress?.completedCount }
    #expect(counts == (0..<steps).map { $0 * 1_000 + 999 })
  }

  @Test func nothingWakesWhileNoRunIsActive() async {
    let harness = Harness()
    #expect(harness.clock.scheduledWakeUps == 0)
    await harness.drive(to: .finished)
    #expect(harness.clock.scheduledWakeUps == 0)
    harness.runner.start { _ in await Latch().wait() }
    #expect(harness.clock.scheduledWakeUps == 1)
    harness.runner.cancel()
    #expect(harness.clock.scheduledWakeUps == 0)  // the pending frame is withdrawn at once
    harness.clock.advance(by: .seconds(10))
    #expect(harness.clock.scheduledWakeUps == 0)
  }

  @Test func aFrameWhoseWakeUpRacedItsCancellationNeverStartsASecondFrameLoop() async {
    let clock = RacyClock()
    let runner = TaskRunner(animation: .instant, clock: clock)
    runner.start { _ in await Latch().wait() }
    await waitUntil("frame 1 to sleep") { clock.pendingCount > 0 }
    clock.fire(advancing: frame)  // frame 1 wakes: its job is queued on the main actor
    runner.cancel()  // too late to stop frame 1's task
    runner.start { _ in await Latch().wait() }  // schedules frame 2
    await waitUntil("frame 2 to sleep") { clock.pendingCount > 0 }
    for _ in 0..<100 { await Task.yield() }  // stale frame 1 runs, if it is going to
    #expect(clock.pendingCount == 1)
    runner.cancel()
  }

  @Test func releasingTheRunnerWithdrawsItsFrame() async {
    let clock = ManualClock()
    var runner: TaskRunner? = TaskRunner(clock: clock)
    runner?.start { _ in await Latch().wait() }
    #expect(clock.scheduledWakeUps == 1)
    runner = nil
    #expect(clock.scheduledWakeUps == 0)
  }

  // MARK: - How a run ends

  @Test func returningFinishes() async {
    let harness = Harness()
    let final = await harness.runner.run { _ in }
    #expect(final == .finished)
    #expect(harness.recorder.states == [.idle, .running(0), .finished])
    #expect(harness.runner.displayedProgress == 1)
  }

  @Test func throwingFailsWithTheError() async {
    let harness = Harness()
    let final = await harness.runner.run { _ in throw TestError(message: "disk full") }
    #expect(final == .failed(TestError(message: "disk full")))
    #expect(harness.runner.state.error as? TestError == TestError(message: "disk full"))
    #expect(
      harness.recorder.states == [.idle, .running(0), .failed(TestError(message: "disk full"))])
  }

  @Test func throwingCancellationErrorCancels() async {
    let harness = Harness()
    let final = await harness.runner.run { _ in throw CancellationError() }
    #expect(final == .cancelled)
    #expect(harness.recorder.phases == [.idle, .running, .cancelled])
  }

  @Test func theLastReportAndTheFinalStateAreDeliveredAtOnceWithoutWaitingForAFrame() async {
    let harness = Harness()
    harness.runner.start { reporter in reporter.report(fractionCompleted: 0.9) }
    await harness.recorder.waitForTerminalState()
    // No frame ran: the end drains the last report itself.
    #expect(harness.recorder.states == [.idle, .running(0), .running(0.9), .finished])
    #expect(harness.clock.now.offset == .zero)
  }

  @Test func aFailureShowsHowFarTheWorkGot() async {
    let harness = Harness()
    let final = await harness.runner.run { reporter in
      for item in 1...29 {
        reporter.report(completed: item, of: 100)
      }
      throw TestError(message: "item 30 failed")
    }
    #expect(final == .failed(TestError(message: "item 30 failed")))
    #expect(
      harness.recorder.states == [
        .idle, .running(0), .running(RunProgress(completed: 29, of: 100)),
        .failed(TestError(message: "item 30 failed")),
      ])
  }

  @Test func aRunThatEndsWithoutANewReportAddsNoState() async {
    let harness = Harness()
    let proceed = await harness.startHeldRun(reporting: 0.5)
    proceed.open()
    await harness.recorder.waitForTerminalState()
    #expect(harness.recorder.states == [.idle, .running(0), .running(0.5), .finished])
  }

  // MARK: - Cancelling

  @Test func cancelWhileRunningIsImmediateAndCancelsTheOperationsTask() async {
    let harness = Harness()
    let reached = Latch()
    let sawCancellation = Locked<(task: Bool, reporter: Bool)?>(nil)
    harness.runner.start { reporter in
      reached.open()
      await Latch().wait()  // returns when the task is cancelled
      sawCancellation.withLock { $0 = (Task.isCancelled, reporter.isCancelled) }
    }
    await reached.wait()
    harness.runner.cancel()
    #expect(harness.runner.state == .cancelled)
    #expect(harness.recorder.states == [.idle, .running(0), .cancelled])
    await harness.runner.lastRunTask?.value
    #expect(sawCancellation.withLock { $0?.task } == true)
    #expect(sawCancellation.withLock { $0?.reporter } == true)
  }

  @Test(arguments: [false, true])
  func cancelWhileRunningIgnoresLateReportsAndResults(throwsAfterwards: Bool) async {
    let harness = Harness()
    let reached = Latch()
    let proceed = Latch()
    harness.runner.start { reporter in
      reached.open()
      await proceed.wait()
      // The run is cancelled by now: none of this may reach the runner.
      reporter.report(fractionCompleted: 0.9)
      if throwsAfterwards { throw TestError() }
    }
    await reached.wait()
    harness.runner.cancel()
    let cancelledTask = harness.runner.lastRunTask
    proceed.open()
    await cancelledTask?.value
    harness.clock.advance(by: frame * 3)
    #expect(harness.runner.state == .cancelled)
    #expect(harness.recorder.states == [.idle, .running(0), .cancelled])
  }

  @Test func startMayRunAgainRightAfterCancelAndTheOldRunCannotTouchTheNewOne() async {
    let harness = Harness()
    let firstReached = Latch()
    let firstProceed = Latch()
    harness.runner.start { reporter in
      firstReached.open()
      await firstProceed.wait()
      reporter.report(fractionCompleted: 0.99)
    }
    await firstReached.wait()
    let firstTask = harness.runner.lastRunTask
    harness.runner.cancel()
    let secondReached = Latch()
    let secondProceed = Latch()
    #expect(
      harness.runner.start { reporter in
        reporter.report(fractionCompleted: 0.25)
        secondReached.open()
        await secondProceed.wait()
      })
    firstProceed.open()
    await firstTask?.value  // the first run has returned by now, into nothing
    await secondReached.wait()
    harness.clock.advance(by: frame)
    #expect(harness.runner.state == .running(0.25))
    secondProceed.open()
    await harness.recorder.waitForTerminalState()
    #expect(
      harness.recorder.states == [
        .idle, .running(0), .cancelled, .running(0), .running(0.25), .finished,
      ])
  }

  @Test(arguments: [RunPhase.idle, .finished, .failed, .cancelled])
  func cancelOutsideARunDoesNothing(phase: RunPhase) async {
    let harness = Harness()
    await harness.drive(to: phase)
    let before = harness.recorder.states
    harness.runner.cancel()
    #expect(harness.recorder.states == before)
    #expect(harness.runner.state.phase == phase)
  }

  @Test func releasingTheRunnerCancelsItsRun() async {
    let reached = Latch()
    let sawCancellation = Latch()
    var runner: TaskRunner? = TaskRunner(clock: ManualClock())
    runner?.start { _ in
      reached.open()
      await Latch().wait()  // returns when the task is cancelled
      if Task.isCancelled { sawCancellation.open() }
    }
    await reached.wait()
    runner = nil
    await sawCancellation.wait()
    #expect(sawCancellation.isOpen)
  }

  // MARK: - Resetting

  @Test(arguments: [RunPhase.finished, .failed, .cancelled])
  func resetFromATerminalPhaseGoesIdle(phase: RunPhase) async {
    let harness = Harness()
    await harness.drive(to: phase)
    harness.runner.reset()
    #expect(harness.runner.state == .idle)
    #expect(harness.recorder.phases == [.idle, .running, phase, .idle])
  }

  @Test func resetWhileRunningCancelsFirst() async {
    let harness = Harness()
    let reached = Latch()
    let sawCancellation = Latch()
    harness.runner.start { _ in
      reached.open()
      await Latch().wait()  // returns when the task is cancelled
      if Task.isCancelled { sawCancellation.open() }
    }
    await reached.wait()
    harness.runner.reset()
    #expect(harness.runner.state == .idle)
    #expect(harness.recorder.states == [.idle, .running(0), .cancelled, .idle])
    await sawCancellation.wait()
    #expect(sawCancellation.isOpen)
  }

  /// The operation's task begins on the main actor, after the turn that started the run: a
  /// reset or a cancel later in that turn comes first, and the operation is never called.
  ///
  /// The turn holds the main thread for 50 ms first. The operation cannot begin meanwhile,
  /// however long the wait: the wait only gives a task that began on the pool at once (the
  /// design before) the time to call it, so that this test would catch a return to it.
  @Test(arguments: [false, true])
  func aRunResetOrCancelledInTheTurnThatStartedItNeverCallsTheOperation(resets: Bool) async {
    let harness = Harness()
    let called = Locked(false)
    let began = DispatchSemaphore(value: 0)
    harness.runner.start { _ in
      called.withLock { $0 = true }
      began.signal()
    }
    let task = harness.runner.lastRunTask
    #expect(task != nil)
    #expect(
      !Self.isSignalled(began, within: .milliseconds(50)),
      "the operation began before the turn that started the run ended")
    if resets {
      harness.runner.reset()
    } else {
      harness.runner.cancel()
    }
    await task?.value
    #expect(!called.withLock { $0 }, "the operation was called after the run ended")
    #expect(
      harness.recorder.states == [.idle, .running(0), .cancelled] + (resets ? [.idle] : []))
  }

  /// Waits on `semaphore`, blocking the thread, for at most `timeout`; whether it was signalled.
  private nonisolated static func isSignalled(
    _ semaphore: DispatchSemaphore, within timeout: DispatchTimeInterval
  ) -> Bool {
    semaphore.wait(timeout: .now() + timeout) == .success
  }

  @Test func aRunCancelledByAnObserverOfItsStartNeverCallsTheOperation() async {
    let harness = Harness()
    let called = Locked(false)
    let token = harness.runner.observe { [runner = harness.runner] state in
      if state.phase == .running { runner.cancel() }
    }
    harness.runner.start { _ in called.withLock { $0 = true } }
    #expect(harness.runner.lastRunTask == nil, "no task for a run its observers cancelled")
    await harness.runner.lastRunTask?.value
    #expect(!called.withLock { $0 })
    #expect(harness.recorder.states == [.idle, .running(0), .cancelled])
    token.cancel()
  }

  @Test func resetWhenIdleDoesNothing() {
    let harness = Harness()
    harness.runner.reset()
    #expect(harness.recorder.states == [.idle])
  }

  // MARK: - Awaiting a run

  @Test func runReturnsTheTerminalStateOfTheRunItStarted() async {
    let runner = TaskRunner(clock: ManualClock())
    #expect(await runner.run { _ in } == .finished)
    #expect(await runner.run { _ in throw TestError() } == .failed(TestError()))
    #expect(await runner.run { _ in throw CancellationError() } == .cancelled)
  }

  @Test func runWhileRunningStartsNothingAndReturnsTheCurrentStateAtOnce() async {
    let harness = Harness()
    let proceed = await harness.startHeldRun(reporting: 0.6)
    let called = Locked(false)
    let state = await harness.runner.run { _ in called.withLock { $0 = true } }
    #expect(state == .running(0.6))
    proceed.open()
    await harness.recorder.waitForTerminalState()
    #expect(!called.withLock { $0 })
  }

  @Test func runReturnsCancelledWhenTheRunIsCancelledOrReset() async {
    let runner = TaskRunner(clock: ManualClock())
    let reached = Latch()
    async let cancelled = runner.run { _ in
      reached.open()
      await Latch().wait()
    }
    await reached.wait()
    runner.cancel()
    #expect(await cancelled == .cancelled)

    let reachedAgain = Latch()
    async let reset = runner.run { _ in
      reachedAgain.open()
      await Latch().wait()
    }
    await reachedAgain.wait()
    runner.reset()
    #expect(await reset == .cancelled)
    #expect(runner.state == .idle)
  }

  @Test func runAnswersForItsOwnRunWhenAnObserverResetsTheRunnerAsItStarts() async {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    let token = runner.observe { state in
      if state.phase == .running { runner.reset() }
    }
    #expect(await runner.run { _ in await Latch().wait() } == .cancelled)
    #expect(runner.state == .idle)
    token.cancel()
  }

  @Test func runAnswersForItsOwnRunWhenAnObserverReplacesIt() async {
    let harness = Harness()
    var replaced = false
    let token = harness.runner.observe { state in
      if state.phase == .running, !replaced {
        replaced = true
        harness.runner.cancel()
        harness.runner.start { _ in throw TestError(message: "the other run") }
      }
    }
    #expect(await harness.runner.run { _ in } == .cancelled)
    await harness.recorder.waitForTerminalState()
    #expect(harness.runner.state == .failed(TestError(message: "the other run")))
    token.cancel()
  }

  @Test func runFromAnAlreadyCancelledTaskIsCancelledAndNeverCallsTheOperation() async {
    let harness = Harness()
    let called = Locked(false)
    let waiting = Task { @MainActor in
      withUnsafeCurrentTask { $0?.cancel() }
      return await harness.runner.run { _ in called.withLock { $0 = true } }
    }
    #expect(await waiting.value == .cancelled)
    await harness.runner.lastRunTask?.value
    #expect(!called.withLock { $0 })
    #expect(harness.recorder.phases == [.idle, .running, .cancelled])
  }

  @Test func cancellingTheAwaitingTaskCancelsTheRun() async {
    let harness = Harness()
    let reached = Latch()
    let waiting = Task { @MainActor in
      await harness.runner.run { _ in
        reached.open()
        await Latch().wait()
      }
    }
    await reached.wait()
    waiting.cancel()
    #expect(await waiting.value == .cancelled)
    #expect(harness.recorder.phases == [.idle, .running, .cancelled])
  }
}
