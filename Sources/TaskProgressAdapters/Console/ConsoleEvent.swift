/// What a ``TerminalConsole`` reports: a key, a signal, or the end of its input.
///
/// ```swift
/// @MainActor
/// func follow(_ console: TerminalConsole, runner: TaskRunner) async {
///   for await event in console.events {
///     switch event {
///     case .key("c"): runner.cancel()
///     case .key("q"), .endOfInput, .interrupt, .terminate, .hangUp: return
///     case .resize, .key: break
///     }
///   }
/// }
/// ```
public enum ConsoleEvent: Hashable, Sendable {
  /// A key typed on the console's input.
  case key(ConsoleKey)
  /// `SIGINT`, or Ctrl-C typed while the terminal is in raw mode, where it sends no signal.
  case interrupt
  /// `SIGTERM`: the process is asked to end.
  case terminate
  /// `SIGHUP`: the terminal went away.
  case hangUp
  /// `SIGWINCH`: the terminal changed size. Read the new one from the console's
  /// ``TerminalConsole/output`` (``TerminalStream/columns``, ``TerminalStream/rows``) when you
  /// redraw.
  case resize
  /// Ctrl-D typed while the terminal is in raw mode, or the end of the input: after the end of
  /// the input no more keys come.
  case endOfInput
}
