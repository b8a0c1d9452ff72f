import TaskProgress
import TaskProgressTestSupport

@testable import TaskProgressAdapters

/// An in-memory terminal of a chosen width and capabilities: what a renderer wrote, byte for byte.
@MainActor
final class MemoryTerminal: TerminalOutput {
  var capabilities: TerminalCapabilities
  var columns: Int
  private(set) var output = ""
  /// Every write with the time it came, when the terminal was given a clock.
  private(set) var writes: [(time: Duration, text: String)] = []
  private let now: (() -> Duration)?

  init(
    columns: Int = 60, capabilities: TerminalCapabilities = .interactiveUnicode,
    now: (() -> Duration)? = nil
  ) {
    self.columns = columns
    self.capabilities = capabilities
    self.now = now
  }

  func write(_ text: String) {
    output += text
    if let now {
      writes.append((now(), text))
    }
  }

  /// The output with escape sequences spelled out, for readable assertions.
  var visible: String {
    output.replacing("\u{1B}", with: "⎋").replacing("\r", with: "⏎")
  }

  /// The output split into lines.
  var lines: [String] {
    output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  func clear() {
    output = ""
  }
}

extension TerminalCapabilities {
  /// A UTF-8 terminal without colour.
  static let interactiveUnicode = TerminalCapabilities(
    isInteractive: true, supportsEscapeSequences: true, supportsUnicode: true, supportsColor: false)
  /// A colour UTF-8 terminal.
  static let interactiveColor = TerminalCapabilities(
    isInteractive: true, supportsEscapeSequences: true, supportsUnicode: true, supportsColor: true)
  /// A terminal in the C locale.
  static let interactiveASCII = TerminalCapabilities(
    isInteractive: true, supportsEscapeSequences: true, supportsUnicode: false, supportsColor: false
  )
  /// `TERM=dumb`.
  static let dumb = TerminalCapabilities(
    isInteractive: true, supportsEscapeSequences: false, supportsUnicode: false,
    supportsColor: false)
}
