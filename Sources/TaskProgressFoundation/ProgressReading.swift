import Foundation

/// One reading of a `Foundation.Progress`: its counts, its fraction and its flags, in the form
/// the bridge reports them.
struct ProgressReading: Equatable, Sendable {
  var completedUnitCount: Int64
  var totalUnitCount: Int64
  var fractionCompleted: Double
  var isIndeterminate: Bool
  var isFinished: Bool
  var isCancelled: Bool

  /// Reads a progress: the flags first, so that a progress cancelled or finished between two
  /// reads is seen as it ended at the latest on the next frame.
  init(_ progress: Progress) {
    isCancelled = progress.isCancelled
    isFinished = progress.isFinished
    completedUnitCount = progress.completedUnitCount
    totalUnitCount = progress.totalUnitCount
    fractionCompleted = progress.fractionCompleted
    isIndeterminate = progress.isIndeterminate
  }

  /// A reading with the given values: what tests build.
  init(
    completed: Int64, total: Int64, fraction: Double, isIndeterminate: Bool,
    isFinished: Bool = false, isCancelled: Bool = false
  ) {
    completedUnitCount = completed
    totalUnitCount = total
    fractionCompleted = fraction
    self.isIndeterminate = isIndeterminate
    self.isFinished = isFinished
    self.isCancelled = isCancelled
  }

  /// What a reporter reports for this reading.
  enum Report: Equatable, Sendable {
    /// `completed` of `total` units, and `inFlight` units of unfinished children beyond them.
    case counts(completed: Int, total: Int, inFlight: Double)
    /// The size is unknown; `completed` units are done, if the progress counts them.
    case indeterminate(completed: Int?)
  }

  /// The report that mirrors this reading.
  ///
  /// The fraction reported is the progress's `fractionCompleted`, which counts the unfinished
  /// children of the progress; its `completedUnitCount` does not, so the units of those children
  /// that are done go in `inFlight`. A fraction that is NaN, infinite or outside `0...1` (which
  /// a `Progress` whose count exceeds its total has) is clamped.
  var report: Report {
    if isIndeterminate {
      // A count of 0 says nothing: an indeterminate progress that counted nothing yet, such as
      // a download whose size is unknown, shows no count.
      return .indeterminate(
        completed: completedUnitCount > 0 ? Int(clamping: completedUnitCount) : nil)
    }
    guard totalUnitCount > 0 else {
      // Determinate with no total: only a positive count of zero units, which is complete.
      return .counts(completed: 0, total: 0, inFlight: 0)
    }
    let total = Int(clamping: totalUnitCount)
    let counted = min(max(Int(clamping: completedUnitCount), 0), total)
    let fraction = fractionCompleted.isNaN ? 0 : min(max(fractionCompleted, 0), 1)
    let units = fraction * Double(total)
    var completed = counted
    // A fraction below the counts' own (by more than rounding) wins: the count goes down to it.
    if units < Double(counted) * (1 - 1e-12) {
      completed = min(Int(units.rounded(.down)), counted)
    }
    let inFlight = units - Double(completed)
    // Rounding, not children: `0.29 * 100` is 28.999999999999996, and 29/100 must stay 29/100.
    let significant = inFlight > Double(total) * 1e-12 ? inFlight : 0
    return .counts(completed: completed, total: total, inFlight: significant)
  }
}
