import TaskProgress

/// What a published `Progress` shows: its completed and total unit counts.
struct PublishedValues: Equatable, Sendable {
  /// The progress's `completedUnitCount`.
  var completed: Int64
  /// The progress's `totalUnitCount`; -1 while indeterminate.
  var total: Int64

  /// The units a fraction is published in when it is not the run's counts' own: at least this
  /// many, so that the fraction moves in steps of at most 1/10,000.
  static let fractionResolution = 10_000

  /// Values as given.
  init(completed: Int64, total: Int64) {
    self.completed = completed
    self.total = total
  }

  /// A progress that has not begun: indeterminate, with nothing done.
  static let notStarted = PublishedValues(completed: 0, total: -1)

  /// The values that show `progress`, the progress of a run still active.
  ///
  /// - Counts whose fraction is the run's are published as they are, unless they are complete.
  /// - A fraction that goes beyond the counts (unfinished children) is published in the run's
  ///   units, or in a whole fraction of them when the total is below 10,000: 3 of 4 units plus
  ///   half a unit under way is 8,750 of 10,000.
  /// - A bare fraction is published in ten-thousandths.
  /// - Complete counts or a fraction of 1 are published one unit short of finished, in the same
  ///   units, until the run finishes: a `Progress` that finishes is done for good, and the run
  ///   may yet go on.
  /// - Indeterminate progress has a total of -1, and its count if it has one.
  init(_ progress: RunProgress) {
    guard let fraction = progress.fractionCompleted else {
      self.init(completed: Int64(progress.completedCount ?? 0), total: -1)
      return
    }
    if let completed = progress.completedCount, let total = progress.totalCount,
      progress.fractionIsTheCounts, completed < total
    {
      self.init(completed: Int64(completed), total: Int64(total))
      return
    }
    let scale = PublishedValues.scale(for: progress.totalCount)
    self.init(completed: PublishedValues.units(fraction, of: scale), total: scale)
  }

  /// The total a fraction is published in: the run's total, times the least whole number that
  /// makes it at least ``fractionResolution``, or that resolution when there is no total.
  private static func scale(for total: Int?) -> Int64 {
    let resolution = Int64(fractionResolution)
    guard let total, total > 0 else { return resolution }
    let total64 = Int64(total)
    guard total64 < resolution else { return total64 }
    return total64 * ((resolution + total64 - 1) / total64)
  }

  /// `fraction` of `scale` units, rounded down, and below `scale`.
  private static func units(_ fraction: Double, of scale: Int64) -> Int64 {
    // A hair above the product before rounding down: 0.29 × 10,000 is 2899.9999999999995.
    let units = (fraction * Double(scale) * (1 + 1e-12)).rounded(.down)
    // Compared as a `Double`: near 2^63 the product may be beyond what an `Int64` holds.
    guard units < Double(scale - 1) else { return scale - 1 }
    return max(Int64(units), 0)
  }

  /// The values of a finished run: its count reaches the run's last total, or `1` of `1`
  /// without one (or with a total of zero).
  static func finished(total: Int64?) -> PublishedValues {
    let total = max(total ?? 1, 1)
    return PublishedValues(completed: total, total: total)
  }

  /// One property set on the published progress.
  enum Step: Equatable, Sendable {
    case total(Int64)
    case completed(Int64)
  }

  /// The values after `step`.
  func applying(_ step: Step) -> PublishedValues {
    var values = self
    switch step {
    case .total(let total): values.total = total
    case .completed(let completed): values.completed = completed
    }
    return values
  }

  /// The steps that take a progress from these values to `target`.
  ///
  /// Foundation sets a count and a total one property at a time, and a parent reads every value
  /// in between. A total changes by way of -1: the progress is indeterminate while its count
  /// changes, so a parent reads 0 from it then. That way no value in between
  ///
  /// - finishes the progress, unless `target` is finished and it is the last step: a finished
  ///   child hands its pending units to its parent for good, even if its total grows again;
  /// - lifts a parent's fraction above both its value before and its value after;
  /// - changes the total from one positive value to another. swift-corelibs-foundation scales
  ///   its record of a progress's children by every such change, and after enough of them that
  ///   record overflows, which traps, or turns negative, which reads as 0 for good. Through -1,
  ///   the record is never scaled.
  func steps(to target: PublishedValues) -> [Step] {
    guard target.total != total else {
      return target.completed != completed ? [.completed(target.completed)] : []
    }
    var steps: [Step] = []
    if total != -1 {
      steps.append(.total(-1))
    }
    if target.completed != completed {
      steps.append(.completed(target.completed))
    }
    if target.total != -1 {
      steps.append(.total(target.total))
    }
    return steps
  }
}
