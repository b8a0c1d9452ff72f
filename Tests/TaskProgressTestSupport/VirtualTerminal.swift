/// A small in-memory terminal screen: what a user would see after a program's output, for tests.
///
/// It keeps a grid of `rows` × `columns` cells and a cursor, and understands the part of the
/// VT100/xterm language that progress renderers write:
///
/// - printable text, each character as wide as ``columns(of:)`` says;
/// - `\r` (to column 0) and `\n` (one row down, scrolling the screen at the bottom row, which
///   ``scrolls`` counts). With ``lineFeedReturns`` (the default) `\n` also goes to column 0, as
///   a terminal behind a tty with `ONLCR` (the default mode) sees it; bytes read from a pty
///   already have `\r\n`, which comes to the same;
/// - `\t` (to the next multiple of 8) and backspace;
/// - autowrap, as xterm does it: a character written in the last column leaves the cursor there
///   in a *pending wrap* state; only the next printable character moves it to the start of the
///   next row (scrolling at the bottom), and that counts in ``wraps``. `\r`, `\n`, cursor
///   movements and erasures end the pending state without a wrap. A wide character that does
///   not fit in the last column wraps too, leaving that column blank;
/// - CSI sequences: cursor up, down, forward, back and to a column (`nA`, `nB`, `nC`, `nD`,
///   `nG`), erase in line (`K`, `0K`, `1K`, `2K`), erase in display (`J`, `0J`, `1J`, `2J`),
///   cursor visibility (`?25l`, `?25h`, tracked in ``isCursorVisible``) and SGR (`…m`, ignored:
///   the screen keeps no colours).
///
/// Any other escape sequence is recorded, whole, in ``unknownSequences`` and otherwise ignored,
/// so a test can assert that a renderer writes nothing it does not model. Other control
/// characters are ignored.
///
/// Feed it a renderer's text with ``feed(_:)-(String)``, or raw bytes read from a pty with
/// ``feed(_:)-([UInt8])``; a UTF-8 sequence or an escape sequence split across two feeds is
/// put back together.
package struct VirtualTerminal: Sendable {
  /// One cell of the grid.
  private enum Cell: Equatable, Sendable {
    /// Nothing written, or erased.
    case blank
    /// A character, with the zero-width scalars written after it; `isWide` when it takes this
    /// cell and the next.
    case text(String, isWide: Bool)
    /// The right half of the wide character in the cell before.
    case continuation
  }

  private enum ParserState: Sendable {
    case ground
    /// After ESC.
    case escape
    /// In a CSI sequence, after `ESC [`.
    case controlSequence
    /// In an operating system command (`ESC ]`), up to BEL or `ESC \`.
    case operatingSystemCommand
  }

  /// The width in columns.
  package private(set) var columns: Int
  /// The height in rows.
  package private(set) var rows: Int
  /// The cursor's row, from 0 at the top.
  package private(set) var cursorRow = 0
  /// The cursor's column, from 0 at the left.
  package private(set) var cursorColumn = 0
  /// Whether the cursor is shown: `ESC[?25l` hides it, `ESC[?25h` shows it.
  package private(set) var isCursorVisible = true
  /// How many times the screen scrolled up by one row: a line feed at the bottom row, or an
  /// autowrap there.
  package private(set) var scrolls = 0
  /// How many times text went on past the last column onto the next row.
  package private(set) var wraps = 0
  /// The escape sequences the terminal does not model, in the order they came.
  package private(set) var unknownSequences: [String] = []
  /// The rows that scrolled off the top, oldest first, trailing spaces trimmed.
  package private(set) var scrollback: [String] = []
  /// Whether `\n` also returns to column 0, as the tty's `ONLCR` output mode has it.
  package var lineFeedReturns: Bool

  private var cells: [[Cell]]
  /// Whether a character was written in the last column and the cursor waits there to wrap.
  private var isWrapPending = false
  private var state = ParserState.ground
  /// The escape sequence read so far, while one is open.
  private var sequence = ""
  /// The bytes of a UTF-8 sequence read so far, and how many it takes.
  private var utf8Bytes: [UInt8] = []
  private var utf8Length = 0

  /// Creates a blank screen with the cursor at the top left.
  ///
  /// - Parameters:
  ///   - columns: The width, at least 1.
  ///   - rows: The height, at least 1.
  ///   - lineFeedReturns: Whether `\n` returns to column 0 as well, as behind a tty.
  package init(columns: Int = 80, rows: Int = 24, lineFeedReturns: Bool = true) {
    self.columns = max(columns, 1)
    self.rows = max(rows, 1)
    self.lineFeedReturns = lineFeedReturns
    cells = Array(repeating: Array(repeating: .blank, count: self.columns), count: self.rows)
  }

  /// The rows of the screen, top to bottom, each with its trailing spaces trimmed.
  package var screen: [String] {
    cells.map(VirtualTerminal.text(of:))
  }

  /// The screen without its trailing blank rows.
  package var trimmedScreen: [String] {
    var screen = self.screen
    while screen.last?.isEmpty == true {
      screen.removeLast()
    }
    return screen
  }

  // MARK: - Input

  /// Writes `text` to the terminal.
  package mutating func feed(_ text: String) {
    feed(Array(text.utf8))
  }

  /// Writes raw bytes, UTF-8 text and escape sequences, to the terminal; an invalid UTF-8
  /// sequence shows as U+FFFD.
  package mutating func feed(_ bytes: [UInt8]) {
    for byte in bytes {
      decode(byte)
    }
  }

  /// Changes the size of the screen without reflowing its text.
  ///
  /// Rows are cut on the right (a wide character cut in half goes whole). When the height
  /// shrinks below the cursor's row, rows go off the top into ``scrollback`` so that the cursor
  /// stays on its line, as xterm and VTE do; other rows are cut at the bottom. New rows and
  /// columns are blank. The cursor keeps its place, moved into the screen if it must be, and a
  /// pending wrap ends.
  package mutating func resize(columns newColumns: Int, rows newRows: Int) {
    let newColumns = max(newColumns, 1)
    let newRows = max(newRows, 1)
    if cursorRow >= newRows {
      let dropped = cursorRow - newRows + 1
      scrollback += cells.prefix(dropped).map(VirtualTerminal.text(of:))
      cells.removeFirst(dropped)
      cursorRow -= dropped
    }
    cells = cells.prefix(newRows).map { row in
      var row = Array(row.prefix(newColumns))
      if row.count < newColumns {
        row += Array(repeating: .blank, count: newColumns - row.count)
      } else if case .text(_, isWide: true) = row[newColumns - 1] {
        row[newColumns - 1] = .blank
      }
      return row
    }
    while cells.count < newRows {
      cells.append(Array(repeating: .blank, count: newColumns))
    }
    columns = newColumns
    rows = newRows
    cursorColumn = min(cursorColumn, newColumns - 1)
    isWrapPending = false
  }

  // MARK: - Decoding

  private mutating func decode(_ byte: UInt8) {
    if utf8Length > 0 {
      if byte & 0xC0 == 0x80 {
        utf8Bytes.append(byte)
        if utf8Bytes.count == utf8Length {
          let scalar = VirtualTerminal.scalar(fromUTF8: utf8Bytes)
          utf8Bytes = []
          utf8Length = 0
          interpret(scalar)
        }
        return
      }
      // The sequence broke off: what was read is one invalid character.
      utf8Bytes = []
      utf8Length = 0
      interpret("\u{FFFD}")
    }
    switch byte {
    case 0x00..<0x80: interpret(Unicode.Scalar(byte))
    case 0xC2...0xDF: startUTF8(byte, length: 2)
    case 0xE0...0xEF: startUTF8(byte, length: 3)
    case 0xF0...0xF4: startUTF8(byte, length: 4)
    default: interpret("\u{FFFD}")
    }
  }

  private mutating func startUTF8(_ byte: UInt8, length: Int) {
    utf8Bytes = [byte]
    utf8Length = length
  }

  private static func scalar(fromUTF8 bytes: [UInt8]) -> Unicode.Scalar {
    var value = UInt32(bytes[0]) & (0xFF >> UInt32(bytes.count + 1))
    for byte in bytes.dropFirst() {
      value = value << 6 | UInt32(byte & 0x3F)
    }
    // Overlong forms and surrogates are invalid.
    let smallest: [UInt32] = [0, 0, 0x80, 0x800, 0x1_0000]
    guard value >= smallest[bytes.count], let scalar = Unicode.Scalar(value) else {
      return "\u{FFFD}"
    }
    return scalar
  }

  private mutating func interpret(_ scalar: Unicode.Scalar) {
    switch state {
    case .ground:
      ground(scalar)
    case .escape:
      sequence.unicodeScalars.append(scalar)
      switch scalar {
      case "[":
        state = .controlSequence
      case "]":
        state = .operatingSystemCommand
      case "\u{20}"..."\u{2F}":
        break  // an intermediate byte: the final one comes next
      default:
        finishUnknownSequence()
      }
    case .controlSequence:
      sequence.unicodeScalars.append(scalar)
      if ("\u{40}"..."\u{7E}").contains(scalar) {
        let text = sequence
        sequence = ""
        state = .ground
        controlSequence(text)
      }
    case .operatingSystemCommand:
      sequence.unicodeScalars.append(scalar)
      if scalar == "\u{07}" || sequence.hasSuffix("\u{1B}\\") {
        finishUnknownSequence()
      }
    }
  }

  private mutating func finishUnknownSequence() {
    unknownSequences.append(sequence)
    sequence = ""
    state = .ground
  }

  private mutating func ground(_ scalar: Unicode.Scalar) {
    switch scalar {
    case "\u{1B}":
      state = .escape
      sequence = "\u{1B}"
    case "\r":
      cursorColumn = 0
      isWrapPending = false
    case "\n":
      if lineFeedReturns {
        cursorColumn = 0
      }
      lineFeed()
    case "\t":
      cursorColumn = min((cursorColumn / 8 + 1) * 8, columns - 1)
      isWrapPending = false
    case "\u{08}":
      cursorColumn = max(cursorColumn - 1, 0)
      isWrapPending = false
    case "\u{00}"..."\u{1F}", "\u{7F}"..."\u{9F}":
      break
    default:
      put(scalar)
    }
  }

  // MARK: - Text

  private mutating func lineFeed() {
    isWrapPending = false
    if cursorRow == rows - 1 {
      scrollback.append(VirtualTerminal.text(of: cells[0]))
      cells.removeFirst()
      cells.append(Array(repeating: .blank, count: columns))
      scrolls += 1
    } else {
      cursorRow += 1
    }
  }

  private mutating func put(_ scalar: Unicode.Scalar) {
    let width = VirtualTerminal.columns(of: scalar)
    guard width > 0 else {
      attachToPreviousCell(scalar)
      return
    }
    let isWide = width == 2 && columns > 1
    if isWrapPending || (isWide && cursorColumn == columns - 1) {
      wraps += 1
      cursorColumn = 0
      lineFeed()
    }
    clear(row: cursorRow, column: cursorColumn)
    cells[cursorRow][cursorColumn] = .text(String(scalar), isWide: isWide)
    if isWide {
      clear(row: cursorRow, column: cursorColumn + 1)
      cells[cursorRow][cursorColumn + 1] = .continuation
    }
    let next = cursorColumn + (isWide ? 2 : 1)
    if next >= columns {
      cursorColumn = columns - 1
      isWrapPending = true
    } else {
      cursorColumn = next
    }
  }

  /// Adds a zero-width scalar (a combining mark, a joiner, a variation selector) to the
  /// character written last on the cursor's row; dropped when there is none.
  private mutating func attachToPreviousCell(_ scalar: Unicode.Scalar) {
    var column = isWrapPending ? cursorColumn : cursorColumn - 1
    if column >= 0, cells[cursorRow][column] == .continuation {
      column -= 1
    }
    guard column >= 0, case .text(let text, let isWide) = cells[cursorRow][column] else { return }
    cells[cursorRow][column] = .text(text + String(scalar), isWide: isWide)
  }

  /// Blanks the cell, and the other half of a wide character that covers it.
  private mutating func clear(row: Int, column: Int) {
    guard column >= 0, column < columns else { return }
    switch cells[row][column] {
    case .continuation:
      if column > 0 {
        cells[row][column - 1] = .blank
      }
    case .text(_, isWide: true):
      if column + 1 < columns {
        cells[row][column + 1] = .blank
      }
    case .text, .blank:
      break
    }
    cells[row][column] = .blank
  }

  private mutating func clear(row: Int, columns range: Range<Int>) {
    for column in range {
      clear(row: row, column: column)
    }
  }

  private static func text(of row: [Cell]) -> String {
    var text = ""
    for cell in row {
      switch cell {
      case .blank: text += " "
      case .text(let character, _): text += character
      case .continuation: break
      }
    }
    while text.last == " " {
      text.removeLast()
    }
    return text
  }

  // MARK: - Control sequences

  private mutating func controlSequence(_ text: String) {
    // ESC [ parameters final: the parameters are digits and semicolons, after an optional `?`.
    var body = Substring(text.dropFirst(2))
    guard let final = body.popLast() else { return }
    let isPrivate = body.first == "?"
    if isPrivate {
      body = body.dropFirst()
    }
    let numbers = body.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
    guard numbers.allSatisfy({ $0 != nil }) || body.isEmpty else {
      unknownSequences.append(text)
      return
    }
    let parameter = numbers.first.flatMap { $0 } ?? 0
    let count = max(parameter, 1)
    switch (isPrivate, final, parameter) {
    case (true, "l", 25):
      isCursorVisible = false
    case (true, "h", 25):
      isCursorVisible = true
    case (false, "m", _):
      break
    case (false, "A", _):
      cursorRow = max(cursorRow - count, 0)
      isWrapPending = false
    case (false, "B", _):
      cursorRow = min(cursorRow + count, rows - 1)
      isWrapPending = false
    case (false, "C", _):
      cursorColumn = min(cursorColumn + count, columns - 1)
      isWrapPending = false
    case (false, "D", _):
      cursorColumn = max(cursorColumn - count, 0)
      isWrapPending = false
    case (false, "G", _):
      cursorColumn = min(count, columns) - 1
      isWrapPending = false
    case (false, "K", 0...2):
      eraseInLine(parameter)
    case (false, "J", 0...2):
      eraseInLine(parameter)
      let below = parameter == 1 ? 0..<cursorRow : (parameter == 0 ? cursorRow + 1 : 0)..<rows
      for row in below where row != cursorRow {
        cells[row] = Array(repeating: .blank, count: columns)
      }
    default:
      unknownSequences.append(text)
    }
  }

  /// Erases to the end of the line (0), from its start through the cursor (1), or all of it (2).
  private mutating func eraseInLine(_ mode: Int) {
    let range =
      switch mode {
      case 0: cursorColumn..<columns
      case 1: 0..<(cursorColumn + 1)
      default: 0..<columns
      }
    clear(row: cursorRow, columns: range)
    isWrapPending = false
  }

  // MARK: - Widths

  /// Where a scalar is two columns wide, after the East Asian Width property's wide (W) and
  /// fullwidth (F) blocks, as `wcwidth` implementations have them; single emoji that are
  /// pictures by default are covered by Emoji_Presentation instead.
  private static let wideRanges: [ClosedRange<UInt32>] = [
    0x1100...0x115F,  // Hangul Jamo initial consonants
    0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols
    0x3041...0x33FF,  // kana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
    0x3400...0x4DBF,  // CJK extension A
    0x4E00...0x9FFF,  // CJK unified ideographs
    0xA000...0xA4CF,  // Yi
    0xA960...0xA97F,  // Hangul Jamo extended A
    0xAC00...0xD7A3,  // Hangul syllables
    0xF900...0xFAFF,  // CJK compatibility ideographs
    0xFE10...0xFE19,  // vertical forms
    0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
    0xFF00...0xFF60,  // fullwidth ASCII variants
    0xFFE0...0xFFE6,  // fullwidth signs
    0x1F200...0x1F2FF,  // enclosed ideographic supplement
    0x1F300...0x1F64F,  // pictographs, emoticons
    0x1F680...0x1F6FF,  // transport and map symbols
    0x1F900...0x1F9FF,  // supplemental symbols and pictographs
    0x1FA70...0x1FAFF,  // symbols and pictographs extended A
    0x20000...0x2FFFD,  // CJK extensions B to F, compatibility supplement
    0x30000...0x3FFFD,  // CJK extension G and beyond
  ]

  /// The columns a scalar takes here, one scalar at a time, without grapheme clusters.
  ///
  /// - 0 for combining marks (nonspacing and enclosing) and format characters such as the
  ///   zero-width joiner, and for variation selectors, which are nonspacing marks: such a
  ///   scalar joins the character before it;
  /// - 2 for the blocks in the wide table and for every scalar with the Emoji_Presentation
  ///   property;
  /// - 1 for the rest.
  ///
  /// Real terminals differ on emoji sequences: an emoji made of several scalars (a flag, a
  /// family joined with U+200D) counts here as the sum of its pictographs.
  package static func columns(of scalar: Unicode.Scalar) -> Int {
    if scalar.isASCII {
      return 1
    }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format:
      return 0
    default:
      if scalar.properties.isEmojiPresentation
        || wideRanges.contains(where: { $0.contains(scalar.value) })
      {
        return 2
      }
      return 1
    }
  }

  /// The columns `text` takes: the sum of its scalars'.
  package static func columns(of text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + columns(of: $1) }
  }
}
