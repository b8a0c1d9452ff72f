public import TaskProgressAdapters

extension TerminalConsole {
  /// Calls `stop` on the main actor with the exit status each signal asks for: `.interrupted` for
  /// SIGINT (or Ctrl-C), `.terminated` for SIGTERM and SIGHUP; keys are left to the caller.
  ///
  /// - Returns: The listening task; cancelling it gives the signals back.
  public func listenForSignals(
    _ stop: @escaping @MainActor (ExitStatus) -> Void
  ) -> Task<Void, Never> {
    let events = self.events
    return Task {
      for await event in events {
        switch event {
        case .interrupt: stop(.interrupted)
        case .terminate, .hangUp: stop(.terminated)
        case .key, .resize, .endOfInput: break
        }
      }
    }
  }
}
