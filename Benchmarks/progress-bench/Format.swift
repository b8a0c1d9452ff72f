import Foundation

/// Number formats for the table: short, aligned, with units.
enum Format {
  /// A duration given in nanoseconds, such as `812 ns`, `43.1 µs`, `7.12 ms` or `7.12 s`.
  static func duration(_ nanoseconds: Double?) -> String {
    guard let nanoseconds else { return "-" }
    switch abs(nanoseconds) {
    case ..<1e3: return String(format: "%.0f ns", nanoseconds)
    case ..<1e6: return String(format: "%.1f µs", nanoseconds / 1e3)
    case ..<1e9: return String(format: "%.2f ms", nanoseconds / 1e6)
    default: return String(format: "%.2f s", nanoseconds / 1e9)
    }
  }

  /// A cost per report in nanoseconds, with more digits for small values.
  static func nanoseconds(_ value: Double?) -> String {
    guard let value else { return "-" }
    switch value {
    case ..<10: return String(format: "%.2f", value)
    case ..<1000: return String(format: "%.1f", value)
    default: return count(Int(value.rounded()))
    }
  }

  /// A rate per second, such as `812 k/s` or `1.23 G/s`.
  static func rate(_ perSecond: Double?) -> String {
    guard let perSecond else { return "-" }
    switch perSecond {
    case ..<1e3: return String(format: "%.0f /s", perSecond)
    case ..<1e6: return String(format: "%.1f k/s", perSecond / 1e3)
    case ..<1e9: return String(format: "%.1f M/s", perSecond / 1e6)
    default: return String(format: "%.2f G/s", perSecond / 1e9)
    }
  }

  /// A size in bytes, in MiB.
  static func mebibytes(_ bytes: Double?) -> String {
    guard let bytes else { return "-" }
    return String(format: "%.1f MiB", bytes / 1_048_576)
  }

  /// A signed size difference in bytes, in KiB or MiB.
  static func growth(_ bytes: Double) -> String {
    abs(bytes) < 1_048_576
      ? String(format: "%+.0f KiB", bytes / 1024) : String(format: "%+.1f MiB", bytes / 1_048_576)
  }

  /// A whole number with thousands separators, such as `1,000,000`.
  static func count(_ value: Int?) -> String {
    guard let value else { return "-" }
    let digits = String(value.magnitude)
    var grouped = ""
    for (offset, digit) in digits.enumerated() {
      if offset > 0, (digits.count - offset).isMultiple(of: 3) {
        grouped.append(",")
      }
      grouped.append(digit)
    }
    return value < 0 ? "-" + grouped : grouped
  }

  /// A size as the targets name it: `100k`, `1M`, `10M`.
  static func size(_ n: Int) -> String {
    if n >= 1_000_000, n.isMultiple(of: 1_000_000) { return "\(n / 1_000_000)M" }
    if n >= 1000, n.isMultiple(of: 1000) { return "\(n / 1000)k" }
    return count(n)
  }

  /// A ratio, such as `12.3x`.
  static func ratio(_ value: Double?) -> String {
    guard let value else { return "-" }
    return value >= 100 ? String(format: "%.0fx", value) : String(format: "%.2fx", value)
  }

  /// A fraction as a percentage, such as `4%`.
  static func percent(_ value: Double?) -> String {
    guard let value else { return "-" }
    return String(format: "%.0f%%", value * 100)
  }

  /// Lays out rows as columns; the first `leftAligned` columns align left, the rest right.
  static func table(_ rows: [[String]], leftAligned: Int) -> String {
    let widths = (0..<(rows.first?.count ?? 0)).map { column in
      rows.map { $0[column].count }.max() ?? 0
    }
    return rows.map { row in
      let cells = row.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return column < leftAligned ? cell + padding : padding + cell
      }
      var line = cells.joined(separator: "  ")
      while line.last == " " {
        line.removeLast()
      }
      return line
    }
    .joined(separator: "\n")
  }
}
