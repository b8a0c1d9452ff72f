/// How the displayed progress moves from one value to the next: a curve and a duration, as
/// SwiftUI's `withAnimation` takes an `Animation`.
///
/// ```swift
/// runner.animation = .easeOut  // a preset
/// runner.animation = .spring(response: 0.3, dampingFraction: 0.7)
/// runner.animation = ProgressAnimation(curve: .easeIn, duration: .seconds(1))
/// ```
///
/// A new value that arrives during a motion adds a motion to the ones under way: the displayed
/// value never jumps and never restarts from the old target.
public struct ProgressAnimation: Sendable {
  /// The shape of the motion.
  public let curve: any AnimationCurve
  /// How long one motion takes; zero means the display follows the state at once.
  public let duration: Duration

  /// Creates an animation from a curve, built-in or your own, and a duration.
  ///
  /// A negative duration counts as zero: the displayed progress follows the state at once.
  public init(curve: some AnimationCurve, duration: Duration) {
    self.curve = curve
    self.duration = max(duration, .zero)
  }

  /// The duration of SwiftUI's `linear`, `easeIn`, `easeOut` and `easeInOut` presets.
  public static let defaultDuration: Duration = .milliseconds(350)

  /// What `withAnimation` uses by default today: a spring with response 0.55 s and damping
  /// fraction 1, which does not overshoot.
  public static var `default`: ProgressAnimation {
    .spring(response: 0.55, dampingFraction: 1)
  }

  /// No animation: ``TaskRunner/displayedProgress`` follows the state at once.
  ///
  /// Named `instant` rather than `none`, which would read as `Optional.none`.
  public static var instant: ProgressAnimation {
    ProgressAnimation(curve: .linear, duration: .zero)
  }

  /// A constant-speed animation over 0.35 s.
  public static var linear: ProgressAnimation { .linear(duration: defaultDuration) }

  /// An animation that starts slowly, over 0.35 s.
  public static var easeIn: ProgressAnimation { .easeIn(duration: defaultDuration) }

  /// An animation that ends slowly, over 0.35 s.
  public static var easeOut: ProgressAnimation { .easeOut(duration: defaultDuration) }

  /// An animation that starts and ends slowly, over 0.35 s.
  public static var easeInOut: ProgressAnimation { .easeInOut(duration: defaultDuration) }

  /// A constant-speed animation over `duration`.
  public static func linear(duration: Duration) -> ProgressAnimation {
    ProgressAnimation(curve: .linear, duration: duration)
  }

  /// An animation that starts slowly, over `duration`.
  public static func easeIn(duration: Duration) -> ProgressAnimation {
    ProgressAnimation(curve: .easeIn, duration: duration)
  }

  /// An animation that ends slowly, over `duration`.
  public static func easeOut(duration: Duration) -> ProgressAnimation {
    ProgressAnimation(curve: .easeOut, duration: duration)
  }

  /// An animation that starts and ends slowly, over `duration`.
  public static func easeInOut(duration: Duration) -> ProgressAnimation {
    ProgressAnimation(curve: .easeInOut, duration: duration)
  }

  /// A cubic Bézier animation with control points `(c1x, c1y)` and `(c2x, c2y)`, over `duration`.
  public static func timingCurve(
    _ c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double,
    duration: Duration = defaultDuration
  ) -> ProgressAnimation {
    ProgressAnimation(curve: .timingCurve(c1x, c1y, c2x, c2y), duration: duration)
  }

  /// A spring with SwiftUI's parameters, over its settling time.
  public static func spring(
    response: Double = 0.55, dampingFraction: Double = 1
  )
    -> ProgressAnimation
  {
    let spring = SpringCurve(response: response, dampingFraction: dampingFraction)
    return ProgressAnimation(curve: spring, duration: spring.settlingDuration)
  }

  /// A spring with SwiftUI's newer parameters, over its settling time.
  public static func spring(duration: Double, bounce: Double) -> ProgressAnimation {
    let spring = SpringCurve(duration: duration, bounce: bounce)
    return ProgressAnimation(curve: spring, duration: spring.settlingDuration)
  }

  /// Whether this animation has no duration, so the display follows the state at once.
  public var isInstant: Bool {
    duration <= .zero
  }
}
