/// How long a run has been active, paused time left out, and how fast its progress goes.
///
/// The runner's frames record the run's progress as they read it; the rate is that of the run's
/// position, in what ``ProgressMeasure/position(of:)`` says it measures. A change of measure, from
/// units to bytes or from a fraction to counts, starts the estimate again.
struct RunTiming: Sendable {
  /// A run's speed and the time it has left.
  struct Estimate: Hashable, Sendable {
    /// Bytes, files or completed units per second, as the run counts them, when the estimator
    /// has enough samples.
    var throughput: Double?
    /// The time the run has left at its current speed, when it has a total.
    var timeRemaining: Duration?

    /// Nothing known.
    static let unknown = Estimate(throughput: nil, timeRemaining: nil)
  }

  /// The run's active time: running from its start, stopped while paused.
  private var activeTime: Stopwatch
  /// What the estimator's positions measure; `nil` until the run reports progress.
  private var measure: ProgressMeasure?
  private var estimator: ThroughputEstimator

  /// Starts timing a run at `now`.
  init(startedAt now: Duration) {
    activeTime = Stopwatch(startedAt: now)
    estimator = ThroughputEstimator(start: .zero)
  }

  /// Whether the run is paused: the one place its pause is kept.
  var isPaused: Bool {
    !activeTime.isRunning
  }

  /// Stops the active time at `now`.
  mutating func pause(at now: Duration) {
    activeTime.stop(at: now)
  }

  /// Lets the active time run again from `now`.
  mutating func resume(at now: Duration) {
    activeTime.start(at: now)
  }

  /// Records the run's progress at `now`.
  mutating func record(_ progress: RunProgress, at now: Duration) {
    guard let reading = ProgressMeasure.position(of: progress) else { return }
    let (measure, position) = (reading.measure, reading.completed)
    let time = activeTime.elapsed(at: now)
    // A frame before the first report reads the run's zero: no measure yet.
    if self.measure == nil && position == 0 { return }
    if self.measure == nil {
      // The run began at position 0: its first report measures the time since it started.
      self.measure = measure
    } else if self.measure != measure {
      self.measure = measure
      estimator.reset(at: time, position: position)
      return
    }
    if isPaused {
      // Work that goes on while paused is no part of the rate, which measures active time.
      estimator.skip(to: position, at: time)
    } else {
      estimator.record(position, at: time)
    }
  }

  /// The run's speed and time remaining at `now`, for its latest progress.
  func estimate(for progress: RunProgress, at now: Duration) -> Estimate {
    guard let position = ProgressMeasure.position(of: progress), position.measure == measure else {
      return .unknown
    }
    let time = activeTime.elapsed(at: now)
    guard let rate = estimator.rate(at: time) else { return .unknown }
    return Estimate(
      throughput: position.measure == .fraction ? nil : rate,
      timeRemaining: position.remaining.flatMap { estimator.timeRemaining(for: $0, at: time) })
  }
}
