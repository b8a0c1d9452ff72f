import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("Task runner lifetimes", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerLifetimeTests {
  @Test func releasingARunnerMidRunCancelsTheRunAndTellsObserversAndRenderers() async {
    let clock = ManualClock()
    var runner: TaskRunner? = TaskRunner(animation: .instant, clock: clock)
    let renderer = RecordingRenderer()
    var observed: [RunState] = []
    let token = runner!.observe { observed.append($0) }
    runner!.attach(renderer)
    let started = Latch()
    let operationCancelled = Latch()
    runner!.start { reporter in
      started.open()
      await withTaskCancellationHandler {
        await Latch().wait()
      } onCancel: {
        operationCancelled.open()
      }
      reporter.report(fractionCompleted: 0.9)  // after the end: reaches nobody
    }
    await started.wait()
    weak let weakRunner = runner
    runner = nil
    #expect(weakRunner == nil)
    #expect(observed == [.idle, .running(0), .cancelled])
    #expect(renderer.states == [.idle, .running(0), .cancelled])
    #expect(renderer.detachCount == 1)
    #expect(token.isCancelled)
    await operationCancelled.wait()
    #expect(clock.scheduledWakeUps == 0)
  }

  @Test func releasingAnIdleRunnerDetachesItsRenderersWithoutAState() {
    var runner: TaskRunner? = TaskRunner(clock: ManualClock())
    let renderer = RecordingRenderer()
    runner!.attach(renderer)
    runner = nil
    #expect(renderer.states == [.idle])
    #expect(renderer.detachCount == 1)
  }

  @Test func anAttachedRendererStaysAttachedWhenItsTokenIsReleased() async {
    let harness = Harness()
    let renderer = RecordingRenderer()
    do {
      _ = harness.runner.attach(renderer)  // the token goes at once
    }
    await harness.runner.run { reporter in reporter.report(fractionCompleted: 0.5) }
    #expect(renderer.states == [.idle, .running(0), .running(0.5), .finished])
    #expect(renderer.detachCount == 0)
  }

  @Test func cancellingAnAttachTokenOnTheMainActorDetachesAtOnce() async {
    let harness = Harness()
    let renderer = RecordingRenderer()
    let token = harness.runner.attach(renderer)
    let proceed = await harness.startHeldRun(reporting: 0.25)
    token.cancel()
    #expect(renderer.detachCount == 1)
    proceed.open()
    await harness.recorder.waitForTerminalState()
    #expect(renderer.states == [.idle, .running(0), .running(0.25)])
    token.cancel()
    #expect(renderer.detachCount == 1)
  }

  @Test func cancellingAnAttachTokenElsewhereDetachesOnTheMainActorSoonAfter() async {
    let harness = Harness()
    let renderer = RecordingRenderer()
    let token = harness.runner.attach(renderer)
    await Task.detached { token.cancel() }.value
    // The registry learns of it on the main actor: by the next state change at the latest.
    await harness.runner.run { _ in }
    #expect(renderer.detachCount == 1)
    #expect(renderer.states == [.idle])
  }

  @Test func anObserverTokenStillEndsWhenReleased() {
    let harness = Harness()
    var observed: [RunState] = []
    do {
      _ = harness.runner.observe { observed.append($0) }
    }
    harness.runner.start { _ in }
    #expect(observed == [.idle])
  }

  @Test func theTimesGivenToRenderersNeverGoBackEvenOnAClockThatMovesAtEveryReading() async {
    let clock = SteppingClock()
    let runner = TaskRunner(animation: ProgressAnimation(curve: .linear), clock: clock)
    let renderer = RecordingRenderer()
    runner.attach(renderer)
    await runner.run { reporter in
      for step in 1...20 {
        reporter.report(completed: step, of: 20)
        try await clock.sleep(for: .milliseconds(5))
      }
    }
    let times = renderer.updates.map(\.time)
    #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "\(times)")
    #expect(renderer.updates.contains { $0.reason == .frame })
    #expect(renderer.states.last == .finished)
    #expect(renderer.states.dropLast().last == .running(RunProgress(completed: 20, of: 20)))
  }
}

extension TaskRunnerLifetimeTests {
  @Test func timesNeverGoBackWhenAnObserverCancelsInsideAFrame() async {
    let clock = SteppingClock()
    let runner = TaskRunner(animation: .default, clock: clock)
    let renderer = RecordingRenderer()
    runner.attach(renderer)
    let token = runner.observe { [weak runner] state in
      if case .running(let progress) = state, (progress.fractionCompleted ?? 0) >= 0.6 {
        runner?.cancel()  // inside the frame that delivered the report, reading the clock anew
      }
    }
    let final = await runner.run { reporter in
      reporter.report(fractionCompleted: 0.3)  // a frame delivers it, and the display moves
      try await clock.sleep(for: .milliseconds(40))
      reporter.report(fractionCompleted: 0.6)  // the frame that delivers it publishes after it
      await Latch().wait()  // until cancelled
    }
    #expect(final == .cancelled)
    let updates = renderer.updates
    let backwards = zip(updates, updates.dropFirst()).filter { $0.1.time < $0.0.time }
    #expect(
      backwards.isEmpty, "\(backwards.map { ($0.0.reason, $0.0.time, $0.1.reason, $0.1.time) })")
    #expect(renderer.states.suffix(2) == [.running(0.6), .cancelled])
    withExtendedLifetime(token) {}
  }
}

/// A clock that moves forward by a microsecond every time it is read, as a real clock does between
/// two readings, and whose sleepers give other tasks turns until their deadline passes.
///
/// Each turn a sleeper gives moves the clock a millisecond, so that a sleep takes a few turns
/// instead of one per microsecond: thousands of turns per frame kept a thread of the pool busy
/// for seconds under ThreadSanitizer.
final class SteppingClock: Clock, Sendable {
  typealias Instant = ManualClock.Instant

  private let ticks = Atomic<Int64>(0)

  var now: Instant {
    Instant(offset: .microseconds(ticks.add(1, ordering: .relaxed).newValue))
  }

  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    while now < deadline {  // each turn moves the clock 1 ms nearer the deadline
      try Task.checkCancellation()
      ticks.add(1_000, ordering: .relaxed)
      await Task.yield()
    }
  }
}
