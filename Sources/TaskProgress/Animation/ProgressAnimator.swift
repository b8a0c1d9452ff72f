/// The displayed progress as a pure function of time: a target and the motions still under way.
///
/// Motions are additive, as SwiftUI's: retargeting from `a` to `b` adds a motion of `b - a` that
/// starts at zero and grows along the curve, while the earlier motions carry on. The sum is
/// continuous at every retarget (a new motion contributes nothing at its start) and, for curves
/// that start at rest such as a spring from rest, so is its speed; for springs this superposition
/// is exactly what a spring does when its target moves.
struct ProgressAnimator: Sendable {
  /// One motion: plain data, so that keeping and dropping motions copies no existential.
  private struct Motion: Sendable {
    /// When the motion started, on the runner's clock.
    var start: Duration
    /// The change of target that it animates.
    var delta: Double
    var duration: Duration
    /// The duration in seconds: dividing by it is cheaper than dividing two durations.
    var seconds: Double
    /// The motion's curve, in ``ProgressAnimator/curves``.
    var curve: Int

    init(start: Duration, delta: Double, duration: Duration, curve: Int) {
      self.start = start
      self.delta = delta
      self.duration = duration
      self.seconds = ProgressAnimator.seconds(duration)
      self.curve = curve
    }

    func isRunning(at now: Duration) -> Bool {
      now - start < duration
    }
  }

  /// A duration in seconds, from its components.
  static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) * 1e-18
  }

  /// More motions than this are merged, so memory stays bounded however often values arrive.
  static let maximumMotions = 64

  /// How new motions move.
  var animation: ProgressAnimation {
    didSet { currentCurve = nil }
  }
  /// Counts the changes of target and of the motions held, so that a value computed before one is
  /// known stale. (Dropping a motion that ended changes no value from then on, but changes the
  /// values at earlier times.)
  private(set) var generation: UInt64 = 0
  /// The value the display is heading for.
  private(set) var target: Double
  private var motions: [Motion] = []
  /// The curves of the motions under way; a motion names its curve by its index here.
  private var curves: [any AnimationCurve] = []
  /// The index of ``animation``'s curve in ``curves``, once a motion uses it.
  private var currentCurve: Int?

  init(animation: ProgressAnimation, value: Double = 0) {
    self.animation = animation
    self.target = value
  }

  /// The number of motions held, for tests of the bound.
  var motionCount: Int { motions.count }

  /// The displayed value at `now`; may leave `0...1` when a curve overshoots.
  func value(at now: Duration) -> Double {
    var value = target
    for motion in motions {
      value -= remaining(motion, at: now)
    }
    return value
  }

  /// What a motion still owes at `now`: its delta at the start, 0 at the end.
  private func remaining(_ motion: Motion, at now: Duration) -> Double {
    let elapsed = now - motion.start
    guard elapsed < motion.duration else { return 0 }
    guard elapsed > .zero else { return motion.delta }
    let progress = curves[motion.curve].value(
      at: ProgressAnimator.seconds(elapsed) / motion.seconds)
    return progress.isFinite ? motion.delta * (1 - progress) : 0
  }

  /// Whether any motion is still under way at `now`.
  func isAnimating(at now: Duration) -> Bool {
    motions.contains { $0.isRunning(at: now) }
  }

  /// Heads for `newTarget`, starting from the value displayed at `now`.
  mutating func animate(to newTarget: Double, at now: Duration) {
    let before = motions.count
    motions.removeAll { !$0.isRunning(at: now) }
    if motions.count != before {
      generation &+= 1  // the values at times before `now` change
    }
    if motions.isEmpty {
      curves.removeAll(keepingCapacity: true)
      currentCurve = nil
    } else if curves.count > 2 * ProgressAnimator.maximumMotions {
      compactCurves()
    }
    guard newTarget != target else { return }
    generation &+= 1
    guard !animation.isInstant else {
      jump(to: newTarget)
      return
    }
    let curve = currentCurveIndex()
    if motions.count >= ProgressAnimator.maximumMotions {
      // Replace the two oldest motions by one that starts now with what they still owe: the
      // value stays continuous, only their remaining shape is approximated.
      let owed = remaining(motions[0], at: now) + remaining(motions[1], at: now)
      motions.removeFirst(2)
      motions.append(Motion(start: now, delta: owed, duration: animation.duration, curve: curve))
    }
    motions.append(
      Motion(start: now, delta: newTarget - target, duration: animation.duration, curve: curve))
    target = newTarget
  }

  /// Shows `value` at once, dropping every motion under way.
  mutating func jump(to value: Double) {
    generation &+= 1
    target = value
    motions.removeAll()
    curves.removeAll(keepingCapacity: true)
    currentCurve = nil
  }

  /// Keeps only the curves that motions still use, so that an animation set before every new
  /// value does not grow the table without bound.
  private mutating func compactCurves() {
    var remapped: [Int: Int] = [:]
    var kept: [any AnimationCurve] = []
    for index in motions.indices {
      let old = motions[index].curve
      if let new = remapped[old] {
        motions[index].curve = new
      } else {
        remapped[old] = kept.count
        motions[index].curve = kept.count
        kept.append(curves[old])
      }
    }
    currentCurve = currentCurve.flatMap { remapped[$0] }
    curves = kept
  }

  /// The number of curves held, for tests of the bound.
  var curveCount: Int { curves.count }

  /// The index of ``animation``'s curve in ``curves``, added on first use.
  private mutating func currentCurveIndex() -> Int {
    if let currentCurve { return currentCurve }
    curves.append(animation.curve)
    currentCurve = curves.count - 1
    return curves.count - 1
  }
}
