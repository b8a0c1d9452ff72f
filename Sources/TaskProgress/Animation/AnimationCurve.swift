/// The shape of an animation: how far along it is at each moment of its duration.
///
/// A curve maps the normalised time `0...1` to the normalised progress of the animation, which
/// goes from `0` at the start to `1` at the end. It may leave `0...1` in between (a bouncy
/// spring overshoots); the runner clamps what it finally displays to `0...1`. The built-in curves
/// are reachable with a leading dot, and your own type works anywhere a built-in one does:
///
/// ```swift
/// struct Steps: AnimationCurve {
///   var count = 4
///   func value(at time: Double) -> Double {
///     (time * Double(count)).rounded(.up) / Double(count)
///   }
/// }
/// runner.animation = ProgressAnimation(curve: Steps(), duration: .seconds(0.4))
/// ```
public protocol AnimationCurve: Sendable {
  /// The progress of the animation at `time`, where both are normalised: `0` is the start and
  /// `1` the end.
  ///
  /// Return `0` at `0` and `1` at `1`. The runner calls this with `time` in `0...1` only, and
  /// treats a result that is NaN or infinite as the end of the animation.
  func value(at time: Double) -> Double
}
