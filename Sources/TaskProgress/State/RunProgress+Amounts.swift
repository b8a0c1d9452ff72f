extension RunProgress {
  /// The bytes and files a run counted: sums over every reporter of the run, apart from the units
  /// that weight its fraction.
  ///
  /// Each field is `nil` until a reporter of the run counted that amount.
  struct Amounts: Hashable, Sendable {
    var completedBytes: Int?
    var totalBytes: Int?
    var completedFiles: Int?
    var totalFiles: Int?

    /// Whether no field is set.
    var isEmpty: Bool {
      completedBytes == nil && totalBytes == nil && completedFiles == nil && totalFiles == nil
    }
  }

  /// A progress's ``Amounts``, kept apart from it; equal and hashed by value, so that progress
  /// values compare as they did with the amounts inline.
  final class AmountsBox: Hashable, Sendable {
    /// The amounts.
    let amounts: Amounts

    /// Boxes `amounts`.
    init(_ amounts: Amounts) {
      self.amounts = amounts
    }

    static func == (lhs: AmountsBox, rhs: AmountsBox) -> Bool {
      lhs === rhs || lhs.amounts == rhs.amounts
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(amounts)
    }
  }

  // MARK: - Bytes and files

  /// The bytes done, summed over every reporter of the run, children finished or under way;
  /// `nil` while no reporter counted bytes.
  ///
  /// Bytes are counted apart from the units that weight the fraction
  /// (``TaskRunner/Reporter/complete(bytes:)``), so a run whose stages are weighted 10 and 90
  /// can still show `117 MB / 1.05 GB`. The sums are those of Foundation's `ProgressManager`
  /// properties `completedByteCount` and `totalByteCount`: a child's bytes count from the moment
  /// it reports them, and stay counted after it finished.
  public var completedByteCount: Int? { amounts?.completedBytes }

  /// The bytes in all, summed over every reporter of the run that gave a total of bytes
  /// (``TaskRunner/Reporter/expect(bytes:)``, ``TaskRunner/Reporter/report(completedBytes:of:)``);
  /// `nil` while none did.
  public var totalByteCount: Int? { amounts?.totalBytes }

  /// The files done, summed over every reporter of the run, as ``completedByteCount`` sums bytes;
  /// `nil` while no reporter counted files.
  public var completedFileCount: Int? { amounts?.completedFiles }

  /// The files in all, summed over every reporter of the run that gave a total of files; `nil`
  /// while none did.
  public var totalFileCount: Int? { amounts?.totalFiles }

  /// This progress with the bytes done and in all set to `completed` and `total` (`nil` for
  /// none); negative counts become 0.
  ///
  /// Runners fill them in from their reporters; use it to build the progress a test or a
  /// preview expects.
  public func withByteCount(completed: Int?, total: Int?) -> RunProgress {
    var amounts = self.amounts ?? Amounts()
    amounts.completedBytes = completed.map { max($0, 0) }
    amounts.totalBytes = total.map { max($0, 0) }
    return withAmounts(amounts)
  }

  /// This progress with the files done and in all set to `completed` and `total` (`nil` for
  /// none); negative counts become 0.
  public func withFileCount(completed: Int?, total: Int?) -> RunProgress {
    var amounts = self.amounts ?? Amounts()
    amounts.completedFiles = completed.map { max($0, 0) }
    amounts.totalFiles = total.map { max($0, 0) }
    return withAmounts(amounts)
  }

  /// This progress with `amounts`, none when empty.
  func withAmounts(_ amounts: Amounts?) -> RunProgress {
    RunProgress(
      fractionCompleted: fractionCompleted, completedCount: completedCount,
      totalCount: totalCount, message: message,
      amounts: amounts.flatMap { $0.isEmpty ? nil : $0 })
  }

  /// The bytes and files of this progress, if any.
  var countedAmounts: Amounts? { amounts }

  // MARK: - What a view shows beside the bar

  /// The count a view shows beside the percentage: the units the fraction stands for,
  /// `fraction × total` rounded down, and never less than ``completedCount``; `nil` when the
  /// progress has no counts.
  ///
  /// This is the one rule by which the terminal renderers, the log file and the group's lines
  /// show counts, so that they agree with the bar. ``completedCount`` holds the units *done*:
  /// a child's assigned count joins it when the child finishes, while the fraction already
  /// moves with the child's own progress. With one child of 100 units at 90%, the fraction is
  /// 0.9, ``completedCount`` is 0, and this is 90: a view shows `90%  90/100`, not `90%  0/100`.
  ///
  /// Without a fraction (indeterminate work) it is ``completedCount``.
  public var completedCountForDisplay: Int? {
    guard let completed = completedCount else { return nil }
    guard let fraction = fractionCompleted, let total = totalCount, total > 0 else {
      return completed
    }
    if fractionIsTheCounts { return completed }
    // The units of the fraction, rounded down as the percentage is, within a billionth of a
    // whole unit counting as it: 0.29 × 100 is a hair below 29.
    let units = (fraction * Double(total) * (1 + 1e-12)).rounded(.down)
    let shown = units >= Double(total) ? total : max(Int(units), 0)
    return min(max(shown, completed), total)
  }
}
