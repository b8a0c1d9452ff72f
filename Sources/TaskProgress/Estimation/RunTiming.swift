/// How long a run has been active, paused time left out, and how fast its progress goes.
///
/// The runner's frames record the run's progress as they read it; the rate is that of the run's
/// position, in what ``ProgressMeasure/position(of:)`` says it measures. A change of measure, from
/// units to bytes or from a fraction to counts, starts the estimate again. The stopwatch and the
/// estimator are an ``ActiveRate``; this type adds what a run measures.
struct RunTiming: Sendable {
  /// The run's active time, running from its start and stopped while paused, and its rate.
  private var rate: ActiveRate
  /// What the estimator's positions measure; `nil` until the run reports progress.
  private var measure: ProgressMeasure?

  /// Starts timing a run at `now`.
  init(startedAt now: Duration) {
    rate = ActiveRate(startedAt: now, position: 0)
  }

  /// Whether the run is paused: the one place its pause is kept.
  var isPaused: Bool {
    !rate.isRunning
  }

  /// Stops the active time at `now`.
  mutating func pause(at now: Duration) {
    rate.stop(at: now)
  }

  /// Lets the active time run again from `now`.
  mutating func resume(at now: Duration) {
    rate.start(at: now)
  }

  /// Records the run's progress at `now`.
  mutating func record(_ progress: RunProgress, at now: Duration) {
    guard let reading = ProgressMeasure.position(of: progress) else { return }
    let (measure, position) = (reading.measure, reading.completed)
    // A frame before the first report reads the run's zero: no measure yet.
    if self.measure == nil && position == 0 { return }
    if self.measure == nil {
      // The run began at position 0: its first report measures the time since it started.
      self.measure = measure
    } else if self.measure != measure {
      self.measure = measure
      rate.restart(from: position, at: now)
      return
    }
    // Work that goes on while paused is no part of the rate, which measures active time.
    rate.record(position, at: now)
  }

  /// The run's speed and time remaining at `now`, for its latest progress.
  func estimate(for progress: RunProgress, at now: Duration) -> ActiveRate.Estimate {
    guard let reading = ProgressMeasure.position(of: progress), reading.measure == measure else {
      return .unknown
    }
    let estimate = rate.estimate(remaining: reading.remaining, at: now)
    // A rate of fractions a second means nothing to a reader: only the time left is shown.
    guard reading.measure == .fraction else { return estimate }
    return ActiveRate.Estimate(throughput: nil, timeRemaining: estimate.timeRemaining)
  }
}
