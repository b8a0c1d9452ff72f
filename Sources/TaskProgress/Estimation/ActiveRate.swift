/// A rate of progress over active time: a stopwatch that stops while the work is paused, and the
/// estimator that measures the progress over the stopwatch's time.
///
/// It is the part that a run and a group share: each keeps what it measures (a run's bytes,
/// files or units; a group's summed work) and hands the positions in, on its own clock. Progress
/// recorded while the stopwatch is stopped moves the position without a sample, so a pause
/// neither lowers the rate nor lengthens the time left.
struct ActiveRate: Sendable {
  /// A speed and the time left at it.
  struct Estimate: Hashable, Sendable {
    /// Units per second, in what the owner measures, when the estimator has enough samples.
    var throughput: Double?
    /// The time the work has left at its current speed, when it has a total.
    var timeRemaining: Duration?

    /// Nothing known.
    static let unknown = Estimate(throughput: nil, timeRemaining: nil)
  }

  /// The active time: running while the work runs, stopped while it is paused.
  private var activeTime: Stopwatch
  /// The estimate, from the first position recorded, or from the one given at the start.
  private var estimator: ThroughputEstimator?

  /// A rate whose stopwatch has not run yet and whose estimate begins at the first position
  /// recorded.
  init() {
    activeTime = Stopwatch()
  }

  /// A rate whose stopwatch runs from `now`, its estimate beginning at `position`.
  init(startedAt now: Duration, position: Double) {
    activeTime = Stopwatch(startedAt: now)
    estimator = ThroughputEstimator(start: .zero, position: position)
  }

  /// Whether the stopwatch is running: the work is not paused.
  var isRunning: Bool {
    activeTime.isRunning
  }

  /// Starts the stopwatch at `now`, unless it runs.
  mutating func start(at now: Duration) {
    activeTime.start(at: now)
  }

  /// Stops the stopwatch at `now`, if it runs.
  mutating func stop(at now: Duration) {
    activeTime.stop(at: now)
  }

  /// Records that the work is at `position` at `now`.
  ///
  /// It is a sample while the stopwatch runs, a move without one while it is stopped. The first
  /// position begins the estimate when none has.
  mutating func record(_ position: Double, at now: Duration) {
    let time = activeTime.elapsed(at: now)
    guard estimator != nil else {
      estimator = ThroughputEstimator(start: time, position: position)
      return
    }
    if activeTime.isRunning {
      estimator?.record(position, at: time)
    } else {
      estimator?.skip(to: position, at: time)
    }
  }

  /// Moves to `position` at `now` without a sample, whether or not the stopwatch runs: work that
  /// the rate leaves out.
  mutating func skip(to position: Double, at now: Duration) {
    estimator?.skip(to: position, at: activeTime.elapsed(at: now))
  }

  /// Starts the estimate over from `position` at `now`, with no samples: what the positions
  /// measure changed.
  mutating func restart(from position: Double, at now: Duration) {
    estimator = ThroughputEstimator(start: activeTime.elapsed(at: now), position: position)
  }

  /// The speed at `now`, and the time `remaining` units take at it.
  ///
  /// - Returns: ``Estimate/unknown`` until the estimator has enough samples; no time left
  ///   without `remaining`.
  func estimate(remaining: Double?, at now: Duration) -> Estimate {
    guard let estimator else { return .unknown }
    let time = activeTime.elapsed(at: now)
    guard let rate = estimator.rate(at: time) else { return .unknown }
    return Estimate(
      throughput: rate,
      timeRemaining: remaining.flatMap { estimator.timeRemaining(for: $0, at: time) })
  }
}
