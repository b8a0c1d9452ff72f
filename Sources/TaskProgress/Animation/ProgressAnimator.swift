/// The displayed progress as a pure function of time: a target and the motions still under way.
///
/// Motions are additive, as SwiftUI's: retargeting from `a` to `b` adds a motion of `b - a` that
/// starts at zero and grows along the curve, while the earlier motions carry on. The sum is
/// continuous at every retarget (a new motion contributes nothing at its start) and, for curves
/// that start at rest such as a spring from rest, so is its speed; for springs this superposition
/// is exactly what a spring does when its target moves.
struct ProgressAnimator: Sendable {
  private struct Motion: Sendable {
    /// When the motion started, on the runner's clock.
    var start: Duration
    /// The change of target that it animates.
    var delta: Double
    var curve: any AnimationCurve
    var duration: Duration

    /// What the motion still owes at `now`: `delta` at the start, 0 at the end.
    func remaining(at now: Duration) -> Double {
      let elapsed = now - start
      guard elapsed < duration else { return 0 }
      guard elapsed > .zero else { return delta }
      let progress = curve.value(at: elapsed / duration)
      return progress.isFinite ? delta * (1 - progress) : 0
    }
  }

  /// More motions than this are merged, so memory stays bounded however often values arrive.
  static let maximumMotions = 64

  var animation: ProgressAnimation
  /// The value the display is heading for.
  private(set) var target: Double
  private var motions: [Motion] = []

  init(animation: ProgressAnimation, value: Double = 0) {
    self.animation = animation
    self.target = value
  }

  /// The number of motions held, for tests of the bound.
  var motionCount: Int { motions.count }

  /// The displayed value at `now`; may leave `0...1` when a curve overshoots.
  func value(at now: Duration) -> Double {
    motions.reduce(target) { $0 - $1.remaining(at: now) }
  }

  /// Whether any motion is still under way at `now`.
  func isAnimating(at now: Duration) -> Bool {
    motions.contains { now - $0.start < $0.duration }
  }

  /// Heads for `newTarget`, starting from the value displayed at `now`.
  mutating func animate(to newTarget: Double, at now: Duration) {
    motions.removeAll { now - $0.start >= $0.duration }
    guard newTarget != target else { return }
    guard !animation.isInstant else {
      jump(to: newTarget)
      return
    }
    if motions.count >= ProgressAnimator.maximumMotions {
      // Replace the two oldest motions by one that starts now with what they still owe: the
      // value stays continuous, only their remaining shape is approximated.
      let owed = motions[0].remaining(at: now) + motions[1].remaining(at: now)
      motions.removeFirst(2)
      motions.append(
        Motion(start: now, delta: owed, curve: animation.curve, duration: animation.duration))
    }
    motions.append(
      Motion(
        start: now, delta: newTarget - target, curve: animation.curve, duration: animation.duration)
    )
    target = newTarget
  }

  /// Shows `value` at once, dropping every motion under way.
  mutating func jump(to value: Double) {
    target = value
    motions.removeAll()
  }
}
