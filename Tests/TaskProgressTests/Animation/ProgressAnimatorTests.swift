import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@Suite("Progress animator")
struct ProgressAnimatorTests {
  private func seconds(_ value: Double) -> Duration { .seconds(value) }

  @Test func aLinearMotionIsAPureFunctionOfTime() {
    var animator = ProgressAnimator(
      animation: ProgressAnimation(curve: .linear, duration: .seconds(1)))
    animator.animate(to: 0.8, at: seconds(2))
    #expect(animator.value(at: seconds(1)) == 0)
    #expect(animator.value(at: seconds(2)) == 0)
    #expect(animator.value(at: seconds(2.25)).isClose(to: 0.2))
    #expect(animator.value(at: seconds(2.5)).isClose(to: 0.4))
    #expect(animator.value(at: seconds(3)) == 0.8)
    #expect(animator.isAnimating(at: seconds(2.9)))
    #expect(!animator.isAnimating(at: seconds(3)))
  }

  @Test func retargetingMidAnimationGoesOnFromTheValueOnScreen() {
    var animator = ProgressAnimator(
      animation: ProgressAnimation(curve: .easeInOut, duration: .seconds(1)))
    animator.animate(to: 1, at: seconds(0))
    let onScreen = animator.value(at: seconds(0.4))
    animator.animate(to: 0.2, at: seconds(0.4))
    // No jump at the retarget, in either direction of time.
    #expect(animator.value(at: seconds(0.4)).isClose(to: onScreen, tolerance: 1e-12))
    #expect(animator.value(at: seconds(0.4 + 1e-9)).isClose(to: onScreen, tolerance: 1e-6))
    // It never goes back to the old start or restarts from the old target.
    #expect(animator.value(at: seconds(0.45)) > 0.2)
    #expect(animator.value(at: seconds(0.45)) < 1)
    #expect(animator.value(at: seconds(1.4)) == 0.2)
    #expect(animator.target == 0.2)
  }

  @Test func aSpringKeepsItsVelocityAcrossARetarget() {
    var animator = ProgressAnimator(
      animation: ProgressAnimation(curve: .spring(response: 0.5, dampingFraction: 0.8)))
    animator.animate(to: 0.5, at: seconds(0))
    let retarget = 0.12
    let h = 1e-6
    let before =
      (animator.value(at: seconds(retarget)) - animator.value(at: seconds(retarget - h))) / h
    animator.animate(to: 0.9, at: seconds(retarget))
    let after =
      (animator.value(at: seconds(retarget + h)) - animator.value(at: seconds(retarget))) / h
    #expect(before > 0.5)  // really moving
    #expect(abs(after - before) / before < 1e-3)
  }

  @Test func newValuesArrivingEveryFrameKeepMovingTowardsTheLatest() {
    var animator = ProgressAnimator(animation: ProgressAnimation(curve: .easeIn))
    var previous = 0.0
    for frame in 1...600 {
      let now = Duration.seconds(1) / 60 * frame
      animator.animate(to: min(Double(frame) / 300, 1), at: now)
      let value = animator.value(at: now)
      #expect(value >= previous - 1e-12)
      previous = value
    }
    #expect(previous.isClose(to: 1, tolerance: 1e-9))
  }

  @Test func motionsStayBoundedAndTheValueStaysContinuousWhenMerged() {
    var animator = ProgressAnimator(
      animation: ProgressAnimation(curve: .linear, duration: .seconds(100)))
    var previous = 0.0
    for step in 1...1_000 {
      let now = Duration.milliseconds(10 * step)
      let before = animator.value(at: now)
      animator.animate(to: Double(step) / 1_000, at: now)
      #expect(animator.value(at: now).isClose(to: before, tolerance: 1e-9))
      #expect(before >= previous - 1e-12)
      previous = before
    }
    #expect(animator.motionCount <= ProgressAnimator.maximumMotions)
  }

  @Test func instantJumpsAndJumpDropsMotions() {
    var animator = ProgressAnimator(animation: .instant)
    animator.animate(to: 0.7, at: .zero)
    #expect(animator.value(at: .zero) == 0.7)
    #expect(!animator.isAnimating(at: .zero))
    var animated = ProgressAnimator(animation: ProgressAnimation(curve: .linear))
    animated.animate(to: 1, at: .zero)
    animated.jump(to: 0.3)
    #expect(animated.value(at: .milliseconds(100)) == 0.3)
    #expect(!animated.isAnimating(at: .zero))
  }

  @Test func aCurveThatReturnsGarbageEndsItsMotionInsteadOfPoisoningTheValue() {
    struct Broken: AnimationCurve {
      func value(at time: Double) -> Double { .nan }
    }
    var animator = ProgressAnimator(
      animation: ProgressAnimation(curve: Broken(), duration: .seconds(1)))
    animator.animate(to: 0.6, at: .zero)
    #expect(animator.value(at: .milliseconds(500)) == 0.6)
  }

  @Test func curvesStayBoundedWhenTheAnimationIsSetBeforeEveryValue() {
    var animator = ProgressAnimator(animation: .default)
    let frame = Duration.seconds(1) / 60
    for index in 1...10_000 {
      animator.animation = .default  // as a view that sets it on every update may
      animator.animate(to: Double(index % 100) / 100 + 0.001, at: frame * index)
    }
    #expect(animator.motionCount <= ProgressAnimator.maximumMotions)
    #expect(animator.curveCount <= 2 * ProgressAnimator.maximumMotions + 1)
    // The value goes on from where it was: compaction keeps every motion's own curve.
    let before = animator.value(at: frame * 10_000)
    animator.animation = ProgressAnimation(curve: .linear)
    animator.animate(to: 0.5, at: frame * 10_000)
    #expect(animator.value(at: frame * 10_000).isClose(to: before))
  }
}
