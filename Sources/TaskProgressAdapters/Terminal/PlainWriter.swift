/// Writes a renderer's plain lines, for a pipe, a file or a terminal without escape sequences:
/// whole lines with no carriage return and no escape sequence, those of one event in one write.
@MainActor
struct PlainWriter {
  let output: any TerminalOutput

  /// Writes `lines`, each ended by a newline; nothing when there are none.
  func write(_ lines: [String]) {
    if !lines.isEmpty {
      output.write(lines.map { $0 + "\n" }.joined())
    }
  }
}
