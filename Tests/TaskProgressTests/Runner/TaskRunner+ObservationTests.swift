import Observation
import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// The runner is `@Observable`: SwiftUI reads `state` and `displayedProgress` directly.
@MainActor
@Suite("Task runner with the Observation framework", .timeLimit(.minutes(1)))
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
    let harness = Harness(animation: .linear)
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
}
