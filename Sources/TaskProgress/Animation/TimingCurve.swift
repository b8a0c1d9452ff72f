/// A cubic Bézier timing curve from `(0, 0)` to `(1, 1)`, as CSS's `cubic-bezier()` and SwiftUI's
/// `timingCurve(_:_:_:_:)` define it.
///
/// The two control points shape the curve. Their x coordinates are clamped to `0...1`, so that
/// time always moves forward; their y coordinates may leave `0...1` to overshoot. A non-finite
/// coordinate is replaced by the one of the linear curve.
///
/// ```swift
/// runner.animation = ProgressAnimation(
///   curve: .timingCurve(0.2, 0.8, 0.2, 1), duration: .seconds(0.3))
/// ```
public struct TimingCurve: AnimationCurve, Hashable {
  /// The x coordinate of the first control point, in `0...1`.
  let c1x: Double
  /// The y coordinate of the first control point.
  let c1y: Double
  /// The x coordinate of the second control point, in `0...1`.
  let c2x: Double
  /// The y coordinate of the second control point.
  let c2y: Double

  /// Creates a curve with control points `(c1x, c1y)` and `(c2x, c2y)`.
  init(_ c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double) {
    self.c1x = TimingCurve.sanitized(c1x, linear: 1.0 / 3, clampedToUnit: true)
    self.c1y = TimingCurve.sanitized(c1y, linear: 1.0 / 3, clampedToUnit: false)
    self.c2x = TimingCurve.sanitized(c2x, linear: 2.0 / 3, clampedToUnit: true)
    self.c2y = TimingCurve.sanitized(c2y, linear: 2.0 / 3, clampedToUnit: false)
  }

  /// The progress at `time`: the curve's y where its x equals `time` (clamped to `0...1`).
  public func value(at time: Double) -> Double {
    guard time > 0 else { return 0 }
    guard time < 1 else { return 1 }
    return TimingCurve.bezier(parameter(forX: time), c1y, c2y)
  }

  /// Solves x(s) = x for s in `0...1`; x(s) never decreases because both x coordinates are in `0...1`.
  private func parameter(forX x: Double) -> Double {
    var low = 0.0
    var high = 1.0
    var s = x
    for _ in 0..<200 {
      let error = TimingCurve.bezier(s, c1x, c2x) - x
      if error == 0 { return s }
      if error < 0 { low = s } else { high = s }
      var next = s - error / TimingCurve.bezierDerivative(s, c1x, c2x)
      if !(next > low && next < high) {
        next = low + (high - low) / 2
      }
      if next == s || next == low || next == high { return next }
      s = next
    }
    return s
  }

  /// One coordinate of the curve at parameter `s`, for control coordinates `p1` and `p2`.
  static func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
    let c = 3 * p1
    let b = 3 * (p2 - p1) - c
    let a = 1 - c - b
    return ((a * s + b) * s + c) * s
  }

  /// The derivative of ``bezier(_:_:_:)`` with respect to `s`.
  static func bezierDerivative(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
    let c = 3 * p1
    let b = 3 * (p2 - p1) - c
    let a = 1 - c - b
    return (3 * a * s + 2 * b) * s + c
  }

  private static func sanitized(_ value: Double, linear: Double, clampedToUnit: Bool) -> Double {
    guard value.isFinite else { return linear }
    return clampedToUnit ? min(max(value, 0), 1) : value
  }
}

extension AnimationCurve where Self == TimingCurve {
  /// Starts slowly and speeds up: CSS `cubic-bezier(0.42, 0, 1, 1)`.
  public static var easeIn: TimingCurve { TimingCurve(0.42, 0, 1, 1) }

  /// Starts quickly and slows down: CSS `cubic-bezier(0, 0, 0.58, 1)`.
  public static var easeOut: TimingCurve { TimingCurve(0, 0, 0.58, 1) }

  /// Starts slowly, speeds up, then slows down: CSS `cubic-bezier(0.42, 0, 0.58, 1)`.
  public static var easeInOut: TimingCurve { TimingCurve(0.42, 0, 0.58, 1) }

  /// A cubic Bézier curve with control points `(c1x, c1y)` and `(c2x, c2y)`, as SwiftUI's.
  public static func timingCurve(
    _ c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double
  ) -> TimingCurve {
    TimingCurve(c1x, c1y, c2x, c2y)
  }
}
