import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("Task runner pausing", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerPauseTests {
  @Test func pauseAndResumeChangeThePhaseAtOnceAndKeepTheProgress() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    run.reporter.report(completed: 1, of: 4)
    harness.clock.advance(by: frame)
    harness.runner.pause()
    #expect(harness.runner.state == .paused(RunProgress(completed: 1, of: 4)))
    #expect(harness.runner.isPaused && harness.runner.isActive && harness.runner.phase != .running)
    harness.runner.resume()
    #expect(harness.runner.state == .running(RunProgress(completed: 1, of: 4)))
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
    try harness.recorder.expectStates([
      .idle, .running(0), .running(RunProgress(completed: 1, of: 4)),
      .paused(RunProgress(completed: 1, of: 4)), .running(RunProgress(completed: 1, of: 4)),
      .finished,
    ])
  }

  @Test(arguments: [RunPhase.idle, .finished, .failed, .cancelled])
  func pauseAndResumeDoNothingOutsideARun(phase: RunPhase) async throws {
    let harness = Harness()
    await harness.drive(to: phase)
    let before = harness.recorder.states
    harness.runner.pause()
    harness.runner.resume()
    #expect(harness.recorder.states == before)
    #expect(harness.runner.state.phase == phase)
  }

  @Test func pausingTwiceAndResumingARunningRunChangeNothing() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    harness.runner.resume()
    harness.runner.pause()
    harness.runner.pause()
    harness.runner.resume()
    harness.runner.resume()
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
    try harness.recorder.expectPhases([.idle, .running, .paused, .running, .finished])
  }

  @Test func aCheckpointWaitsWhilePausedAndGoesOnWhenResumed() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    harness.runner.pause()
    let worker = await run.checkpointWaitingWhilePaused()
    harness.runner.resume()
    let end = await withDeadline(waitingFor: "the checkpoint to go on once resumed") {
      await worker.value
    }
    #expect(end == .returned)
    #expect(run.signals.waitingTaskCount == 0)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func reportsMadeWhilePausedReachObserversAsPausedStates() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    harness.runner.pause()
    run.reporter.report(completed: 2, of: 4)
    run.reporter.report(message: "still going")
    harness.clock.advance(by: frame)
    #expect(
      harness.runner.state == .paused(RunProgress(completed: 2, of: 4, message: "still going")))
    run.reporter.report(completed: 3, of: 4)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
    // The last report before the end arrives, still paused, before the end.
    try harness.recorder.expectStates([
      .idle, .running(0), .paused(0),
      .paused(RunProgress(completed: 2, of: 4, message: "still going")),
      .paused(RunProgress(completed: 3, of: 4, message: "still going")), .finished,
    ])
  }

  @Test func startWhilePausedStartsNothing() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    harness.runner.pause()
    let called = Latch()
    #expect(!harness.runner.start { _ in called.open() })
    #expect(await harness.runner.run { _ in called.open() } == .paused(0))
    #expect(harness.runner.state == .paused(0))
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
    #expect(!called.isOpen)
  }

  @Test func cancellingAPausedRunWakesItsCheckpointsWithCancellation() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    harness.runner.pause()
    let worker = await run.checkpointWaitingWhilePaused()
    harness.runner.cancel()
    let end = await withDeadline(waitingFor: "the checkpoint to end once cancelled") {
      await worker.value
    }
    #expect(end == .threwCancellation)
    try harness.recorder.expectStates([.idle, .running(0), .paused(0), .cancelled])
    run.proceed.open()
  }

  @Test func resettingAPausedRunCancelsItThenGoesIdle() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    harness.runner.pause()
    harness.runner.reset()
    try harness.recorder.expectStates([.idle, .running(0), .paused(0), .cancelled, .idle])
    #expect(run.reporter.isCancelled)
    run.proceed.open()
  }

  @Test func aCancelledTaskStopsWaitingAtACheckpointWhileTheRunStaysPaused() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    harness.runner.pause()
    let worker = await run.checkpointWaitingWhilePaused()
    worker.cancel()
    let end = await withDeadline(waitingFor: "the checkpoint of a cancelled task to end") {
      await worker.value
    }
    #expect(end == .threwCancellation)
    #expect(harness.runner.state == .paused(0))
    #expect(run.signals.waitingTaskCount == 0)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func cancellingTheCallerOfRunWhilePausedCancelsTheRun() async throws {
    let harness = Harness()
    let reached = Latch()
    let paused = Latch()
    let wentOn = Latch()
    let caller = Task {
      await harness.runner.run { reporter in
        reached.open()
        await paused.wait()
        try await reporter.checkpoint()
        Issue.record("the checkpoint went on though the run was paused, then cancelled")
        wentOn.open()
      }
    }
    await reached.wait(for: "the operation to start")
    harness.runner.pause()
    paused.open()
    // Over at once if the checkpoint goes on: the issue above says so.
    await waitUntil("the operation to wait at its checkpoint") {
      harness.runner.activeSignals?.waitingTaskCount == 1 || wentOn.isOpen
    }
    caller.cancel()
    #expect(await caller.value == .cancelled)
    try harness.recorder.expectStates([.idle, .running(0), .paused(0), .cancelled])
  }

  @Test(arguments: [RunPhase.finished, .failed, .cancelled])
  func anOperationThatEndsWhilePausedEndsTheRun(phase: RunPhase) async throws {
    let harness = Harness()
    let run = Latch()
    harness.runner.start { reporter in
      await run.wait()
      reporter.report(completed: 3, of: 4)
      switch phase {
      case .failed: throw TestError()
      case .cancelled: throw CancellationError()
      default: return
      }
    }
    harness.runner.pause()
    run.open()
    await harness.recorder.waitForTerminalState()
    let end: RunState =
      switch phase {
      case .failed: .failed(TestError())
      case .cancelled: .cancelled
      default: .finished
      }
    try harness.recorder.expectStates([
      .idle, .running(0), .paused(0), .paused(RunProgress(completed: 3, of: 4)), end,
    ])
  }

  @Test func theOverLoopWaitsBetweenItemsWhilePaused() async throws {
    let harness = Harness()
    let started = (0..<3).map { _ in Latch() }
    let proceed = (0..<3).map { _ in Latch() }
    harness.runner.start(over: 0..<3) { item in
      started[item].open()
      await proceed[item].wait()
    }
    await started[0].wait()
    harness.runner.pause()
    proceed[0].open()
    let signals = try await pausedSignals(of: harness.runner)
    #expect(!started[1].isOpen, "no item starts while paused")
    harness.clock.advance(by: frame)
    #expect(harness.runner.state == .paused(RunProgress(completed: 1, of: 3)))
    harness.runner.resume()
    #expect(signals.waitingTaskCount == 0)
    for item in 1..<3 {
      await started[item].wait()
      proceed[item].open()
    }
    await harness.recorder.waitForTerminalState()
    try harness.recorder.expectStates([
      .idle, .running(0), .paused(0), .paused(RunProgress(completed: 1, of: 3)),
      .running(RunProgress(completed: 1, of: 3)), .running(RunProgress(completed: 3, of: 3)),
      .finished,
    ])
  }

  @Test func theConcurrentOverLoopStartsNoItemWhilePausedButLetsItemsInFlightEnd() async throws {
    let (harness, started, proceed) = await pausedWithTwoOfFourItemsInFlight()
    proceed[0].open()
    proceed[1].open()
    // Both items end and count while paused.
    await harness.clock.advance(by: frame, until: "both items to end and count while paused") {
      harness.runner.state == .paused(RunProgress(completed: 2, of: 4))
    }
    let signals = try #require(harness.runner.activeSignals)
    await waitUntil("the loop to wait for the run to resume") { signals.waitingTaskCount > 0 }
    #expect(!started[2].isOpen && !started[3].isOpen)
    harness.runner.resume()
    for item in 2..<4 {
      await started[item].wait()
      proceed[item].open()
    }
    await harness.recorder.waitForTerminalState()
    #expect(harness.runner.state == .finished)
  }

  @Test func resumingRefillsTheConcurrentLoopThoughNoItemEnds() async throws {
    let (harness, started, proceed) = await pausedWithTwoOfFourItemsInFlight()
    proceed[0].open()
    // Item 0 ends while paused; item 1 holds. Resuming starts item 2 beside it.
    let signals = try #require(harness.runner.activeSignals)
    await waitUntil("the loop to wait for the run to resume") { signals.waitingTaskCount > 0 }
    harness.runner.resume()
    await started[2].wait()
    #expect(!proceed[1].isOpen)
    for item in 1..<4 {
      proceed[item].open()
    }
    await harness.recorder.waitForTerminalState()
    #expect(harness.runner.state == .finished)
  }

  @Test func aRunThatEndsWhilePausedLetsItsWaitingTasksGo() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    harness.runner.pause()
    let worker = await run.checkpointWaitingWhilePaused()
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
    let end = await withDeadline(waitingFor: "the checkpoint to go on once the run ended") {
      await worker.value
    }
    #expect(end == .returned)
    #expect(harness.runner.state == .finished)
  }

  /// Starts four items two at a time, each holding until the test lets it end, and pauses the
  /// run once the first two started; returns the latches of each item's start and end.
  private func pausedWithTwoOfFourItemsInFlight() async -> (Harness, [Latch], [Latch]) {
    let harness = Harness()
    let started = (0..<4).map { _ in Latch() }
    let proceed = (0..<4).map { _ in Latch() }
    harness.runner.start(over: 0..<4, maxConcurrency: 2) { item in
      started[item].open()
      await proceed[item].wait()
    }
    await started[0].wait()
    await started[1].wait()
    harness.runner.pause()
    return (harness, started, proceed)
  }

  /// Waits until the run's loop waits for it to resume; returns the run's signals.
  private func pausedSignals(of runner: TaskRunner) async throws -> RunSignals {
    let signals = try #require(runner.activeSignals)
    await waitUntil("the loop to wait for the run to resume") { signals.waitingTaskCount == 1 }
    return signals
  }
}
