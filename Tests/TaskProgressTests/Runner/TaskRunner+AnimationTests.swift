import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// The displayed progress on a manual clock: exact values at chosen instants, no waiting.
@MainActor
@Suite("Task runner animation", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerAnimationTests {
  /// The latches of a scripted run: one pair per reported value.
  final class Script: Sendable {
    let reached: [Latch]
    let proceed: [Latch]

    init(steps: Int) {
      reached = (0..<steps).map { _ in Latch() }
      proceed = (0..<steps).map { _ in Latch() }
    }
  }

  /// Reports `values` one by one, waiting for the test after each, and throws at the end if asked.
  private func start(
    _ harness: Harness, reporting values: [Double], thenThrow: Bool = false
  ) -> Script {
    let script = Script(steps: values.count)
    harness.runner.start { reporter in
      for (index, value) in values.enumerated() {
        reporter.report(fractionCompleted: value)
        script.reached[index].open()
        await script.proceed[index].wait()
      }
      if thenThrow { throw TestError() }
    }
    return script
  }

  @Test func theBarGlidesAlongTheCurveFromTheFrameThatDeliversTheReport() async {
    let harness = Harness(animation: ProgressAnimation(curve: .linear))
    let script = start(harness, reporting: [0.5])
    await script.reached[0].wait()
    harness.clock.advance(by: frame)  // delivered now; the motion starts here
    #expect(harness.runner.displayedProgress == 0)
    harness.clock.advance(by: .milliseconds(175))
    #expect(harness.runner.displayedProgress.isClose(to: 0.25))
    harness.clock.advance(by: .milliseconds(175))
    #expect(harness.runner.displayedProgress == 0.5)
    script.proceed[0].open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func aNewValueMidAnimationContinuesFromTheValueOnScreen() async {
    let harness = Harness(animation: ProgressAnimation(curve: .linear))
    let script = start(harness, reporting: [0.8, 0.4])
    let seconds = frame / .seconds(1)
    await script.reached[0].wait()
    harness.clock.advance(by: frame)  // frame 1 delivers 0.8: a motion of +0.8 over 0.35 s
    harness.clock.advance(by: frame * 9)
    #expect(harness.runner.displayedProgress.isClose(to: 0.8 * 9 * seconds / 0.35))
    script.proceed[0].open()
    await script.reached[1].wait()
    harness.clock.advance(by: frame)  // frame 11 delivers 0.4, mid-animation
    let atRetarget = harness.runner.displayedProgress
    #expect(atRetarget.isClose(to: 0.8 * 10 * seconds / 0.35))  // no jump
    harness.clock.advance(by: frame)
    // Motions add: the first keeps rising at 0.8/0.35 per second while the new one pulls down
    // at 0.4/0.35, so the bar goes on rising, more slowly, and never restarts from 0.8.
    #expect(harness.runner.displayedProgress.isClose(to: (0.8 * 11 - 0.4) * seconds / 0.35))
    #expect(harness.runner.displayedProgress > atRetarget)
    harness.clock.advance(by: .seconds(1))
    #expect(harness.runner.displayedProgress.isClose(to: 0.4, tolerance: 1e-12))
    script.proceed[1].open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func aFailureAnimatesBackToZeroAsTheSeedDoes() async {
    let harness = Harness(animation: ProgressAnimation(curve: .linear))
    let script = start(harness, reporting: [0.8], thenThrow: true)
    await script.reached[0].wait()
    harness.clock.advance(by: frame)
    harness.clock.advance(by: .seconds(1))
    #expect(harness.runner.displayedProgress == 0.8)
    script.proceed[0].open()
    await harness.recorder.waitForTerminalState()
    #expect(harness.runner.state == .failed(TestError()))
    #expect(harness.runner.displayedProgress == 0.8)  // still on screen at the failure
    harness.clock.advance(by: .milliseconds(175))
    #expect(harness.runner.displayedProgress.isClose(to: 0.4))
    harness.clock.advance(by: .milliseconds(175))
    #expect(harness.runner.displayedProgress == 0)
    harness.clock.advance(by: frame)  // the frame that draws the settled value
    #expect(harness.clock.scheduledWakeUps == 0)
  }

  @Test func finishingGlidesToOneAndResetGlidesBackToZero() async {
    let harness = Harness(animation: ProgressAnimation(curve: .linear))
    _ = await harness.runner.run { _ in }
    #expect(harness.runner.displayedProgress == 0)
    harness.clock.advance(by: .milliseconds(175))
    #expect(harness.runner.displayedProgress.isClose(to: 0.5))
    // A renderer may sample any instant, past or future, without moving the clock.
    #expect(harness.runner.currentTime == .milliseconds(175))
    #expect(harness.runner.displayedProgress(at: .milliseconds(70)).isClose(to: 0.2))
    #expect(harness.runner.displayedProgress(at: .seconds(3)) == 1)
    harness.clock.advance(by: .seconds(1))
    #expect(harness.runner.displayedProgress == 1)
    harness.runner.reset()
    harness.clock.advance(by: .milliseconds(175))
    #expect(harness.runner.displayedProgress.isClose(to: 0.5))
    harness.clock.advance(by: .milliseconds(175))
    #expect(harness.runner.displayedProgress == 0)
  }

  @Test func theDefaultSpringReachesOneWithoutOvershootingAndThenStops() async {
    let harness = Harness(animation: .default, recordingFrames: true)
    _ = await harness.runner.run { _ in }
    harness.clock.advance(by: .seconds(2))
    let values = harness.recorder.frames.map(\.displayedProgress)
    #expect(values.last == 1)
    #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
    #expect(values.allSatisfy { $0 <= 1 })
    // One frame per update interval until it settles after about 0.81 s, then nothing.
    #expect((45...50).contains(values.count))
    #expect(harness.clock.scheduledWakeUps == 0)
    #expect(!harness.runner.isAnimating)
  }

  @Test func framesAreExactFunctionsOfTheManualClock() async {
    let harness = Harness(animation: ProgressAnimation(curve: .linear), recordingFrames: true)
    _ = await harness.runner.run { _ in }
    harness.clock.advance(by: .seconds(1))
    let frames = harness.recorder.frames
    #expect(frames.count == 21)
    for (index, update) in frames.enumerated() {
      #expect(update.time == frame * (index + 1))
      let expected = min(1, (update.time / .seconds(1)) / 0.35)
      #expect(update.displayedProgress.isClose(to: expected, tolerance: 1e-12))
    }
  }

  @Test func renderersGetAFrameEveryIntervalWhileARunIsActiveAndNoneWhileIdle() async {
    let harness = Harness(animation: .instant, recordingFrames: true)
    harness.runner.start { _ in await Latch().wait() }
    harness.clock.advance(by: frame * 5)
    #expect(harness.recorder.frames.map(\.time) == (1...5).map { frame * $0 })
    #expect(harness.recorder.frames.map(\.displayedProgress) == [0, 0, 0, 0, 0])
    harness.runner.cancel()
    harness.recorder.removeAll()
    harness.clock.advance(by: .seconds(5))
    #expect(harness.recorder.frames.isEmpty)
  }

  @Test func instantFollowsTheStateAtOnce() async {
    let harness = Harness(animation: .instant, recordingFrames: true)
    let script = start(harness, reporting: [0.3])
    await script.reached[0].wait()
    harness.clock.advance(by: frame)
    #expect(harness.runner.displayedProgress == 0.3)
    #expect(!harness.runner.isAnimating)
    script.proceed[0].open()
    await harness.recorder.waitForTerminalState()
    #expect(harness.runner.displayedProgress == 1)
    #expect(harness.recorder.frames.map(\.displayedProgress) == [0.3, 1])
  }

  @Test func aUserWrittenCurveDrivesTheRunnerLikeABuiltIn() async {
    struct Steps: AnimationCurve {
      func value(at time: Double) -> Double { (time * 4).rounded(.down) / 4 }
    }
    let harness = Harness(animation: ProgressAnimation(curve: Steps(), duration: .seconds(1)))
    _ = await harness.runner.run { _ in }
    harness.clock.advance(by: .milliseconds(300))
    #expect(harness.runner.displayedProgress == 0.25)
    harness.clock.advance(by: .milliseconds(300))
    #expect(harness.runner.displayedProgress == 0.5)
    harness.clock.advance(by: .milliseconds(400))
    #expect(harness.runner.displayedProgress == 1)
  }

  @Test func aNewRunGlidesBackToZeroFromWhereTheBarIs() async {
    let harness = Harness(animation: ProgressAnimation(curve: .linear))
    _ = await harness.runner.run { _ in }
    harness.clock.advance(by: .milliseconds(175))
    let onScreen = harness.runner.displayedProgress
    #expect(onScreen.isClose(to: 0.5))
    harness.runner.start { _ in await Latch().wait() }
    #expect(harness.runner.displayedProgress == onScreen)  // no jump
    harness.clock.advance(by: .seconds(1))
    #expect(harness.runner.displayedProgress.isClose(to: 0, tolerance: 1e-12))
    harness.runner.cancel()
  }

  @Test func indeterminateWorkLeavesTheBarWhereItIs() async {
    let harness = Harness(animation: ProgressAnimation(curve: .linear))
    let reached = Latch()
    let proceed = Latch()
    let indeterminate = Latch()
    harness.runner.start { reporter in
      reporter.report(fractionCompleted: 0.4)
      reached.open()
      await proceed.wait()
      reporter.reportIndeterminate()
      indeterminate.open()
      await Latch().wait()
    }
    await reached.wait()
    harness.clock.advance(by: frame)
    harness.clock.advance(by: .seconds(1))
    proceed.open()
    await indeterminate.wait()
    harness.clock.advance(by: frame)
    #expect(harness.runner.state == .running(.indeterminate()))
    #expect(harness.runner.state.fractionCompleted == nil)
    harness.clock.advance(by: .seconds(1))
    #expect(harness.runner.displayedProgress == 0.4)
    harness.runner.cancel()
  }

  @Test func changingTheAnimationAppliesToTheNextMotion() async {
    let harness = Harness(animation: .instant)
    harness.runner.animation = ProgressAnimation(curve: .linear, duration: .seconds(1))
    _ = await harness.runner.run { _ in }
    harness.clock.advance(by: .milliseconds(500))
    #expect(harness.runner.displayedProgress.isClose(to: 0.5))
  }
}
