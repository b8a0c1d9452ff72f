/// A key typed on a ``TerminalConsole``'s input.
///
/// A character key is written as a literal, so that a `switch` over the console's events reads
/// as the keys it handles; upper and lower case are different keys:
///
/// ```swift
/// @MainActor
/// func handle(_ event: ConsoleEvent, runner: TaskRunner) {
///   switch event {
///   case .key("p"), .key("P"): runner.isPaused ? runner.resume() : runner.pause()
///   case .key(.enter): runner.start { reporter in reporter.report(completed: 1, of: 1) }
///   case .key(.control("l")): break  // Ctrl-L: redraw
///   default: break
///   }
/// }
/// ```
///
/// Ctrl-C and Ctrl-D are no keys: they arrive as ``ConsoleEvent/interrupt`` and
/// ``ConsoleEvent/endOfInput``, as they do when the terminal is not in raw mode. The escape
/// sequences of arrows, function keys and the like are skipped.
public enum ConsoleKey: Hashable, Sendable {
  /// A printable character: a letter, a digit, a punctuation mark, a space, or any other
  /// character of the input's UTF-8.
  case character(Character)
  /// Return or Enter.
  case enter
  /// Tab.
  case tab
  /// Backspace (Delete on a Mac keyboard).
  case backspace
  /// Ctrl with a letter, in lower case: `control("l")` for Ctrl-L. Ctrl-C, Ctrl-D, Ctrl-H,
  /// Ctrl-I, Ctrl-J and Ctrl-M send what ``ConsoleEvent/interrupt``,
  /// ``ConsoleEvent/endOfInput``, ``backspace``, ``tab`` and ``enter`` stand for.
  case control(Character)
}

extension ConsoleKey: ExpressibleByExtendedGraphemeClusterLiteral {
  /// The key of a character: `"q"` is `.character("q")`.
  ///
  /// ```swift
  /// assert(("q" as ConsoleKey) == .character("q"))
  /// ```
  public init(extendedGraphemeClusterLiteral character: Character) {
    self = .character(character)
  }
}
