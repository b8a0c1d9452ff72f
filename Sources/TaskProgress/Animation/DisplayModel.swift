/// What a runner's progress view shows: the animated value, computed once per time, and what
/// Observation and renderers must hear of it at each frame.
///
/// The runner tells it each new target and each frame; it answers with what changed, and the
/// runner tells Observation and its renderers.
struct DisplayModel: Sendable {
  /// What a frame changed, for the runner to announce.
  struct Frame: Equatable, Sendable {
    /// Whether ``TaskRunner/isAnimating`` changed.
    var animatingChanged = false
    /// Whether ``TaskRunner/displayedProgress`` moved, jumped, or ended a motion.
    var displayMoved = false
    /// Whether renderers get a `.frame` update.
    var rendersFrame = false
  }

  private var animator: ProgressAnimator
  /// The last value computed, with its time and the animator's generation then.
  private var cache: (time: Duration, generation: UInt64, value: Double)?
  /// The value renderers last got.
  private var lastRendered: Double = 0
  /// The animator's generation when Observation last heard that the display moved.
  private var notifiedGeneration: UInt64 = 0
  /// The time of the last frame at which the display was moving, if it still was then.
  private var lastMovingTime: Duration?
  /// Whether Observation last heard that the display is animating.
  private var notifiedAnimating = false
  /// The time of the last frame given to renderers, so that one time gets one frame.
  private var lastRenderedTime: Duration?

  init(animation: ProgressAnimation) {
    animator = ProgressAnimator(animation: animation)
  }

  /// How new motions move; a change applies to the next motion.
  var animation: ProgressAnimation {
    get { animator.animation }
    set { animator.animation = newValue }
  }

  /// Whether the display is still moving at `now`.
  func isAnimating(at now: Duration) -> Bool {
    animator.isAnimating(at: now)
  }

  /// The displayed value at `now`, in `0...1`, computed once per time: a frame asks several
  /// times, and a spring sums a motion per recent value.
  mutating func value(at now: Duration) -> Double {
    if let cache, cache.time == now, cache.generation == animator.generation {
      return cache.value
    }
    let raw = animator.value(at: now)
    let value = raw.isNaN ? 0 : min(max(raw, 0), 1)
    cache = (now, animator.generation, value)
    return value
  }

  /// Heads for `target` from the value displayed at `now`.
  mutating func animate(to target: Double, at now: Duration) {
    animator.animate(to: target, at: now)
  }

  /// Notes that a motion is under way, as the caller found it is.
  ///
  /// - Returns: Whether ``TaskRunner/isAnimating`` changed.
  mutating func noteMotion() -> Bool {
    guard !notifiedAnimating else { return false }
    notifiedAnimating = true
    return true
  }

  /// A frame at `now`: what Observation and renderers hear of the display.
  ///
  /// Observation hears of every frame in which a motion runs or ends and of every jump, without
  /// the value being computed: the getter computes it for whoever reads. Only renderers make the
  /// value be computed, once per frame.
  ///
  /// - Parameters:
  ///   - now: The frame's time on the runner's clock.
  ///   - hasRenderers: Whether renderers listen.
  ///   - evenIfStill: Whether renderers get a frame though the value did not move, unless they
  ///     had one at this time already.
  /// - Returns: What to announce.
  mutating func frame(at now: Duration, hasRenderers: Bool, evenIfStill: Bool) -> Frame {
    var frame = Frame()
    let moving = animator.isAnimating(at: now)
    if moving != notifiedAnimating {
      notifiedAnimating = moving
      frame.animatingChanged = true
    }
    // A motion that ends between two frames moves the display once more, unless it had already
    // come to within rounding of its end.
    let ended = lastMovingTime.map { !moving && value(at: now) != value(at: $0) } ?? false
    frame.displayMoved = moving || ended || animator.generation != notifiedGeneration
    notifiedGeneration = animator.generation
    lastMovingTime = moving ? now : nil
    guard hasRenderers else { return frame }
    let shown = value(at: now)
    let moved = shown != lastRendered
    lastRendered = shown
    if moved || (evenIfStill && lastRenderedTime != now) {
      lastRenderedTime = now
      frame.rendersFrame = true
    }
    return frame
  }
}
