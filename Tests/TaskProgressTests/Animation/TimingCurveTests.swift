import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@Suite("Timing curve")
struct TimingCurveTests {
  /// An independent reference: plain bisection on x(s) = time, to the last bit, then y(s).
  ///
  /// Past the middle it bisects on 1 - x(s) = 1 - time instead, written with the Bernstein
  /// weights of 1 - P (which sum to 1 - x), so that near the end, where x may be flat, it keeps
  /// relative precision instead of comparing numbers that all round to 1.
  static func reference(
    _ c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double, at time: Double
  )
    -> Double
  {
    func bernstein(_ s: Double, _ p0: Double, _ p1: Double, _ p2: Double, _ p3: Double) -> Double {
      let u = 1 - s
      return u * u * u * p0 + 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s * p3
    }
    let fromEnd = time > 0.5
    let target = fromEnd ? 1 - time : time  // exact for time in 0.5...1 (Sterbenz)
    var low = 0.0
    var high = 1.0
    for _ in 0..<2_000 {
      let middle = (low + high) / 2
      guard middle > low && middle < high else { break }
      let before =
        fromEnd
        ? bernstein(middle, 1, 1 - c1x, 1 - c2x, 0) > target
        : bernstein(middle, 0, c1x, c2x, 1) < target
      if before { low = middle } else { high = middle }
    }
    return bernstein((low + high) / 2, 0, c1y, c2y, 1)
  }

  static let times: [Double] =
    (0...1_000).map { Double($0) / 1_000 } + [1e-9, 1e-6, 0.5 + 1e-9, 1 - 1e-9]

  static let curves: [(String, TimingCurve, (Double, Double, Double, Double))] = [
    ("easeIn", .easeIn, (0.42, 0, 1, 1)),
    ("easeOut", .easeOut, (0, 0, 0.58, 1)),
    ("easeInOut", .easeInOut, (0.42, 0, 0.58, 1)),
    ("css ease", .timingCurve(0.25, 0.1, 0.25, 1), (0.25, 0.1, 0.25, 1)),
    ("overshoot", .timingCurve(0.3, -0.4, 0.7, 1.5), (0.3, -0.4, 0.7, 1.5)),
    ("steep start", .timingCurve(0, 1, 0, 1), (0, 1, 0, 1)),
    ("steep end", .timingCurve(1, 0, 1, 0), (1, 0, 1, 0)),
  ]

  @Test func presetsUseTheCSSControlPoints() {
    #expect(TimingCurve.easeIn == TimingCurve(0.42, 0, 1, 1))
    #expect(TimingCurve.easeOut == TimingCurve(0, 0, 0.58, 1))
    #expect(TimingCurve.easeInOut == TimingCurve(0.42, 0, 0.58, 1))
  }

  @Test(arguments: curves.map(\.0))
  func matchesTheReferenceWithin1eMinus6WhereXPrimeIsNotZero(name: String) throws {
    let (_, curve, points) = try #require(Self.curves.first { $0.0 == name })
    for time in Self.times {
      let expected = Self.reference(points.0, points.1, points.2, points.3, at: time)
      #expect(abs(curve.value(at: time) - expected) <= 1e-6, "\(name) at \(time)")
    }
  }

  @Test func isWithin1eMinus4AtAFlatPointOfX() {
    // x(s) of (1, 0, 0, 1) is flat at s = 0.5, where the curve jumps from near 0 to near 1.
    let curve = TimingCurve.timingCurve(1, 0, 0, 1)
    for time in Self.times {
      let expected = Self.reference(1, 0, 0, 1, at: time)
      #expect(abs(curve.value(at: time) - expected) <= 1e-4, "at \(time)")
    }
  }

  @Test(arguments: [
    TimingCurve.easeIn, .easeOut, .easeInOut, .timingCurve(1, 0, 0, 1), .linearBezier,
  ])
  func presetsNeverGoBackwards(curve: TimingCurve) {
    var previous = curve.value(at: 0)
    for step in 1...10_000 {
      let value = curve.value(at: Double(step) / 10_000)
      #expect(value >= previous - 1e-12)
      previous = value
    }
  }

  @Test func endpointsAreExactAndTimeIsClamped() {
    for (_, curve, _) in Self.curves {
      #expect(curve.value(at: 0) == 0)
      #expect(curve.value(at: 1) == 1)
      #expect(curve.value(at: -3) == 0)
      #expect(curve.value(at: 7) == 1)
      #expect(curve.value(at: .nan) == 0)
    }
  }

  @Test func controlPointsAreSanitized() {
    let clamped = TimingCurve(-1, 0.5, 2, 0.5)
    #expect(clamped.c1x == 0 && clamped.c2x == 1)
    let nonFinite = TimingCurve(.nan, .infinity, -.infinity, .nan)
    #expect(nonFinite == TimingCurve(1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3))
    #expect(nonFinite.value(at: 0.3).isClose(to: 0.3, tolerance: 1e-12))
  }
}

extension TimingCurve {
  /// The Bézier form of the linear curve.
  static let linearBezier = TimingCurve(1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3)
}
