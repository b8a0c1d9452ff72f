import Observation
import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// The runner is `@Observable`: SwiftUI reads `state` and `displayedProgress` directly.
@MainActor
@Suite("Task runner with the Observation framework", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerObservationTests {
  /// Whether `read` touched something that changes during `change`.
  private func changes(
    tracking read: @escaping @MainActor () -> Void, during change: () async -> Void
  ) async -> Bool {
    let fired = Locked(false)
    withObservationTracking {
      read()
    } onChange: {
      fired.withLock { $0 = true }
    }
    await change()
    return fired.withLock { $0 }
  }

  @Test func readingTheStateTracksItsTransitions() async {
    let harness = Harness()
    let runner = harness.runner
    #expect(await changes(tracking: { _ = runner.state }, during: { runner.start { _ in } }))
    await harness.recorder.waitForTerminalState()
    #expect(await changes(tracking: { _ = runner.state }, during: { runner.reset() }))
  }

  @Test func aRefusedStartDoesNotInvalidateTheState() async {
    let harness = Harness()
    let runner = harness.runner
    runner.start { _ in await Latch().wait() }
    #expect(await !changes(tracking: { _ = runner.state }, during: { runner.start { _ in } }))
    runner.cancel()
  }

  @Test func theDisplayedProgressChangesOnEveryFrameWhileItMovesAndNeverWhenItRests() async {
    let harness = Harness(animation: ProgressAnimation(curve: .linear))
    let runner = harness.runner
    _ = await runner.run { _ in }  // finished: the display glides from 0 to 1 over 0.35 s
    var frames = 0
    while await changes(
      tracking: { _ = runner.displayedProgress }, during: { harness.clock.advance(by: frame) })
    {
      frames += 1
      #expect(frames < 100)
      if frames >= 100 { break }
    }
    // 0.35 s at 60 Hz: 21 frames, the last one landing exactly on 1.
    #expect(frames == 21)
    #expect(runner.displayedProgress == 1)
    #expect(!runner.isAnimating)
    #expect(harness.clock.scheduledWakeUps == 0)
    #expect(
      await !changes(
        tracking: { _ = runner.displayedProgress },
        during: { harness.clock.advance(by: .seconds(5)) }))
  }

  @Test func theEndOfAMotionIsObservedWhenTheRunEndsBetweenItAndTheNextFrame() async {
    let harness = Harness(animation: ProgressAnimation(curve: .linear, duration: .milliseconds(90)))
    let runner = harness.runner
    let proceed = await harness.startHeldRun(reporting: 1)  // one frame: the motion starts
    harness.clock.advance(to: ManualClock.Instant(offset: frame * 6))  // 100 ms: still moving
    #expect(runner.isAnimating)
    let seen = runner.displayedProgress
    // The motion ends at 106.7 ms; the run finishes at 110 ms, before the next frame, with the
    // same target, so the motion is dropped and no frame ever sees it move.
    #expect(
      await changes(
        tracking: { _ = runner.displayedProgress },
        during: {
          harness.clock.advance(to: ManualClock.Instant(offset: .milliseconds(110)))
          proceed.open()
          await harness.recorder.waitForTerminalState()
          harness.clock.advance(by: frame * 2)
        }))
    #expect(seen < 1)
    #expect(runner.displayedProgress == 1)
  }

  @Test func isAnimatingIsObservedWhenAMotionStartsAndWhenItEndsClampedAtItsTarget() async {
    /// Overshoots after half the motion, so the display is clamped at 1 before the motion ends.
    struct Overshoot: AnimationCurve {
      func value(at time: Double) -> Double { time < 0.5 ? 2.4 * time : 1.2 }
    }
    let harness = Harness(
      animation: ProgressAnimation(curve: Overshoot(), duration: .milliseconds(200)))
    let runner = harness.runner
    let reached = Latch()
    let proceed = Latch()
    runner.start { reporter in
      reporter.report(fractionCompleted: 1)
      reached.open()
      await proceed.wait()
    }
    await reached.wait()
    #expect(
      await changes(
        tracking: { _ = runner.isAnimating }, during: { harness.clock.advance(by: frame) }))
    #expect(runner.isAnimating)
    harness.clock.advance(by: .milliseconds(180))  // clamped at 1 from about 100 ms on
    #expect(runner.isAnimating)
    #expect(runner.displayedProgress == 1)
    // The motion ends at 216.7 ms; the first frame after it, at 233.3 ms, tells Observation.
    #expect(
      await changes(
        tracking: { _ = runner.isAnimating }, during: { harness.clock.advance(by: frame * 3) }))
    #expect(!runner.isAnimating)
    proceed.open()
    await harness.recorder.waitForTerminalState()
  }
}
