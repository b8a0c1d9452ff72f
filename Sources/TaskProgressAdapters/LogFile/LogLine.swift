import TaskProgress

/// One JSON Lines record of the log file: a pure value, so its encoding is tested and fuzzed alone.
///
/// ```json
/// {"time":"2026-11-29T14:35:03.123Z","label":"import","phase":"running","fraction":0.42,"completed":42,"total":100,"unit":"items","throughput":24.5,"eta":2.367,"elapsed":1.234,"message":"Reading photo-0042.jpg"}
/// ```
struct LogLine {
  /// Wall-clock time since 1970-01-01T00:00:00Z.
  var time: Duration
  var label: String
  /// The group member the line is about, in a group's log.
  var member: String? = nil
  var phase: RunPhase
  var fraction: Double?
  var completed: Int?
  var total: Int?
  /// What the counts measure; `nil` leaves the field out.
  var unit: ProgressUnit? = nil
  /// The bytes and files the run counted, done and in all.
  var bytes: (completed: Int?, total: Int?) = (nil, nil)
  var files: (completed: Int?, total: Int?) = (nil, nil)
  /// Completed units, bytes or files per second, as ``throughputUnit`` says.
  var throughput: Double? = nil
  /// What the throughput counts, when it is not ``unit``: bytes or files a run counted.
  var throughputUnit: ProgressUnit? = nil
  /// The time the run has left.
  var eta: Duration? = nil
  /// Time since the run started, on the runner's clock.
  var elapsed: Duration?
  /// The status text the work reported last.
  var message: String? = nil
  var error: String?

  /// The record as one line of JSON, ending with a newline.
  func encoded() -> String {
    var json = "{\"time\":\"" + LogLine.iso8601(time) + "\""
    if !label.isEmpty {
      json += ",\"label\":" + LogLine.quoted(label)
    }
    if let member {
      json += ",\"member\":" + LogLine.quoted(member)
    }
    json += ",\"phase\":\"\(phase)\""
    json += ",\"fraction\":" + (fraction.map(LogLine.number) ?? "null")
    if let completed { json += ",\"completed\":\(completed)" }
    if let total { json += ",\"total\":\(total)" }
    if let unit { json += ",\"unit\":" + LogLine.quoted(LogLine.name(of: unit)) }
    if let completed = bytes.completed { json += ",\"bytes\":\(completed)" }
    if let total = bytes.total { json += ",\"totalBytes\":\(total)" }
    if let completed = files.completed { json += ",\"files\":\(completed)" }
    if let total = files.total { json += ",\"totalFiles\":\(total)" }
    if let throughput, throughput.isFinite {
      json += ",\"throughput\":" + LogLine.number(throughput)
      if let throughputUnit, throughputUnit != unit {
        json += ",\"throughputUnit\":" + LogLine.quoted(LogLine.name(of: throughputUnit))
      }
    }
    if let eta { json += ",\"eta\":" + LogLine.seconds(eta) }
    if let elapsed { json += ",\"elapsed\":" + LogLine.seconds(elapsed) }
    if let message { json += ",\"message\":" + LogLine.quoted(message) }
    if let error { json += ",\"error\":" + LogLine.quoted(error) }
    return json + "}\n"
  }

  /// The name a unit is logged with: `items`, `bytes`, `binaryBytes`, or `items(files)` for
  /// items with a name of their own.
  static func name(of unit: ProgressUnit) -> String {
    switch unit {
    case .items: "items"
    case .bytes: "bytes"
    case .binaryBytes: "binaryBytes"
    default: unit.description
    }
  }

  /// A JSON string literal: quotes, backslashes and control characters escaped, the rest as UTF-8.
  ///
  /// What a terminal would act on or hide is escaped too, so that a log shown with `cat` or
  /// `tail -f` shows it as it is: C1 controls, line and paragraph separators, and the format
  /// characters a terminal line drops (a bidirectional override, a zero-width space). A JSON
  /// reader decodes them back, so the text is kept exactly.
  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "\u{08}": result += "\\b"
      case "\u{0C}": result += "\\f"
      case "\u{20}"..."\u{7E}": result.unicodeScalars.append(scalar)
      case _ where TerminalFormat.isNeutralised(scalar):
        result += escaped(scalar)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }

  /// `\uXXXX`, or a surrogate pair of them beyond the Basic Multilingual Plane, as JSON spells a
  /// scalar.
  private static func escaped(_ scalar: Unicode.Scalar) -> String {
    UTF16.encode(scalar)?.map { unit in
      let hex = String(unit, radix: 16, uppercase: true)
      return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }.joined() ?? ""
  }

  /// A finite number in JSON's syntax; `null` for the non-finite, which JSON cannot spell.
  static func number(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    return "\(value)"
  }

  /// Seconds with millisecond precision: `1.234`.
  static func seconds(_ duration: Duration) -> String {
    // Clamped to what an Int64 of milliseconds holds, so that no duration traps.
    let exact = (duration / .milliseconds(1)).rounded()
    let milliseconds =
      exact >= 0x1p63 ? Int64.max : exact <= -0x1p63 ? Int64.min : Int64(exact)
    let sign = milliseconds < 0 ? "-" : ""
    let magnitude = milliseconds.magnitude
    let fraction = String(magnitude % 1000)
    return sign + "\(magnitude / 1000)." + String(repeating: "0", count: 3 - fraction.count)
      + fraction
  }

  /// The range of times a timestamp can show: years 0000 to 9999, as ISO 8601 spells them
  /// without an expansion; a time outside is shown as the nearest end.
  static let timestampRange: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

  /// An ISO 8601 UTC timestamp with milliseconds, such as `2026-11-29T14:35:03.123Z`.
  static func iso8601(_ sinceEpoch: Duration) -> String {
    var (seconds, attoseconds) = sinceEpoch.components
    if !timestampRange.contains(seconds) {
      seconds = min(max(seconds, timestampRange.lowerBound), timestampRange.upperBound)
      attoseconds = 0
    }
    let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    let (days, dayMilliseconds) = floorDivision(milliseconds, 86_400_000)
    let (year, month, day) = civilDate(daysSinceEpoch: days)
    let secondOfDay = dayMilliseconds / 1000
    let date = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    let time =
      pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":"
      + pad(secondOfDay % 60, 2) + "." + pad(dayMilliseconds % 1000, 3)
    return date + "T" + time + "Z"
  }

  /// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's algorithm).
  static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let shifted = daysSinceEpoch + 719_468
    let (era, dayOfEra) = floorDivision(shifted, 146_097)
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return (year, month, day)
  }

  private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
    let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
    return (quotient, value - quotient * divisor)
  }

  private static func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value.magnitude)
    let sign = value < 0 ? "-" : ""
    return sign + String(repeating: "0", count: max(width - digits.count, 0)) + digits
  }
}
