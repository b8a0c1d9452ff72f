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

  /// Counts the times Observation invalidates what `read` reads, tracking it again after each,
  /// within the change that invalidated it, so that no later change is missed.
  @MainActor
  private final class Invalidations {
    private let read: @MainActor () -> Void
    private(set) var count = 0

    init(of read: @escaping @MainActor () -> Void) {
      self.read = read
      track()
    }

    private func track() {
      withObservationTracking {
        read()
      } onChange: {
        MainActor.assumeIsolated {
          self.count += 1
          self.track()
        }
      }
    }
  }

  /// The recorded phases, each once for each time the runner went into it.
  private func phaseChanges(_ harness: Harness) -> [RunPhase] {
    harness.recorder.phases.reduce(into: []) { changes, phase in
      if changes.last != phase { changes.append(phase) }
    }
  }

  /// Runs 25 items, one frame each, with a pause after the tenth when `pausing`.
  private func runTwentyFiveItems(on harness: Harness, pausing: Bool) async {
    let began = (0..<25).map { _ in Latch() }
    let proceed = (0..<25).map { _ in Latch() }
    harness.runner.start(over: Array(0..<25)) { item in
      began[item].open()
      await proceed[item].wait()
    }
    await began[0].wait(for: "item 0 to begin")
    for item in 0..<25 {
      proceed[item].open()
      if item < 24 {
        // The next item begins once this one's report is made.
        await began[item + 1].wait(for: "item \(item + 1) to begin")
      }
      harness.clock.advance(by: frame)
      if pausing && item == 9 {
        harness.runner.pause()
        harness.clock.advance(by: frame * 3)
        harness.runner.resume()
      }
    }
    await harness.waitForEnd()
    harness.clock.advance(by: frame)
  }

  @Test func aViewThatReadsOnlyIsActiveOrThePhaseIsInvalidatedOnlyWhenThePhaseChanges() async {
    let harness = Harness()
    let runner = harness.runner
    let state = Invalidations { _ = runner.state }
    let phase = Invalidations { _ = runner.phase }
    let isActive = Invalidations { _ = runner.isActive }
    await runTwentyFiveItems(on: harness, pausing: false)
    #expect(phaseChanges(harness) == [.idle, .running, .finished])
    #expect(harness.recorder.states.count >= 27)
    // Every frame's progress invalidates the state; the phase changed twice.
    #expect(state.count >= 26)
    #expect(phase.count == 2)
    #expect(isActive.count == 2)
  }

  @Test func aPauseAndAResumeArePhaseChangesToo() async {
    let harness = Harness()
    let runner = harness.runner
    let phase = Invalidations { _ = runner.phase }
    let isActive = Invalidations { _ = runner.isActive }
    let isPaused = Invalidations { _ = runner.isPaused }
    await runTwentyFiveItems(on: harness, pausing: true)
    #expect(phaseChanges(harness) == [.idle, .running, .paused, .running, .finished])
    #expect(phase.count == 4)
    #expect(isActive.count == 4)
    #expect(isPaused.count == 4)
    runner.reset()
    #expect(phase.count == 5)
    #expect(runner.phase == .idle)
  }
}
