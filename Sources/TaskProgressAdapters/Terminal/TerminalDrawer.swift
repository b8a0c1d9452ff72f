/// The live area of a terminal renderer, as indicatif's `DrawState`: the rows redrawn in place at
/// the bottom of the output, the lines written above them for good, the cursor, hidden while the
/// area is open, and the redraw throttle.
///
/// A ``TerminalRenderer`` draws an area of one row, a ``TerminalGroupRenderer`` a row for each
/// running member and a total. They fit their lines to the size the drawer reads before each
/// draw; the drawer writes them in one write a draw, and none when the area would look as it
/// does. Without escape sequences it can only go back to the start of the row it is on: it keeps
/// one row there, and blanks with spaces what a longer line left behind.
@MainActor
final class TerminalDrawer {
  /// The longest the area waits between two redraws: 20 per second, as indicatif.
  static let redrawInterval: Duration = .milliseconds(50)
  /// The height assumed when the output does not know its own.
  static let assumedRows = 24

  struct Size: Equatable {
    var columns: Int
    var rows: Int
  }

  /// What one draw writes, in this order.
  struct Lines {
    /// Lines fitted to the width, written above the area for good.
    var above: [String] = []
    /// Text of any width, which may wrap, written above the area for good.
    var printed: [String] = []
    /// The area's rows, fitted to the width.
    var area: [String] = []
    /// Whether the area closes: its rows stay, the output goes on below them, and the cursor is
    /// shown again.
    var closes = false
  }

  let output: any TerminalOutput
  /// The descriptor of a ``TerminalStream`` whose cursor ``TerminalSignalGuard`` restores while
  /// it is hidden; `nil` when signals are left alone.
  private let guardedDescriptor: Int32?
  private var isCursorHidden = false
  /// Whether an area is open, the cursor at the end of its last row.
  private(set) var isOpen = false
  /// The rows of the open area as last drawn.
  private var rows: [String] = []
  private var lastSize: Size?
  /// When a frame last drew; `nil` until the first frame of an area.
  private var lastDraw: Duration?

  init(output: any TerminalOutput, restoresOnSignals: Bool) {
    self.output = output
    guardedDescriptor = restoresOnSignals ? (output as? TerminalStream)?.fileDescriptor : nil
  }

  /// Draws the lines `layout` fits to the terminal's size, read once for the draw.
  ///
  /// A frame at `time` draws only when it is due: when `force`, on the first frame of an area,
  /// after a resize, or once ``redrawInterval`` has passed since the last frame that drew.
  func draw(at time: Duration? = nil, force: Bool = false, _ layout: (Size) -> Lines) {
    let size = Size(
      columns: max(output.columns, 1), rows: max(output.rows ?? Self.assumedRows, 1))
    if let time {
      if !force, let lastDraw, lastSize == size,
        !TerminalFormat.isRedrawDue(after: time - lastDraw, interval: Self.redrawInterval)
      {
        return
      }
      lastDraw = time
    }
    write(layout(size), size: size)
  }

  /// Closes the area, leaving its rows as they are on the screen, and shows the cursor again.
  func close() {
    if isOpen, let lastSize {
      write(Lines(area: rows, closes: true), size: lastSize)
    }
  }

  private func write(_ lines: Lines, size: Size) {
    defer { lastSize = size }
    guard
      !isOpen || lines.closes || !lines.above.isEmpty || !lines.printed.isEmpty
        || lines.area != rows || lastSize != size
    else { return }
    let escapes = output.capabilities.redrawing == .anyRows
    // From the start of the area's first row, each line in the place of one of its rows.
    var text = "\r" + (rows.count > 1 ? "\u{1B}[\(rows.count - 1)A" : "")
    var row = 0
    var isCleared = false
    func put(_ line: String, fitted: Bool = true, newline: Bool = true) {
      if !fitted && escapes && !isCleared && row < rows.count {
        // Text that may wrap clears the area below it rather than erasing row by row: an
        // erase at the end of a full row takes its last character on some terminals.
        text += "\u{1B}[J"
        isCleared = true
      }
      text += line
      if fitted && escapes {
        text += "\u{1B}[K"
      } else if fitted && row < rows.count {
        let left = TerminalFormat.columns(rows[row]) - TerminalFormat.columns(line)
        text += String(repeating: " ", count: max(left, 0))
      }
      text += newline ? "\n" : ""
      row += 1
    }
    lines.above.forEach { put($0) }
    lines.printed.forEach { put($0, fitted: false) }
    for (index, line) in lines.area.enumerated() {
      put(line, newline: lines.closes || index < lines.area.count - 1)
    }
    if escapes && !isCleared && row < rows.count {
      text += "\u{1B}[J"
    }
    isOpen = !lines.closes
    rows = isOpen ? lines.area : []
    if !isOpen {
      lastDraw = nil
    } else if !isCursorHidden && escapes {
      isCursorHidden = true
      if let guardedDescriptor {
        TerminalSignalGuard.acquire(fileDescriptor: guardedDescriptor)
      }
      text = "\u{1B}[?25l" + text
    }
    let showsCursor = !isOpen && isCursorHidden
    output.write(showsCursor ? text + "\u{1B}[?25h" : text)
    // Released once the cursor is back, so that a signal in between still restores it.
    if showsCursor {
      isCursorHidden = false
      if guardedDescriptor != nil {
        TerminalSignalGuard.release()
      }
    }
  }
}
