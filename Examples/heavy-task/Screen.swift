import TaskProgress
import TaskProgressAdapters

/// The interactive screen: the "Perform a Heavy Task" view, drawn with escape sequences.
///
/// ```
///  heavy-task  the "Perform a Heavy Task" view, in a terminal
///
///  ╭────────────────────────╮
///  │  Perform a Heavy Task  │      highlighted while it has focus, dimmed while a run is active
///  ╰────────────────────────╯
///
///  Heavy task ▕███████▍      ▏  52%  26/50  24.8 it/s  ETA 0:01  Processing object 27 of 50
///
///  p pause · c cancel · q quit           the keys that act now: Enter press · q quit while idle,
///                                        p resume · c cancel · q quit while paused
/// ```
@MainActor
final class Screen {
  static let buttonTitle = "Perform a Heavy Task"
  static let progressRow = 7

  private let output: TerminalStream
  /// The part of the screen the terminal renderer draws into.
  let progressView: ProgressViewRegion
  /// The phase of the runner the screen shows: the button is enabled and the hint line offers
  /// Enter while no run is active, and it offers `p` to pause or resume while one is.
  var phase = RunPhase.idle {
    didSet {
      if phase.isActive != oldValue.isActive { drawButton() }
      if Hints(phase) != Hints(oldValue) { drawHints() }
    }
  }
  private var isButtonEnabled: Bool { !phase.isActive }

  /// The keys the hint line offers: they depend on whether a run is active, and paused.
  private enum Hints {
    case idle, running, paused

    init(_ phase: RunPhase) {
      switch phase {
      case .running: self = .running
      case .paused: self = .paused
      case .idle, .finished, .failed, .cancelled: self = .idle
      }
    }

    /// The keys and what each does.
    var keys: [(key: String, action: String)] {
      switch self {
      case .idle: [("Enter", "press"), ("q", "quit")]
      case .running: [("p", "pause"), ("c", "cancel"), ("q", "quit")]
      case .paused: [("p", "resume"), ("c", "cancel"), ("q", "quit")]
      }
    }
  }

  init(output: TerminalStream) {
    self.output = output
    self.progressView = ProgressViewRegion(screen: output, row: Screen.progressRow)
  }

  /// Clears the screen and draws everything, at the current width.
  func redraw() {
    output.write("\u{1B}[2J")
    let columns = output.columns
    move(to: 1)
    let title = " \u{1B}[1mheavy-task\u{1B}[0m"
    let subtitle = "  \u{1B}[2mthe \"\(Screen.buttonTitle)\" view, in a terminal\u{1B}[0m"
    output.write(columns > 60 ? title + subtitle : title)
    drawButton()
    drawHints()
    progressView.redraw()
  }

  /// Draws the hint line: each key and what it does (`p pause · c cancel · q quit`), or only the
  /// keys (`p c q`) on a narrow screen.
  private func drawHints() {
    let keys = Hints(phase).keys
    let dot = output.capabilities.supportsUnicode ? "·" : "-"
    let line =
      output.columns > 33
      ? keys.map { "\u{1B}[2m\($0.key)\u{1B}[0m \($0.action)" }.joined(separator: " \(dot) ")
      : "\u{1B}[2m" + keys.map(\.key).joined(separator: " ") + "\u{1B}[0m"
    move(to: Screen.progressRow + 3)
    output.write(" " + line + "\u{1B}[K")
  }

  private func drawButton() {
    let unicode = output.capabilities.supportsUnicode
    let style = isButtonEnabled ? "\u{1B}[1m" : "\u{1B}[2m"
    let face = isButtonEnabled ? "\u{1B}[7m" : "\u{1B}[2m"
    let title = "  \(Screen.buttonTitle)  "
    guard output.columns > title.count + 3 else {
      // Too narrow for the box: the face alone, cut to the width so that it does not wrap.
      for row in 3...5 { clear(row) }
      move(to: 4)
      let shown = String(Screen.buttonTitle.prefix(max(output.columns - 2, 0)))
      output.write(" " + face + shown + "\u{1B}[0m\u{1B}[K")
      return
    }
    let (topLeft, topRight, bottomLeft, bottomRight, horizontal, vertical) =
      unicode ? ("╭", "╮", "╰", "╯", "─", "│") : ("+", "+", "+", "+", "-", "|")
    let border = String(repeating: horizontal, count: title.count)
    move(to: 3)
    output.write(" " + style + topLeft + border + topRight + "\u{1B}[0m\u{1B}[K")
    move(to: 4)
    output.write(
      " " + style + vertical + "\u{1B}[0m" + face + title + "\u{1B}[0m" + style + vertical
        + "\u{1B}[0m\u{1B}[K")
    move(to: 5)
    output.write(" " + style + bottomLeft + border + bottomRight + "\u{1B}[0m\u{1B}[K")
  }

  private func clear(_ row: Int) {
    move(to: row)
    output.write("\u{1B}[K")
  }

  private func move(to row: Int) {
    output.write("\u{1B}[\(row);1H")
  }
}

/// A ``TerminalOutput`` that keeps a terminal renderer inside two rows of the screen: the bar's row
/// and the one below it, where a final status that does not fit after the bar goes.
///
/// The renderer writes as it would to a terminal (carriage return, line, erase to the end of the
/// line; a newline at the end of a run); this region moves the cursor to its row before each
/// write, leaves the cursor to the screen (which keeps it hidden), and remembers what it shows so
/// that the screen can be redrawn after a resize.
@MainActor
final class ProgressViewRegion: TerminalOutput {
  private let screen: TerminalStream
  private let row: Int
  /// What each of the two rows shows, without the escape sequences that position it.
  private var rows = ["\u{1B}[2m  Press Enter to perform the heavy task.\u{1B}[0m", ""]
  private var currentRow = 0
  /// A newline was written; the next text goes on the next row.
  private var pendingNewline = false

  init(screen: TerminalStream, row: Int) {
    self.screen = screen
    self.row = row
  }

  var capabilities: TerminalCapabilities { screen.capabilities }
  var columns: Int { screen.columns - 1 }  // a one-column margin on the left

  /// Starts a new run in the region: the status row of the last run is cleared.
  func beginRun() {
    rows[1] = ""
    draw(1)
    currentRow = 0
    pendingNewline = false
  }

  func write(_ text: String) {
    let visible = text.replacing("\u{1B}[?25l", with: "").replacing("\u{1B}[?25h", with: "")
    for (index, line) in visible.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      if index > 0 {
        pendingNewline = true
      }
      guard !line.isEmpty else { continue }
      if pendingNewline {
        currentRow = min(currentRow + 1, rows.count - 1)
        rows[currentRow] = ""
        pendingNewline = false
      }
      var content = String(line)
      if let lastReturn = content.lastIndex(of: "\r") {
        content = String(content[content.index(after: lastReturn)...])
        rows[currentRow] = ""
      }
      rows[currentRow] += content.replacing("\u{1B}[K", with: "")
      draw(currentRow)
    }
  }

  /// Draws both rows again, as after a resize.
  func redraw() {
    draw(0)
    draw(1)
  }

  private func draw(_ index: Int) {
    // The bar's row is cut to the width, so that a line drawn at an older width never wraps;
    // the status row is written whole, as the renderer meant, and may wrap onto the blank row
    // below it, which is cleared first.
    let text = index == 0 ? ProgressViewRegion.truncated(rows[index], to: columns) : rows[index]
    if index == 1 {
      screen.write("\u{1B}[\(row + 2);1H\u{1B}[K")
    }
    screen.write("\u{1B}[\(row + index);1H \(text)\u{1B}[0m\u{1B}[K")
  }

  /// `text` cut to `width` visible columns, escape sequences kept whole and not counted: a line
  /// drawn at the old width, shown again after the terminal got narrower.
  static func truncated(_ text: String, to width: Int) -> String {
    var result = ""
    var visible = 0
    var inEscape = false
    for character in text {
      if character == "\u{1B}" {
        inEscape = true
      } else if inEscape {
        if character.isLetter { inEscape = false }
      } else {
        guard visible < width else { return result + "\u{1B}[0m" }
        visible += 1
      }
      result.append(character)
    }
    return result
  }
}
