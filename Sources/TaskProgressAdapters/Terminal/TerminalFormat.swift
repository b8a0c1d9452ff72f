import TaskProgress

/// The numbers a progress line shows, formatted without Foundation.
enum TerminalFormat {
  /// Whether a redraw throttled to `interval` is due `elapsed` after the last one.
  ///
  /// A millisecond early counts as due: frames at 60 Hz come every 16.67 ms, and three of them
  /// add up to a few attoseconds less than 50 ms, which would make a 50 ms throttle redraw on
  /// every fourth frame, 15 times a second, rather than 20.
  static func isRedrawDue(after elapsed: Duration, interval: Duration) -> Bool {
    elapsed >= interval - .milliseconds(1)
  }

  /// The columns `text` takes on a terminal: two for East Asian wide and fullwidth characters
  /// (CJK ideographs, kana, Hangul, fullwidth forms, most emoji), none for combining marks and
  /// other zero-width scalars, one for the rest.
  static func columns(_ text: String) -> Int {
    if isPrintableASCII(text) {
      return text.utf8.count
    }
    // A character's width is the sum of its scalars' unless it asks for emoji presentation, so
    // text without U+FE0F is summed scalar by scalar, without breaking it into characters.
    var total = 0
    for scalar in text.unicodeScalars {
      if scalar.value == 0xFE0F {
        return text.reduce(0) { $0 + columns(of: $1) }
      }
      total += columns(of: scalar)
    }
    return total
  }

  /// Whether `text` begins a character of its own after a space: its first scalar is no mark
  /// or joiner that would join the space into one character with it.
  ///
  /// Columns are counted by character where one holds U+FE0F, so the columns of `"  " + text`
  /// are `2 + columns(text)` exactly when this holds.
  static func startsCleanly(_ text: String) -> Bool {
    guard let first = text.unicodeScalars.first, first.value >= 0x300 else { return true }
    let properties = first.properties
    return !properties.isGraphemeExtend && properties.generalCategory != .spacingMark
      && first.value != 0x200D
  }

  /// Whether `text` is printable ASCII only, one column a byte.
  private static func isPrintableASCII(_ text: String) -> Bool {
    text.utf8.allSatisfy { (0x20..<0x7F).contains($0) }
  }

  /// The columns of one character: 2 for an emoji asked for as one (with U+FE0F), else the sum
  /// of its scalars'.
  static func columns(of character: Character) -> Int {
    if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) {
      return 2
    }
    return character.unicodeScalars.reduce(0) { $0 + columns(of: $1) }
  }

  private static func columns(of scalar: Unicode.Scalar) -> Int {
    // Most of what is measured is one column, without a look at its properties: printable
    // ASCII, the rest of Latin up to the combining marks, and the blocks that bars are drawn with.
    switch scalar.value {
    case 0x20..<0x7F, 0xA0..<0x300, 0x2580...0x259F: return 1
    default: break
    }
    // Terminals draw emoji that are pictures by default (✅ ⏳ ⭐) two columns wide, and the
    // soft hyphen, a format character, as a hyphen.
    if scalar.properties.isEmojiPresentation { return 2 }
    if scalar.value == 0xAD { return 1 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format, .control: return 0
    default: break
    }
    switch scalar.value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F680...0x1F6FF, 0x1F900...0x1F9FF, 0x1FA70...0x1FAFF,
      0x20000...0x3FFFD:
      return 2
    default:
      return 1
    }
  }

  /// A whole percentage, rounded down, that reaches 100 only when the work is complete.
  ///
  /// A fraction is usually a quotient of counts, and binary floating point cannot hold most of
  /// them exactly: `29.0 / 100` is a hair below 0.29, and times 100 a hair below 29. So a product
  /// within a billionth below a whole number counts as that number; where the counts are at hand,
  /// ``percent(completed:of:)`` is exact.
  static func percent(_ fraction: Double) -> String {
    guard fraction > 0 else { return "0" }  // NaN too
    guard fraction < 1 else { return "100" }
    let percent = (fraction * 100 + 1e-9).rounded(.down)
    return String(min(Int(percent), 99))
  }

  /// The whole percentage `completed` is of `total`, rounded down and computed in integers, so
  /// that it always agrees with the counts shown beside it: `29/100` is `29`, `1/3` is `33`.
  ///
  /// It is 100 only when `completed` reaches `total`, and for a total of zero or less, which
  /// ``RunProgress`` treats as work that is already complete. Counts outside `0...total` are
  /// clamped, and totals up to `Int.max` never overflow.
  static func percent(completed: Int, of total: Int) -> String {
    guard total > 0, completed < total else { return "100" }
    guard completed > 0 else { return "0" }
    // 100 × completed needs up to 7 more bits than an Int has; the quotient is below 100.
    let percent = total.dividingFullWidth(completed.multipliedFullWidth(by: 100)).quotient
    return String(percent)
  }

  /// The percentage a progress shows: from its counts when its fraction is theirs, else from
  /// its fraction (which counts unfinished children beyond the counts); `nil` when the work is
  /// indeterminate.
  static func percent(_ progress: RunProgress) -> String? {
    guard let fraction = progress.fractionCompleted else { return nil }
    if progress.fractionIsTheCounts, let completed = progress.completedCount,
      let total = progress.totalCount
    {
      return percent(completed: completed, of: total)
    }
    return percent(fraction)
  }

  /// A duration as `4.2s` under a minute, else `m:ss`, else `h:mm:ss`.
  static func elapsed(_ duration: Duration) -> String {
    let seconds = max(duration / .seconds(1), 0)
    guard seconds >= 59.95 else {
      let tenths = Int((seconds * 10).rounded())
      return "\(tenths / 10).\(tenths % 10)s"
    }
    // Capped far beyond any real run, so that the conversion to `Int` cannot trap.
    return clock(Int(min(seconds, 1e15).rounded()))
  }

  /// A remaining time as `m:ss` or `h:mm:ss`, rounded up, so that it reaches `0:00` only at the end.
  ///
  /// A microsecond over a whole second counts as rounding error of the estimate, not as another
  /// second: 5.000000000000001 s is `0:05`.
  static func remaining(_ duration: Duration) -> String {
    let seconds = duration / .seconds(1) - 1e-6
    // Capped far beyond any real estimate, so that the conversion to `Int` cannot trap.
    return clock(Int(min(max(seconds, 0), 1e15).rounded(.up)))
  }

  private static func clock(_ totalSeconds: Int) -> String {
    let hours = totalSeconds / 3600
    let minutes = totalSeconds / 60 % 60
    let seconds = totalSeconds % 60
    let mm = hours > 0 && minutes < 10 ? "0\(minutes)" : "\(minutes)"
    let ss = seconds < 10 ? "0\(seconds)" : "\(seconds)"
    return hours > 0 ? "\(hours):\(mm):\(ss)" : "\(mm):\(ss)"
  }

  // MARK: - Text

  /// `text` on one line that writes nothing but itself, in its own order: every control
  /// character (C0, DEL and C1, among them newlines and the escape that starts a terminal
  /// sequence) and every line or paragraph separator becomes a space, and every invisible format
  /// character (``isHiddenFormat(_:)``) is dropped.
  ///
  /// Format characters are dropped because they are invisible: a bidirectional override
  /// (U+202E) in a message would draw the rest of the line, the counts included, right to left,
  /// and a zero-width space or a soft hyphen would hide or show nothing where the line is measured
  /// as having it.
  static func singleLine(_ text: String) -> String {
    guard !isPrintableASCII(text), text.unicodeScalars.contains(where: isNeutralised) else {
      return text
    }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      if isBreaking(scalar) {
        result.append(" ")
      } else if !isHiddenFormat(scalar) {
        result.append(scalar)
      }
    }
    return String(result)
  }

  /// `text` on one line that still says what it held: every character that ``singleLine(_:)``
  /// turns into a space or drops is escaped instead (`\n`, `\u{2028}`, `\u{202E}`), for text a
  /// reader must be able to tell apart, such as a path.
  static func escapingBreaks(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isNeutralised) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
      if isNeutralised(scalar) {
        result += scalar.escaped(asASCII: true)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Whether ``singleLine(_:)`` turns `scalar` into a space or drops it.
  static func isNeutralised(_ scalar: Unicode.Scalar) -> Bool {
    isBreaking(scalar) || isHiddenFormat(scalar)
  }

  private static func isBreaking(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .lineSeparator, .paragraphSeparator: true
    default: false
    }
  }

  /// Whether `scalar` is a format character (general category Cf) other than the zero-width
  /// joiner and non-joiner: the bidirectional embeddings, overrides, isolates and marks
  /// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), the zero-width space (U+200B),
  /// the word joiner and invisible operators (U+2060–U+2064), the byte order mark (U+FEFF),
  /// the soft hyphen (U+00AD), the tags (U+E0001–U+E007F) and the others.
  ///
  /// The joiners stay: they only join or part their neighbours, and emoji sequences (👩‍💻) and
  /// scripts such as Persian and the Indic ones need them.
  static func isHiddenFormat(_ scalar: Unicode.Scalar) -> Bool {
    guard scalar.value >= 0xAD, scalar.value != 0x200C, scalar.value != 0x200D else {
      return false
    }
    return scalar.properties.generalCategory == .format
  }

  /// Cuts `text` to at most `width` columns, at a character boundary, and ends it with `ellipsis`.
  ///
  /// `text` that fits is returned as it is. A wide character that would straddle the limit is
  /// left out whole, and spaces before the ellipsis are dropped.
  static func truncated(_ text: String, toColumns width: Int, ellipsis: String) -> String {
    guard columns(text) > width else { return text }
    let room = width - columns(ellipsis)
    guard room >= 0 else { return "" }
    var result = ""
    var used = 0
    for character in text {
      let needed = columns(String(character))
      if used + needed > room { break }
      result.append(character)
      used += needed
    }
    while result.last?.isWhitespace == true {
      result.removeLast()
    }
    return result + ellipsis
  }
}
