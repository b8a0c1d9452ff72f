import TaskProgress
import TaskProgressTestSupport

@testable import TaskProgressAdapters

/// An in-memory terminal of a chosen size and capabilities: what a renderer wrote, byte for byte,
/// and, when asked for, the screen it drew on.
@MainActor
final class MemoryTerminal: TerminalOutput {
  var capabilities: TerminalCapabilities
  var columns: Int
  /// The height a renderer reads; `nil` for unknown.
  var rows: Int?
  private(set) var output = ""
  /// Every write with the time it came, when the terminal was given a clock.
  private(set) var writes: [(time: Duration, text: String)] = []
  /// How many times `write` was called.
  private(set) var writeCount = 0
  /// The screen every write is fed to, when the terminal emulates one: `rows` high, or 24.
  private(set) var screen: VirtualTerminal?
  private let now: (() -> Duration)?

  init(
    columns: Int = 60, rows: Int? = nil,
    capabilities: TerminalCapabilities = .interactiveUnicode, emulatesScreen: Bool = false,
    now: (() -> Duration)? = nil
  ) {
    self.columns = columns
    self.rows = rows
    self.capabilities = capabilities
    self.now = now
    if emulatesScreen {
      screen = VirtualTerminal(columns: columns, rows: rows ?? 24)
    }
  }

  func write(_ text: String) {
    output += text
    writeCount += 1
    screen?.feed(text)
    if let now {
      writes.append((now(), text))
    }
  }

  /// Changes the size the renderer reads, and the emulated screen's.
  func resize(columns: Int, rows: Int) {
    self.columns = columns
    self.rows = rows
    screen?.resize(columns: columns, rows: rows)
  }

  /// The output with escape sequences spelled out, for readable assertions.
  var visible: String {
    output.replacing("\u{1B}", with: "⎋").replacing("\r", with: "⏎")
  }

  /// The output split into lines.
  var lines: [String] {
    output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// The interactive redraws: the text between each carriage return and the erase-line sequence.
  var redraws: [String] {
    output.split(separator: "\r", omittingEmptySubsequences: false).dropFirst().map {
      String($0.prefix { $0 != "\u{1B}" })
    }
  }

  func clear() {
    output = ""
  }
}

extension TerminalCapabilities {
  /// A UTF-8 terminal without colour.
  static let interactiveUnicode = TerminalCapabilities(
    redrawing: .anyRows, supportsUnicode: true, supportsColor: false)
  /// A colour UTF-8 terminal.
  static let interactiveColor = TerminalCapabilities(
    redrawing: .anyRows, supportsUnicode: true, supportsColor: true)
  /// A terminal in the C locale.
  static let interactiveASCII = TerminalCapabilities(
    redrawing: .anyRows, supportsUnicode: false, supportsColor: false)
  /// `TERM=dumb`.
  static let dumb = TerminalCapabilities(
    redrawing: .currentRow, supportsUnicode: false, supportsColor: false)
}
