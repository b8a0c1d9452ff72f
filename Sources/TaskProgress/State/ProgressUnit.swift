/// What a run's counts measure: items, or bytes counted in decimal or binary multiples.
///
/// A unit turns counts and rates into short text for a progress line or a log, without
/// Foundation and the same in every locale: `.` is the decimal point and there are no digit
/// group separators.
public struct ProgressUnit: Hashable, Sendable, CustomStringConvertible {
  private enum Kind: Hashable, Sendable {
    /// Items, with the name a rate shows per second.
    case items(String)
    case bytes
    case binaryBytes
  }

  private let kind: Kind

  private init(_ kind: Kind) {
    self.kind = kind
  }

  /// Items, shown as exact integers, with rates in items per second: `24.5 it/s`.
  public static let items = ProgressUnit(.items(defaultItemName))

  /// Items with a name for rates, such as `files` for `24.5 files/s`.
  ///
  /// Counts show as for ``items``, without the name.
  ///
  /// - Parameter name: What one item is called in a rate; an empty name means `it`.
  /// - Returns: A unit equal to ``items`` when `name` is `it` or empty.
  public static func items(named name: String) -> ProgressUnit {
    ProgressUnit(.items(name.isEmpty ? defaultItemName : name))
  }

  /// Bytes in decimal multiples, 1 kB = 1000 B, as Finder and Foundation's `.file` style count
  /// them: `1.2 GB`.
  public static let bytes = ProgressUnit(.bytes)

  /// Bytes in binary multiples, 1 KiB = 1024 B: `1.1 GiB`.
  public static let binaryBytes = ProgressUnit(.binaryBytes)

  /// Whether the counts are bytes, in decimal or binary multiples.
  public var isBytes: Bool {
    switch kind {
    case .items: false
    case .bytes, .binaryBytes: true
    }
  }

  /// Formats one count: `1050195871` items, `999 B`, `1.2 GB` or `1.1 GiB`.
  ///
  /// - Parameter count: The count; a negative count is shown as 0.
  /// - Returns: The exact integer for items, else the amount of bytes with its unit.
  public func format(_ count: Int) -> String {
    let count = max(count, 0)
    switch kind {
    case .items: return String(count)
    case .bytes: return ProgressUnit.byteCount(UInt64(count), in: .decimal)
    case .binaryBytes: return ProgressUnit.byteCount(UInt64(count), in: .binary)
    }
  }

  /// Formats a pair of counts: `29/100` items, or `1.2 GB / 3.4 GB`.
  ///
  /// Each side is formatted on its own as by ``format(_:)``, so a negative count is shown as 0;
  /// `completed` is not clamped to `total`.
  ///
  /// - Parameters:
  ///   - completed: The units done.
  ///   - total: The units in all.
  /// - Returns: Items as two exact integers joined by `/`, bytes joined by ` / `.
  public func format(completed: Int, of total: Int) -> String {
    switch kind {
    case .items: format(completed) + "/" + format(total)
    case .bytes, .binaryBytes: format(completed) + " / " + format(total)
    }
  }

  /// Formats a rate: `24.5 it/s`, `1.2k files/s`, `512 B/s`, `12.3 MB/s` or `11.7 MiB/s`.
  ///
  /// Given the progress the rate was estimated for, the rate is shown in what it measures: bytes
  /// per second for a run that counts bytes done (in this unit's multiples when it is a byte
  /// unit, else decimal ones), files per second for one that counts files done, else this unit.
  /// A runner's ``TaskRunner/throughput`` and a ``ProgressUpdate``'s are estimated that way; format
  /// an update's with its ``ProgressUpdate/unit`` and ``ProgressUpdate/lastProgress``:
  ///
  /// ```swift
  /// if let rate = runner.throughput {
  ///   print(runner.unit.format(throughput: rate, of: runner.lastProgress))  // "52.0 MB/s"
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - unitsPerSecond: The rate; negative, NaN and infinite rates are shown as 0.
  ///   - progress: The progress the rate was estimated for; `nil`, the default, for a rate in
  ///     this unit.
  /// - Returns: The rate with its unit per second.
  public func format(throughput unitsPerSecond: Double, of progress: RunProgress? = nil) -> String {
    let unit = progress.map(rateUnit(of:)) ?? self
    guard unit == self else { return unit.format(throughput: unitsPerSecond) }
    let rate = unitsPerSecond.isFinite ? max(unitsPerSecond, 0) : 0
    switch kind {
    case .items(let name): return ProgressUnit.itemRate(rate) + " " + name + "/s"
    case .bytes: return ProgressUnit.byteRate(rate, in: .decimal) + "/s"
    case .binaryBytes: return ProgressUnit.byteRate(rate, in: .binary) + "/s"
    }
  }

  /// The unit's name in code: `items`, `items(files)`, `bytes` or `binaryBytes`.
  public var description: String {
    switch kind {
    case .items(let name): name == ProgressUnit.defaultItemName ? "items" : "items(\(name))"
    case .bytes: "bytes"
    case .binaryBytes: "binaryBytes"
    }
  }
}

extension ProgressUnit {
  /// The unit the rate of `progress` is in, for a run whose counts are in this unit: as
  /// ``ProgressMeasure/rate(of:)`` decides, this unit when the progress counts nothing.
  package func rateUnit(of progress: RunProgress) -> ProgressUnit {
    ProgressMeasure.rate(of: progress)?.unit(given: self) ?? self
  }

  /// What an item is called in a rate when it has no name of its own.
  static let defaultItemName = "it"

  /// The multiples of one counting system, from the smallest prefix up.
  struct Scale {
    /// The multiple between prefixes: 1000 or 1024.
    let base: UInt64
    /// The prefixes, each `base` times the one before.
    let prefixes: [String]

    /// kB, MB, GB, TB, PB, EB.
    static let decimal = Scale(base: 1000, prefixes: ["k", "M", "G", "T", "P", "E"])
    /// KiB, MiB, GiB, TiB, PiB, EiB.
    static let binary = Scale(base: 1024, prefixes: ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"])
  }

  /// An amount of bytes, computed in integers so that every rounding is exact.
  static func byteCount(_ count: UInt64, in scale: Scale) -> String {
    guard count >= scale.base else { return "\(count) B" }
    var divisor: UInt64 = 1
    for (index, prefix) in scale.prefixes.enumerated() {
      // The largest divisor, 1000⁶ or 1024⁶, is below 2⁶³.
      divisor *= scale.base
      let (quotient, remainder) = count.quotientAndRemainder(dividingBy: divisor)
      // remainder × 10 is below 10 × 1024⁶ < 2⁶⁴.
      let tenths = quotient * 10 + roundedQuotient(remainder * 10, divisor)
      if tenths < 1000 {
        return "\(tenths / 10).\(tenths % 10) \(prefix)B"
      }
      let whole = quotient + roundedQuotient(remainder, divisor)
      if whole < scale.base || index == scale.prefixes.count - 1 {
        return "\(whole) \(prefix)B"
      }
    }
    preconditionFailure("the last prefix always returns")
  }

  /// `dividend / divisor` rounded half away from zero, without overflow.
  private static func roundedQuotient(_ dividend: UInt64, _ divisor: UInt64) -> UInt64 {
    let (quotient, remainder) = dividend.quotientAndRemainder(dividingBy: divisor)
    return remainder >= divisor - remainder ? quotient + 1 : quotient
  }

  /// A rate of items, finite and not negative, with its SI prefix and without the unit:
  /// `0.50`, `24.5`, `1.2k`, `139M`.
  static func itemRate(_ rate: Double) -> String {
    if rate < 1 {
      let hundredths = Int((rate * 100).rounded())
      if hundredths < 100 {
        return hundredths < 10 ? "0.0\(hundredths)" : "0.\(hundredths)"
      }
    }
    let prefixes = [""] + Scale.decimal.prefixes
    var divisor = 1.0
    for (index, prefix) in prefixes.enumerated() {
      let isLast = index == prefixes.count - 1
      if let number = scaled(rate / divisor, below: isLast ? .infinity : 1000) {
        return number + prefix
      }
      divisor *= 1000
    }
    preconditionFailure("the last prefix always returns")
  }

  /// A rate of bytes, finite and not negative, with its unit: `512 B`, `12.3 MB`, `11.7 MiB`.
  static func byteRate(_ rate: Double, in scale: Scale) -> String {
    let base = Double(scale.base)
    let whole = rate.rounded()
    guard whole >= base else { return "\(Int(whole)) B" }
    var divisor = 1.0
    for (index, prefix) in scale.prefixes.enumerated() {
      // Powers of 1000 and 1024 up to the sixth are exact in a Double.
      divisor *= base
      let isLast = index == scale.prefixes.count - 1
      if let number = scaled(rate / divisor, below: isLast ? .infinity : base) {
        return number + " " + prefix + "B"
      }
    }
    preconditionFailure("the last prefix always returns")
  }

  /// A scaled value, finite and not negative: with one decimal when it rounds below 100, else
  /// whole; `nil` when it rounds to `limit` or more and so belongs under the next prefix.
  private static func scaled(_ value: Double, below limit: Double) -> String? {
    let tenths = (value * 10).rounded()
    if tenths < 1000 {
      let tenths = Int(tenths)
      return "\(tenths / 10).\(tenths % 10)"
    }
    let whole = value.rounded()
    return whole < limit ? integerDigits(whole) : nil
  }

  /// The decimal digits of a whole, finite, non-negative `Double` of any magnitude.
  ///
  /// Below 2⁶³ they are exact; above, they are the shortest digits that identify the value,
  /// followed by zeros.
  static func integerDigits(_ value: Double) -> String {
    if value < 0x1p63 {
      return String(Int64(value))
    }
    // The standard library writes such values as `d.ddde+N`, in every locale.
    let text = value.description
    guard let marker = text.firstIndex(where: { $0 == "e" || $0 == "E" }),
      let exponent = Int(text[text.index(after: marker)...])
    else {
      return text
    }
    let mantissa = text[..<marker]
    let point = mantissa.firstIndex(of: ".") ?? mantissa.endIndex
    let fraction = mantissa[point...].dropFirst()
    let digits = mantissa[..<point] + fraction
    return String(digits) + String(repeating: "0", count: max(exponent - fraction.count, 0))
  }
}
