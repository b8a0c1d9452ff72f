/// A smoothed rate of progress in units per second, and the time left at that rate, as indicatif
/// estimates them.
///
/// The estimate is an exponentially weighted average over *time*, not over samples: the weight of
/// what was seen decays with its age, so that everything older than 15 seconds
/// (``weightingInterval``) has 10% of the weight in total and everything older than 30 seconds 1%.
/// How often progress is recorded does not change the result: a steady rate gives that rate back,
/// whether it is recorded 60 times a second or once every few seconds.
///
/// - Each record of progress gives one sample: the units done since the previous record, over the
///   time between them. The samples are averaged with weights by age, and the average is divided
///   by the weight of the time since the start, so the first seconds are not pulled toward 0.
/// - That average is smoothed a second time in the same way, which keeps a bursty workload from
///   making the rate jump from frame to frame.
/// - Time without progress counts as samples of 0 units per second: after a stall the rate decays
///   smoothly toward 0 instead of freezing at its last value, and the next progress raises it
///   again. A steady rate `r` that stalls for `T` seconds reads `r·w·(2 - w)`, with
///   `w = 0.1^(T / 15)`, once the estimate is a minute or more old.
/// - There is no rate until ``minimumSamples`` records have advanced the position since the start
///   or the last reset. A position that goes backwards starts the estimate over from there.
///
/// Times are the run's active time on the runner's clock, with paused time already subtracted, so
/// a pause neither lowers the rate nor lengthens the time left. The type uses neither Foundation
/// nor the C library.
struct ThroughputEstimator: Sendable {
  /// The age at which what was seen keeps 10% of its weight in the estimate.
  static let weightingInterval: Duration = .seconds(15)
  /// The records that must advance the position, after the start or a reset, before there is a
  /// rate.
  static let minimumSamples = 3
  /// The longest time remaining reported, ten years of 365 days, to which longer ones are capped.
  static let longestTimeRemaining: Duration = .seconds(10 * 365 * 86_400)

  /// ln 0.1, so that `0.1^x` is `exp(x · ln 0.1)`.
  private static let lnOneTenth = -2.302_585_092_994_046
  /// ``weightingInterval`` in seconds.
  private static let weightingSeconds = seconds(weightingInterval)

  /// When the current estimate began: the start, or the last reset.
  private var start: Duration
  /// The position at the last record that changed the state.
  private var previousPosition: Double
  /// The time of the last record that changed the state.
  private var previousTime: Duration
  /// The time-weighted average of the samples, not yet divided by the total weight.
  private var smoothed: Double = 0
  /// The time-weighted average of the normalized `smoothed`, not yet divided by the total weight.
  private var doubleSmoothed: Double = 0
  /// The records that advanced the position since the start or the last reset.
  private(set) var sampleCount = 0

  /// Creates an estimator with no samples, at `position` at time `start`.
  ///
  /// - Parameters:
  ///   - start: The active time at which the estimate begins.
  ///   - position: The completed units at `start`; a non-finite position counts as 0.
  init(start: Duration, position: Double = 0) {
    self.start = start
    self.previousTime = start
    self.previousPosition = position.isFinite ? position : 0
  }

  /// Starts over, with no samples, from `position` at `time`.
  mutating func reset(at time: Duration, position: Double) {
    self = ThroughputEstimator(start: time, position: position)
  }

  /// Moves to `position` without a sample.
  ///
  /// This is progress made while the run was paused, which the rate leaves out. A position that
  /// goes backwards starts the estimate over, as in `record`.
  mutating func skip(to position: Double, at time: Duration) {
    guard position.isFinite else { return }
    guard position >= previousPosition else {
      reset(at: time, position: position)
      return
    }
    previousPosition = position
  }

  /// Records that the run is at `position` at active time `time`.
  ///
  /// A position that advances, at a time later than the last record, adds a sample. A position or
  /// time that stays the same changes nothing, and neither does a non-finite position; a position
  /// that goes backwards starts the estimate over from `position` at `time`. So does a jump too
  /// large to measure, whose rate is not a finite number.
  mutating func record(_ position: Double, at time: Duration) {
    guard position.isFinite else { return }
    guard position >= previousPosition else {
      reset(at: time, position: position)
      return
    }
    let advance = position - previousPosition
    guard advance > 0, time > previousTime else { return }
    let interval = Self.seconds(time - previousTime)  // once: a Duration's components divide
    let sample = advance / interval
    let weight = Self.weight(seconds: interval)
    let newSmoothed = smoothed * weight + sample * (1 - weight)
    let total = 1 - Self.weight(time - start)
    let newDoubleSmoothed = doubleSmoothed * weight + (newSmoothed / total) * (1 - weight)
    guard newSmoothed.isFinite, newDoubleSmoothed.isFinite else {
      reset(at: time, position: position)
      return
    }
    smoothed = newSmoothed
    doubleSmoothed = newDoubleSmoothed
    previousPosition = position
    previousTime = time
    sampleCount += 1
  }

  /// The estimated rate in units per second at active time `time`.
  ///
  /// The time since the last record counts as a sample of 0 units per second, so the rate decays
  /// while progress stalls. A time before the last record counts as the last record's.
  ///
  /// - Returns: The rate, never negative, or `nil` before ``minimumSamples`` samples or when it is
  ///   not a finite number.
  func rate(at time: Duration) -> Double? {
    guard sampleCount >= Self.minimumSamples else { return nil }
    let now = max(time, previousTime)
    let reweight = Self.weight(now - previousTime)
    let total = 1 - Self.weight(now - start)
    guard total > 0 else { return nil }
    let single = smoothed * reweight / total
    let double = doubleSmoothed * reweight + single * (1 - reweight)
    let rate = double / total
    return rate.isFinite ? rate : nil
  }

  /// The time the `remaining` units take at the rate at active time `time`.
  ///
  /// - Returns: Zero when `remaining` is 0 or less; otherwise `remaining` divided by the rate,
  ///   capped at ``longestTimeRemaining``, or `nil` when `remaining` is not finite or there is
  ///   no positive rate.
  func timeRemaining(for remaining: Double, at time: Duration) -> Duration? {
    guard remaining.isFinite else { return nil }
    guard remaining > 0 else { return .zero }
    guard let rate = rate(at: time), rate > 0 else { return nil }
    let seconds = remaining / rate
    guard seconds < Self.seconds(Self.longestTimeRemaining) else {
      return Self.longestTimeRemaining
    }
    return .seconds(seconds)
  }

  /// The weight left to what is `age` old: `0.1^(age / weightingInterval)`.
  static func weight(_ age: Duration) -> Double {
    weight(seconds: seconds(age))
  }

  /// The weight left to what is `age` seconds old.
  static func weight(seconds age: Double) -> Double {
    ElementaryFunctions.exp(age / weightingSeconds * lnOneTenth)
  }

  /// `duration` in seconds, from its components so that no attosecond is lost to a division.
  static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components  // once: each reading divides in 128 bits
    return Double(seconds) + Double(attoseconds) * 1e-18
  }
}
