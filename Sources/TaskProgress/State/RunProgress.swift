/// How far a running operation has come: a fraction, optionally with the counts behind it, and
/// the status text its work gave last.
///
/// A progress value is always valid: its fraction is `nil` (indeterminate) or within `0...1`,
/// and its counts, when present, satisfy `0 <= completedCount <= totalCount`. The initializers
/// clamp what they are given instead of trapping, the same way ``TaskRunner/Reporter`` treats
/// reports. Progress made from counts differs from a bare fraction: `RunProgress(completed: 1,
/// of: 2)` is not equal to `0.5`.
public struct RunProgress: Hashable, Sendable {
  /// The completed fraction in `0...1`, or `nil` when the amount of work is unknown.
  public let fractionCompleted: Double?
  /// The number of completed units, when the work reported counts.
  public let completedCount: Int?
  /// The total number of units, when the work reported a total.
  public let totalCount: Int?
  /// The text a view shows beside the bar, such as the item or the stage under way: the latest
  /// that any reporter of the run set with ``TaskRunner/Reporter/report(message:)``, or `nil`
  /// while none did or the latest was `nil`.
  public let message: String?
  /// The bytes and files the run's reporters counted, apart from the units of the fraction;
  /// `nil` when none did.
  var amounts: Amounts? { amountsBox?.amounts }
  /// ``amounts``, on the heap.
  ///
  /// Most runs count no bytes or files, and a progress is copied at every hop of an update, from
  /// the runner to a group to its renderers. Inline, the four counts were half of its size.
  private let amountsBox: AmountsBox?

  /// Creates a determinate progress from a fraction.
  ///
  /// The fraction is clamped to `0...1`; NaN becomes 0 and the infinities become 0 and 1.
  ///
  /// - Parameters:
  ///   - fractionCompleted: The completed fraction.
  ///   - message: The status text, as in ``message``.
  public init(fractionCompleted: Double, message: String? = nil) {
    self.fractionCompleted = RunProgress.clampedFraction(fractionCompleted)
    self.completedCount = nil
    self.totalCount = nil
    self.message = message
    self.amountsBox = nil
  }

  /// Creates a determinate progress from counts: `completed` of `total` units.
  ///
  /// A `total` of zero or less means the work is complete (fraction 1, counts `0/0`), and
  /// `completed` is clamped to `0...total`.
  ///
  /// - Parameters:
  ///   - completed: The units done.
  ///   - total: The units in all.
  ///   - message: The status text, as in ``message``.
  public init(completed: Int, of total: Int, message: String? = nil) {
    let total = max(total, 0)
    let completed = min(max(completed, 0), total)
    self.completedCount = completed
    self.totalCount = total
    self.fractionCompleted = total == 0 ? 1 : Double(completed) / Double(total)
    self.message = message
    self.amountsBox = nil
  }

  /// Creates a determinate progress whose fraction goes beyond its counts: `completed` of `total`
  /// units are done, and work under way on the others makes up the rest of `fractionCompleted`.
  ///
  /// This is what a run with unfinished children shows: the counts hold the units done, children
  /// finished included, and the fraction adds the unfinished children's fractions. Counts are
  /// clamped as in ``init(completed:of:message:)``, and the fraction to `0...1` (1 when `total` is zero
  /// or less).
  ///
  /// - Parameters:
  ///   - fractionCompleted: The completed fraction, children under way included.
  ///   - completed: The units done.
  ///   - total: The units in all.
  ///   - message: The status text, as in ``message``.
  public init(fractionCompleted: Double, completed: Int, of total: Int, message: String? = nil) {
    let total = max(total, 0)
    self.completedCount = min(max(completed, 0), total)
    self.totalCount = total
    self.fractionCompleted = total == 0 ? 1 : RunProgress.clampedFraction(fractionCompleted)
    self.message = message
    self.amountsBox = nil
  }

  /// Creates an indeterminate progress: work is under way but its size is unknown.
  ///
  /// - Parameters:
  ///   - completed: The units done so far, if the work counts them; negative counts become 0.
  ///   - message: The status text, as in ``message``.
  /// - Returns: A progress whose fraction is `nil`.
  public static func indeterminate(completed: Int? = nil, message: String? = nil) -> RunProgress {
    RunProgress(indeterminateCompleted: completed.map { max($0, 0) }, message: message)
  }

  /// A determinate progress with nothing done yet; `0` as a literal.
  package static let zero = RunProgress(fractionCompleted: 0)

  /// Whether the amount of work is unknown.
  public var isIndeterminate: Bool { fractionCompleted == nil }

  private init(indeterminateCompleted completed: Int?, message: String?) {
    self.fractionCompleted = nil
    self.completedCount = completed
    self.totalCount = nil
    self.message = message
    self.amountsBox = nil
  }

  /// This progress with another status text.
  ///
  /// - Parameter message: The status text, as in ``message``.
  /// - Returns: A progress with this one's fraction and counts, and `message`.
  public func withMessage(_ message: String?) -> RunProgress {
    RunProgress(
      fractionCompleted: fractionCompleted, completedCount: completedCount,
      totalCount: totalCount, message: message, amountsBox: amountsBox)
  }

  /// Every field as given, already valid.
  init(
    fractionCompleted: Double?, completedCount: Int?, totalCount: Int?, message: String?,
    amounts: Amounts?
  ) {
    self.init(
      fractionCompleted: fractionCompleted, completedCount: completedCount,
      totalCount: totalCount, message: message, amountsBox: amounts.map(AmountsBox.init))
  }

  private init(
    fractionCompleted: Double?, completedCount: Int?, totalCount: Int?, message: String?,
    amountsBox: AmountsBox?
  ) {
    self.fractionCompleted = fractionCompleted
    self.completedCount = completedCount
    self.totalCount = totalCount
    self.message = message
    self.amountsBox = amountsBox
  }

  /// Clamps to `0...1`, maps NaN to 0 and turns `-0.0` into `0.0`.
  static func clampedFraction(_ value: Double) -> Double {
    guard !value.isNaN else { return 0 }
    // Adding 0 turns -0.0 into +0.0, so equal fractions always have equal bit patterns.
    return min(max(value, 0), 1) + 0
  }
}

extension RunProgress: ExpressibleByFloatLiteral {
  /// Creates a determinate progress from a fraction literal, such as `0.5`.
  public init(floatLiteral value: Double) {
    self.init(fractionCompleted: value)
  }
}

extension RunProgress: ExpressibleByIntegerLiteral {
  /// Creates a determinate progress from an integer literal: `0` or `1`.
  public init(integerLiteral value: Int) {
    self.init(fractionCompleted: Double(value))
  }
}

extension RunProgress: CustomStringConvertible {
  /// A short form for logs and test failures, such as `42%`, `3/10`, `3/10, 45%` (unfinished
  /// children beyond the counts) or `indeterminate`, then the bytes and files counted, if any
  /// (`3/10, 117 MB / 1.05 GB, 3/24 files`), followed by the message in quotes, if any:
  /// `3/10 "Hashing b.jpg"`.
  public var description: String {
    let counts = [countsDescription, amountsDescription].compactMap { $0 }.joined(separator: ", ")
    guard let message else { return counts }
    return "\(counts) \"\(message)\""
  }

  /// `117 MB / 1.05 GB, 3/24 files`, the bytes and files counted, or `nil` for none.
  private var amountsDescription: String? {
    var parts: [String] = []
    if let bytes = completedByteCount ?? totalByteCount.map({ _ in 0 }) {
      parts.append(
        totalByteCount.map { ProgressUnit.bytes.format(completed: bytes, of: $0) }
          ?? ProgressUnit.bytes.format(bytes))
    }
    if let files = completedFileCount ?? totalFileCount.map({ _ in 0 }) {
      parts.append((totalFileCount.map { "\(files)/\($0)" } ?? "\(files)") + " files")
    }
    return parts.isEmpty ? nil : parts.joined(separator: ", ")
  }

  /// Whether the fraction is exactly the counts' own, with no children under way beyond them.
  package var fractionIsTheCounts: Bool {
    guard let fraction = fractionCompleted, let completed = completedCount, let total = totalCount
    else { return false }
    return fraction == RunProgress(completed: completed, of: total).fractionCompleted
  }

  private var countsDescription: String {
    switch (fractionCompleted, completedCount, totalCount) {
    case (.some(let fraction), .some(let completed), .some(let total)):
      fractionIsTheCounts
        ? "\(completed)/\(total)" : "\(completed)/\(total), \(RunProgress.percent(fraction))"
    case (.some(let fraction), _, _):
      RunProgress.percent(fraction)
    case (nil, .some(let completed), _):
      "indeterminate, \(completed) done"
    case (nil, nil, _):
      "indeterminate"
    }
  }

  /// Formats a fraction as a percentage with at most one decimal, without Foundation: rounded
  /// down, so that `100%` means done and 0.9996 is `99.9%`.
  static func percent(_ fraction: Double) -> String {
    // A little is added first: a fraction such as 0.29 may be a hair under its tenths.
    let tenths =
      fraction >= 1 ? 1000 : fraction > 0 ? min(Int(fraction * 1000 + 1e-6), 999) : 0
    return tenths % 10 == 0 ? "\(tenths / 10)%" : "\(tenths / 10).\(tenths % 10)%"
  }
}

/// `nil` or the value, as a debug description shows it.
private func optional(_ value: Int?) -> String {
  value.map { "\($0)" } ?? "nil"
}

extension RunProgress: CustomDebugStringConvertible {
  /// Every field, with every digit of the fraction.
  public var debugDescription: String {
    "RunProgress(fractionCompleted: \(fractionCompleted.map { "\($0)" } ?? "nil"), "
      + "completedCount: \(completedCount.map { "\($0)" } ?? "nil"), "
      + "totalCount: \(totalCount.map { "\($0)" } ?? "nil"), "
      + "message: \(message.map { String(reflecting: $0) } ?? "nil")"
      + (countedAmounts.map {
        ", bytes: \(optional($0.completedBytes))/\(optional($0.totalBytes))"
          + ", files: \(optional($0.completedFiles))/\(optional($0.totalFiles))"
      } ?? "") + ")"
  }
}
