/// A curve that moves at a constant speed: `value(at: t) == t`.
public struct LinearCurve: AnimationCurve, Hashable {
  /// The progress at `time`: `time` itself, clamped to `0...1`.
  public func value(at time: Double) -> Double {
    guard !time.isNaN else { return 0 }
    return min(max(time, 0), 1)
  }
}

extension AnimationCurve where Self == LinearCurve {
  /// A curve that moves at a constant speed.
  public static var linear: LinearCurve { LinearCurve() }
}
