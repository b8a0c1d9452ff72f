import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif os(Windows) || os(WASI)
// The cursor comes back on SIGINT, SIGTERM and SIGHUP through sigaction, which these platforms
// do not have.
#error("TaskProgressAdapters needs POSIX signals (sigaction): not on this platform")
#else
#error("Unsupported platform: TaskProgressAdapters needs a POSIX C library")
#endif

/// Shows the cursor again if the process is interrupted, terminated or exits while a bar hides it.
///
/// While at least one terminal renderer has hidden the cursor, a process that exits (through
/// `exit`, or by returning from `main`) shows it again from an `atexit` handler, and `SIGINT`,
/// `SIGTERM` and `SIGHUP` get a handler, but only where their disposition is the default one, so a program that handles
/// these signals itself keeps its handlers (and calls ``TerminalRenderer/restoreTerminal()`` from
/// them). The handler writes the restoring sequence with `write(2)`, which is async-signal-safe,
/// restores the default disposition and raises the signal again, so the process ends exactly as it
/// would have, with the cursor back.
@MainActor
enum TerminalSignalGuard {
  private static var holders = 0
  private static var installed: [Int32] = []
  private static let signals = [SIGINT, SIGTERM, SIGHUP]

  private static var isExitHandlerRegistered = false

  /// Installs the handlers, if this is the first holder.
  static func acquire(fileDescriptor: Int32) {
    holders += 1
    guard holders == 1 else { return }
    // Written before any handler is installed: see the SAFETY note on `guardedDescriptor`.
    guardedDescriptor.pointee = fileDescriptor
    isCursorHidden.store(true, ordering: .releasing)
    if !isExitHandlerRegistered {
      isExitHandlerRegistered = true
      atexit(restoreCursorAtExit)
    }
    for signal in signals where currentHandler(of: signal) == nil && !hasSignalInfoHandler(signal) {
      setHandler(restoreCursorAndResignal, for: signal)
      installed.append(signal)
    }
  }

  /// Removes the handlers, if this was the last holder and nobody replaced them meanwhile.
  static func release() {
    guard holders > 0 else { return }
    holders -= 1
    guard holders == 0 else { return }
    isCursorHidden.store(false, ordering: .releasing)
    let ours = unsafeBitCast(restoreCursorAndResignal as SignalHandler, to: UnsafeRawPointer.self)
    for signal in installed {
      if let current = currentHandler(of: signal),
        unsafeBitCast(current, to: UnsafeRawPointer.self) == ours
      {
        setHandler(nil, for: signal)
      }
    }
    installed = []
  }
}

private typealias SignalHandler = @convention(c) (Int32) -> Void

// SAFETY: written only on the main actor in `TerminalSignalGuard.acquire`, while no handler that
// reads it is installed (it is written before `sigaction` installs the first one); read only by
// `restoreCursorAndResignal`. The allocation is never freed, so the handler never reads freed memory.
nonisolated(unsafe) private let guardedDescriptor: UnsafeMutablePointer<Int32> = {  // SAFETY: above
  let pointer = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
  pointer.initialize(to: STDOUT_FILENO)
  return pointer
}()

/// Whether a renderer holds the cursor hidden; read by the exit handler, on whichever thread exits.
private let isCursorHidden = Atomic<Bool>(false)

/// Ends the open line, resets the colours and shows the cursor: async-signal-safe.
private func writeRestoringSequence() {
  let sequence: StaticString = "\u{1B}[0m\u{1B}[?25h\n"
  _ = write(guardedDescriptor.pointee, sequence.utf8Start, sequence.utf8CodeUnitCount)
}

/// The signal handler: only async-signal-safe calls (`write`, `sigaction`, `raise`).
private func restoreCursorAndResignal(_ signal: Int32) {
  writeRestoringSequence()
  setHandler(nil, for: signal)
  raise(signal)
}

/// The exit handler: shows the cursor if a bar still hides it when the process exits.
private func restoreCursorAtExit() {
  if isCursorHidden.exchange(false, ordering: .acquiring) {
    writeRestoringSequence()
  }
}

/// The current plain handler of `signal`; `nil` for the default disposition.
private func currentHandler(of signal: Int32) -> SignalHandler? {
  var action = sigaction()
  sigaction(signal, nil, &action)
  #if canImport(Darwin)
  return action.__sigaction_u.__sa_handler
  #else
  return action.__sigaction_handler.sa_handler
  #endif
}

private func hasSignalInfoHandler(_ signal: Int32) -> Bool {
  var action = sigaction()
  sigaction(signal, nil, &action)
  return action.sa_flags & SA_SIGINFO != 0
}

/// Sets a plain handler for `signal`; `nil` restores the default disposition.
private func setHandler(_ handler: SignalHandler?, for signal: Int32) {
  var action = sigaction()
  #if canImport(Darwin)
  action.__sigaction_u.__sa_handler = handler
  #else
  action.__sigaction_handler.sa_handler = handler
  #endif
  sigemptyset(&action.sa_mask)
  action.sa_flags = SA_RESTART
  sigaction(signal, &action, nil)
}
