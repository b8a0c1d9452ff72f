/// Shows the cursor again if the process is interrupted, terminated or exits while a bar hides it.
///
/// While at least one terminal renderer has hidden the cursor, a process that exits (through
/// `exit`, or by returning from `main`) shows it again from an `atexit` handler, and `SIGINT`,
/// `SIGTERM` and `SIGHUP` show it before they end the process (see ``SignalRouter``): a signal
/// left at its default disposition gets the router's handler, which writes the restoring
/// sequence with `write(2)`, restores the default disposition and raises the signal again, so
/// the process ends exactly as it would have, with the cursor back. A signal a
/// ``TerminalConsole`` turns into an event ends nothing: the program decides, and the cursor
/// comes back when it exits or when it raises the signal again after the console's
/// ``TerminalConsole/restore()``. A program with its own `sigaction` handlers keeps them, and
/// calls ``TerminalRenderer/restoreTerminal()`` from its handling.
@MainActor
enum TerminalSignalGuard {
  private static var holders = 0

  /// Guards the cursor of `fileDescriptor`, if this is the first holder.
  static func acquire(fileDescriptor: Int32) {
    holders += 1
    guard holders == 1 else { return }
    TerminalRestoration.cursorHidden(on: fileDescriptor)
    SignalRouter.hold()
  }

  /// Stops guarding the cursor, if this was the last holder.
  static func release() {
    guard holders > 0 else { return }
    holders -= 1
    guard holders == 0 else { return }
    TerminalRestoration.cursorShown()
    SignalRouter.release()
  }
}
