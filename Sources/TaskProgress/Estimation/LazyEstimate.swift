/// A run's speed and time remaining as of the last frame, computed only once someone can read
/// them: a renderer, an observer, or a reader of the runner's properties.
///
/// Hundreds of runners that nobody asks for a rate spend nothing on one.
struct LazyEstimate: Sendable {
  /// The estimate of the last frame that computed it.
  private var value = ActiveRate.Estimate.unknown
  /// The time of the last frame, while ``value`` is not computed for it yet.
  private var staleTime: Duration?
  /// Whether the runner's estimate properties were ever read: from then on, frames compute it.
  var isRead = false

  /// A frame at `now`: computes the estimate if `eager` or once read, or leaves it for whoever
  /// reads it.
  ///
  /// - Returns: The estimate before and after, when the frame computed it.
  mutating func update(
    at now: Duration, eager: Bool, _ compute: (Duration) -> ActiveRate.Estimate
  ) -> (old: ActiveRate.Estimate, new: ActiveRate.Estimate)? {
    guard eager || isRead else {
      staleTime = now
      return nil
    }
    staleTime = nil
    let old = value
    value = compute(now)
    return (old, value)
  }

  /// The estimate as of the last frame, computed now if that frame left it.
  mutating func current(_ compute: (Duration) -> ActiveRate.Estimate) -> ActiveRate.Estimate {
    if let time = staleTime {
      value = compute(time)
      staleTime = nil
    }
    return value
  }
}
