/// How long a run has been active, paused time left out, and how fast its progress goes.
///
/// The runner's frames record the run's progress as they read it; the rate is that of the run's
/// *position*: the bytes it counted, else the files, else its completed units (children under
/// way counted by their share), or its fraction when it reports no counts. A change of kind, from a fraction to counts or back, starts the
/// estimate again.
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

  /// What a position measures.
  private enum Kind: Equatable {
    /// Bytes done, summed over the run's reporters.
    case bytes
    /// Files done, summed over the run's reporters.
    case files
    /// Completed units.
    case counts
    /// The fraction of the whole.
    case fraction
  }

  /// The run's active time: running from its start, stopped while paused.
  private var activeTime: Stopwatch
  /// What the estimator's positions measure; `nil` until the run reports progress.
  private var kind: Kind?
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
    guard let (kind, position, _) = RunTiming.position(of: progress) else { return }
    let time = activeTime.elapsed(at: now)
    // A frame before the first report reads the run's zero: no kind yet.
    if self.kind == nil && position == 0 { return }
    if self.kind == nil {
      // The run began at position 0: its first report measures the time since it started.
      self.kind = kind
    } else if self.kind != kind {
      self.kind = kind
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
    guard let (kind, _, remaining) = RunTiming.position(of: progress), kind == self.kind else {
      return .unknown
    }
    let time = activeTime.elapsed(at: now)
    guard let rate = estimator.rate(at: time) else { return .unknown }
    return Estimate(
      throughput: kind == .fraction ? nil : rate,
      timeRemaining: remaining.flatMap { estimator.timeRemaining(for: $0, at: time) })
  }

  /// What a progress measures, where it is, and what is left, if it has a total.
  ///
  /// A run that counts bytes is measured in bytes, else one that counts files in files: they
  /// are what its counts beside the bar show, whatever weights its fraction.
  private static func position(of progress: RunProgress) -> (Kind, Double, Double?)? {
    if let bytes = progress.completedByteCount {
      return (.bytes, Double(bytes), progress.totalByteCount.map { Double(max($0 - bytes, 0)) })
    }
    if let files = progress.completedFileCount {
      return (.files, Double(files), progress.totalFileCount.map { Double(max($0 - files, 0)) })
    }
    switch (progress.fractionCompleted, progress.completedCount, progress.totalCount) {
    case (.some(let fraction), .some(let completed), .some(let total)):
      // Units done, children under way counted by their share, exact while there are none.
      let position = progress.fractionIsTheCounts ? Double(completed) : fraction * Double(total)
      return (.counts, position, max(Double(total) - position, 0))
    case (nil, .some(let completed), _):
      return (.counts, Double(completed), nil)
    case (.some(let fraction), _, _):
      return (.fraction, fraction, 1 - fraction)
    case (nil, nil, _):
      return nil
    }
  }
}
