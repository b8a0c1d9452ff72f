import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@Suite("Spring curve")
struct SpringCurveTests {
  /// An independent reference: the spring's differential equation integrated with RK4, from rest
  /// at 0 towards 1.
  static func integrated(
    response: Double, damping: Double, until end: Double, step: Double = 1e-4
  )
    -> [(time: Double, position: Double)]
  {
    let omega = 2 * Double.pi / response
    func acceleration(_ x: Double, _ v: Double) -> Double {
      -omega * omega * (x - 1) - 2 * damping * omega * v
    }
    var x = 0.0
    var v = 0.0
    var time = 0.0
    var samples = [(time, x)]
    while time < end {
      let k1x = v
      let k1v = acceleration(x, v)
      let k2x = v + k1v * step / 2
      let k2v = acceleration(x + k1x * step / 2, k2x)
      let k3x = v + k2v * step / 2
      let k3v = acceleration(x + k2x * step / 2, k3x)
      let k4x = v + k3v * step
      let k4v = acceleration(x + k3x * step, k4x)
      x += (k1x + 2 * k2x + 2 * k3x + k4x) * step / 6
      v += (k1v + 2 * k2v + 2 * k3v + k4v) * step / 6
      time += step
      samples.append((time, x))
    }
    return samples
  }

  static let parameters: [(Double, Double)] = [
    (0.55, 1), (0.3, 0.5), (0.5, 0.15), (1, 2.5), (0.2, 1), (2, 0.8),
  ]

  @Test(arguments: parameters)
  func closedFormMatchesTheIntegratedEquation(response: Double, damping: Double) {
    let spring = SpringCurve(response: response, dampingFraction: damping)
    let settling = spring.settlingDuration / .seconds(1)
    for (index, sample) in Self.integrated(response: response, damping: damping, until: settling)
      .enumerated() where index % 50 == 0
    {
      #expect(abs(1 + spring.displacement(at: sample.time) - sample.position) < 1e-9)
    }
  }

  @Test(arguments: parameters)
  func settlesWithin1eMinus3OfTheTargetAtItsSettlingDurationAndStaysThere(
    response: Double, damping: Double
  ) {
    let spring = SpringCurve(response: response, dampingFraction: damping)
    let settling = spring.settlingDuration / .seconds(1)
    for step in 0...2_000 {
      let time = settling * (1 + Double(step) / 200)
      #expect(abs(spring.displacement(at: time)) <= 1e-3)
    }
    // And it is the first such time, up to the envelope's slack: a little earlier it is not settled.
    let earlier = (0..<100).map { settling * Double($0) / 100 }
    #expect(earlier.contains { abs(spring.displacement(at: $0)) > 1e-3 })
  }

  @Test func theDefaultSpringSettlesInTheTimeItsParametersImply() {
    // Critically damped from rest: |x - 1| = (1 + ωt)e^(-ωt); it reaches 1e-3 at
    // ωt = 9.233413476451585 (solved to 30 digits with mpmath), so t ≈ 0.8082 s.
    let spring = SpringCurve(response: 0.55, dampingFraction: 1)
    let omega = 2 * Double.pi / 0.55
    let expected = 9.233_413_476_451_585 / omega
    #expect((spring.settlingDuration / .seconds(1)).isClose(to: expected, tolerance: 1e-6))
  }

  @Test(arguments: [0.3, 0.9, 0.99, 0.9999, 0.999_999, 1, 1.000_001, 1.0001, 1.01, 2])
  func theSettlingDurationIsTheLastMomentOutOfTolerance(damping: Double) {
    let spring = SpringCurve(response: 0.55, dampingFraction: damping)
    let settling = spring.settlingDuration / .seconds(1)
    // A fine scan, independent of the solver's reasoning about peaks.
    var lastFar = 0.0
    var time = 0.0
    while time < settling * 1.5 + 1 {
      if abs(spring.displacement(at: time)) > 1e-3 { lastFar = time }
      time += 1e-5
    }
    #expect(abs(settling - lastFar) < 2e-5, "damping \(damping): \(settling) vs \(lastFar)")
  }

  @Test func theSettlingDurationIsContinuousAcrossCriticalDamping() {
    let critical = SpringCurve(response: 0.55, dampingFraction: 1).settlingDuration / .seconds(1)
    for damping in [0.9999, 0.999_999, 1.000_001, 1.0001] {
      let near =
        SpringCurve(response: 0.55, dampingFraction: damping).settlingDuration / .seconds(1)
      #expect(abs(near - critical) / critical < 1e-3)
    }
  }

  @Test func criticallyDampedFromRestNeverOvershoots() {
    let spring = SpringCurve.spring(response: 0.55, dampingFraction: 1)
    var previous = 0.0
    for step in 0...10_000 {
      let value = spring.value(at: Double(step) / 10_000)
      #expect(value <= 1)
      #expect(value >= previous)
      previous = value
    }
  }

  @Test func overDampedNeverOvershoots() {
    let spring = SpringCurve(response: 0.5, dampingFraction: 3)
    #expect((0...10_000).allSatisfy { spring.value(at: Double($0) / 10_000) <= 1 })
  }

  @Test func underDampedOvershoots() {
    let spring = SpringCurve(response: 0.5, dampingFraction: 0.3)
    let peak = (0...10_000).map { spring.value(at: Double($0) / 10_000) }.max() ?? 0
    // The first overshoot of a damped oscillator is e^(-πζ/√(1-ζ²)) ≈ 0.372 for ζ = 0.3.
    #expect(peak.isClose(to: 1.372, tolerance: 0.01))
  }

  @Test func endpointsAreExact() {
    for (response, damping) in Self.parameters {
      let spring = SpringCurve(response: response, dampingFraction: damping)
      #expect(spring.value(at: 0) == 0)
      #expect(spring.value(at: 1) == 1)
      #expect(spring.value(at: 2) == 1)
      #expect(spring.value(at: -1) == 0)
    }
  }

  @Test func theNormalisedCurveIsThePhysicalMotionOverTheSettlingTime() {
    let spring = SpringCurve(response: 0.4, dampingFraction: 0.6)
    let settling = spring.settlingDuration / .seconds(1)
    for step in 1..<100 {
      let time = Double(step) / 100
      let physical = 1 + spring.displacement(at: time * settling)
      // The end correction is at most 1e-3, growing linearly with time.
      #expect(abs(spring.value(at: time) - physical) <= 1e-3 * time + 1e-12)
    }
  }

  @Test func durationAndBounceMapToSwiftUIsResponseAndDamping() {
    #expect(SpringCurve(duration: 0.5, bounce: 0) == SpringCurve(response: 0.5, dampingFraction: 1))
    #expect(
      SpringCurve(duration: 0.5, bounce: 0.3) == SpringCurve(response: 0.5, dampingFraction: 0.7))
    #expect(
      SpringCurve(duration: 0.5, bounce: -0.5) == SpringCurve(response: 0.5, dampingFraction: 2))
    #expect(
      SpringCurve.spring(duration: 0.5, bounce: 0.3)
        == SpringCurve(response: 0.5, dampingFraction: 0.7))
  }

  @Test func badParametersAreClampedNeverTrapped() {
    let nan = SpringCurve(response: .nan, dampingFraction: .nan)
    #expect(nan == SpringCurve(response: 0.55, dampingFraction: 1))
    let extreme = SpringCurve(response: -1, dampingFraction: 0)
    #expect(extreme.response == 0.01 && extreme.dampingFraction == 0.01)
    #expect(extreme.settlingDuration > .zero)
    let huge = SpringCurve(response: .infinity, dampingFraction: .infinity)
    #expect(huge.response == 100 && huge.dampingFraction == 100)
    for curve in [nan, extreme, huge, SpringCurve(duration: .nan, bounce: .infinity)] {
      #expect((0...100).allSatisfy { curve.value(at: Double($0) / 100).isFinite })
    }
  }
}
