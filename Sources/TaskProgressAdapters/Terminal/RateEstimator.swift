/// A smoothed rate of progress and the time left, as tqdm estimates them.
///
/// Progress is sampled at most every 100 ms; each sample's rate enters an exponential moving
/// average with tqdm's default smoothing of 0.3. There is no estimate until three samples exist,
/// an estimate is never negative, and from one shown value to the next it changes by at most a
/// factor of 2, so the ETA never leaps by orders of magnitude between frames.
struct RateEstimator {
  static let smoothing = 0.3
  static let sampleSpan: Duration = .milliseconds(100)
  static let samplesNeeded = 3
  static let longestEstimate: Duration = .seconds(100 * 3600)

  private var anchor: (time: Duration, fraction: Double)?
  private var samples = 0
  private var lastShown: Duration?
  /// The smoothed rate in fractions per second, once there is one.
  private(set) var rate: Double?

  /// Starts over, from `fraction` at `time`.
  mutating func reset(fraction: Double, at time: Duration) {
    self = RateEstimator()
    anchor = (time, fraction)
  }

  /// Takes a progress reading.
  mutating func add(fraction: Double, at time: Duration) {
    guard let anchor else {
      reset(fraction: fraction, at: time)
      return
    }
    let span = time - anchor.time
    guard span >= RateEstimator.sampleSpan else { return }
    let instant = max(fraction - anchor.fraction, 0) / (span / .seconds(1))
    rate =
      rate.map { RateEstimator.smoothing * instant + (1 - RateEstimator.smoothing) * $0 } ?? instant
    samples += 1
    self.anchor = (time, fraction)
  }

  /// Whether enough samples exist for an estimate.
  var isEstimating: Bool {
    samples >= RateEstimator.samplesNeeded && rate != nil
  }

  /// The time left at `fraction`, moved at most by a factor of 2 from the last one shown.
  mutating func remaining(at fraction: Double) -> Duration? {
    guard isEstimating, let rate, rate > 0 else { return nil }
    let seconds = min(max(1 - fraction, 0) / rate, RateEstimator.longestEstimate / .seconds(1))
    var estimate = Duration.seconds(seconds)
    if let lastShown {
      estimate = min(max(estimate, lastShown / 2), lastShown * 2)
    }
    lastShown = estimate
    return estimate
  }
}
