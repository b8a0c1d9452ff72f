import Testing

@testable import TaskProgress

@Suite("Progress animation")
struct ProgressAnimationTests {
  /// A user's own curve: four steps.
  struct Steps: AnimationCurve {
    func value(at time: Double) -> Double { (time * 4).rounded(.up) / 4 }
  }

  @Test func theDefaultIsWithAnimationsCriticallyDampedSpring() throws {
    let animation = ProgressAnimation.default
    let spring = try #require(animation.curve as? SpringCurve)
    #expect(spring.response == 0.55)
    #expect(spring.dampingFraction == 1)
    #expect(animation.duration == spring.settlingDuration)
  }

  @Test func timingPresetsLastSwiftUIs035Seconds() {
    let presets: [(ProgressAnimation, any AnimationCurve)] = [
      (ProgressAnimation(curve: .linear), LinearCurve.linear),
      (ProgressAnimation(curve: .easeIn), TimingCurve.easeIn),
      (ProgressAnimation(curve: .easeOut), TimingCurve.easeOut),
      (ProgressAnimation(curve: .easeInOut), TimingCurve.easeInOut),
      (ProgressAnimation(curve: .timingCurve(0.2, 0.8, 0.2, 1)), TimingCurve(0.2, 0.8, 0.2, 1)),
    ]
    for (animation, curve) in presets {
      #expect(animation.duration == .milliseconds(350))
      for step in 0...20 {
        let time = Double(step) / 20
        #expect(animation.curve.value(at: time) == curve.value(at: time))
      }
    }
  }

  @Test func leadingDotCurvesWorkWhereverACurveIsExpected() {
    let animations = [
      ProgressAnimation(curve: .linear, duration: .seconds(1)),
      ProgressAnimation(curve: .easeIn, duration: .seconds(1)),
      ProgressAnimation(curve: .easeOut, duration: .seconds(1)),
      ProgressAnimation(curve: .easeInOut, duration: .seconds(1)),
      ProgressAnimation(curve: .timingCurve(0.1, 0.2, 0.3, 0.4), duration: .seconds(1)),
      ProgressAnimation(curve: .spring(response: 0.3, dampingFraction: 0.8), duration: .seconds(1)),
      ProgressAnimation(curve: .spring(duration: 0.3, bounce: 0.2), duration: .seconds(1)),
    ]
    for animation in animations {
      #expect(animation.curve.value(at: 0) == 0)
      #expect(animation.curve.value(at: 1) == 1)
    }
  }

  @Test func springPresetsRunForTheirSettlingTime() {
    let spring = SpringCurve(response: 0.3, dampingFraction: 0.5)
    #expect(
      ProgressAnimation(curve: .spring(response: 0.3, dampingFraction: 0.5)).duration
        == spring.settlingDuration)
    #expect(
      ProgressAnimation(curve: .spring(duration: 0.3, bounce: 0.5)).duration
        == SpringCurve(duration: 0.3, bounce: 0.5).settlingDuration)
  }

  @Test func instantHasNoDurationAndNegativeDurationsCountAsZero() {
    #expect(ProgressAnimation.instant.isInstant)
    #expect(ProgressAnimation.instant.duration == .zero)
    let negative = ProgressAnimation(curve: .linear, duration: .seconds(-2))
    #expect(negative.duration == .zero && negative.isInstant)
    #expect(!ProgressAnimation.default.isInstant)
  }

  @Test func aUsersOwnCurveIsKept() {
    let animation = ProgressAnimation(curve: Steps(), duration: .seconds(1))
    #expect(animation.curve is Steps)
    #expect(animation.curve.value(at: 0.3) == 0.5)
  }
}
