/// How the displayed progress moves from one value to the next: a curve and a duration, as
/// SwiftUI's `withAnimation` takes an `Animation`.
///
/// ```swift
/// runner.animation = ProgressAnimation(curve: .easeOut)  // over 0.35 s, as SwiftUI's preset
/// runner.animation = ProgressAnimation(curve: .spring(response: 0.3, dampingFraction: 0.7))
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
  /// Without a duration, a spring (``AnimationCurve/spring(response:dampingFraction:)``) takes
  /// its settling time, and any other curve 0.35 s, the duration of SwiftUI's `linear`, `easeIn`,
  /// `easeOut` and `easeInOut` presets. A negative duration counts as zero: the displayed
  /// progress follows the state at once.
  public init(curve: some AnimationCurve, duration: Duration? = nil) {
    self.curve = curve
    let natural = (curve as? SpringCurve)?.settlingDuration ?? .milliseconds(350)
    self.duration = max(duration ?? natural, .zero)
  }

  /// What `withAnimation` uses by default today: a spring with response 0.55 s and damping
  /// fraction 1, which does not overshoot.
  public static var `default`: ProgressAnimation {
    ProgressAnimation(curve: .spring(response: 0.55, dampingFraction: 1))
  }

  /// No animation: ``TaskRunner/displayedProgress`` follows the state at once.
  ///
  /// Named `instant` rather than `none`, which would read as `Optional.none`.
  public static var instant: ProgressAnimation {
    ProgressAnimation(curve: .linear, duration: .zero)
  }

  /// Whether this animation has no duration, so the display follows the state at once.
  var isInstant: Bool {
    duration <= .zero
  }
}
