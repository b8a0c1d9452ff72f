/// What a run's progress is measured in: the one place that decides between bytes, files and the
/// units that weight the fraction, for the counts beside a bar and for the rate.
///
/// The two questions have one rule, and answers that can differ: a run that expected its bytes
/// (``TaskRunner/Reporter/expect(bytes:)``) but has only completed units in a first stage shows
/// `0 B / 1.05 GB` beside its bar, and its rate in units, since only its units move. Its rate
/// turns to bytes once it counts bytes done.
///
/// - Counts: bytes when any reporter of the run counted or expected bytes, else files when any
///   counted or expected files, else its units as the fraction stands for them.
/// - Rate: bytes when the run counted bytes done, else files when it counted files done, else its
///   units (children under way counted by their share), else its fraction when it reports no
///   counts.
///
/// The estimator, the runner's updates, the terminal lines and the log all ask here.
package enum ProgressMeasure: Hashable, Sendable {
  /// Bytes, summed over the run's reporters.
  case bytes
  /// Files, summed over the run's reporters.
  case files
  /// The units that weight the fraction.
  case units
  /// The fraction of the whole: a run that reports no counts.
  case fraction

  /// The counts a view shows beside the bar, and what they measure.
  package struct Counts: Hashable, Sendable {
    /// What the counts measure: bytes, files or units, never the fraction.
    package var measure: ProgressMeasure
    /// The amount done.
    package var completed: Int
    /// The amount in all, when known.
    package var total: Int?
  }

  /// Where a run is in the amount its rate measures.
  package struct Position: Hashable, Sendable {
    /// What the position measures.
    package var measure: ProgressMeasure
    /// The amount done.
    package var completed: Double
    /// The amount left, when the run has a total.
    package var remaining: Double?
  }

  /// The counts beside the bar of `progress`: the bytes the run counted, else its files, else its
  /// units as the fraction stands for them (``RunProgress/completedCountForDisplay``), so that
  /// they agree with the percentage and the bar; the whole total once `finished`.
  ///
  /// - Returns: The counts, or `nil` when the progress has none.
  package static func counts(of progress: RunProgress, finished: Bool = false) -> Counts? {
    if progress.completedByteCount != nil || progress.totalByteCount != nil {
      return Counts(
        measure: .bytes, completed: progress.completedByteCount ?? 0,
        total: progress.totalByteCount)
    }
    if progress.completedFileCount != nil || progress.totalFileCount != nil {
      return Counts(
        measure: .files, completed: progress.completedFileCount ?? 0,
        total: progress.totalFileCount)
    }
    guard let completed = progress.completedCountForDisplay else { return nil }
    guard let total = progress.totalCount else {
      return Counts(measure: .units, completed: completed, total: nil)
    }
    return Counts(measure: .units, completed: finished ? total : completed, total: total)
  }

  /// What the rate of `progress` measures, where the run is in it, and what is left.
  ///
  /// A total of bytes or files with nothing done yet does not make the rate one of bytes or
  /// files: a stage that completes units before the first byte moves at so many units a second.
  ///
  /// - Returns: The position, or `nil` for indeterminate work that counts nothing.
  package static func position(of progress: RunProgress) -> Position? {
    if let bytes = progress.completedByteCount {
      return Position(
        measure: .bytes, completed: Double(bytes),
        remaining: progress.totalByteCount.map { Double(max($0 - bytes, 0)) })
    }
    if let files = progress.completedFileCount {
      return Position(
        measure: .files, completed: Double(files),
        remaining: progress.totalFileCount.map { Double(max($0 - files, 0)) })
    }
    switch (progress.fractionCompleted, progress.completedCount, progress.totalCount) {
    case (.some(let fraction), .some(let completed), .some(let total)):
      // Units done, children under way counted by their share, exact while there are none.
      let position = progress.fractionIsTheCounts ? Double(completed) : fraction * Double(total)
      return Position(
        measure: .units, completed: position, remaining: max(Double(total) - position, 0))
    case (nil, .some(let completed), _):
      return Position(measure: .units, completed: Double(completed), remaining: nil)
    case (.some(let fraction), _, _):
      return Position(measure: .fraction, completed: fraction, remaining: 1 - fraction)
    case (nil, nil, _):
      return nil
    }
  }

  /// The measure of the rate of `progress`, as ``position(of:)`` has it.
  package static func rate(of progress: RunProgress) -> ProgressMeasure? {
    position(of: progress)?.measure
  }

  /// The unit amounts of this measure are formatted in, for a run whose counts are in `unit`:
  /// bytes in `unit`'s multiples when it is a byte unit, else decimal ones; files as items named
  /// `files`; units and fractions in `unit`.
  package func unit(given unit: ProgressUnit) -> ProgressUnit {
    switch self {
    case .bytes: unit.isBytes ? unit : .bytes
    case .files: .items(named: "files")
    case .units, .fraction: unit
    }
  }
}
