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
// The terminal's modes are restored with tcsetattr, which these platforms do not have.
#error("TaskProgressAdapters needs a POSIX terminal (termios): not on this platform")
#else
#error("Unsupported platform: TaskProgressAdapters needs a POSIX C library")
#endif

/// What must be undone on the terminal if the process ends now, kept where a signal handler and
/// an `atexit` handler can undo it: atomics and memory that is never freed.
///
/// Two things may need undoing, each recorded by its owner on the main actor:
/// - the cursor a terminal renderer hid (``TerminalSignalGuard``);
/// - the modes, cursor and alternate screen of a ``TerminalConsole`` that began.
///
/// ``restoreNow()`` undoes each at most once, with async-signal-safe calls only; the router's
/// signal handler calls it before a signal ends the process, and an `atexit` handler, registered
/// the first time anything is recorded, calls it when the process exits.
enum TerminalRestoration {
  /// Records that the cursor of `fileDescriptor` is hidden by a renderer.
  @MainActor
  static func cursorHidden(on fileDescriptor: Int32) {
    registerExitHandler()
    // Written before the flag that publishes it.
    cursorDescriptor.store(fileDescriptor, ordering: .relaxed)
    isCursorHidden.store(true, ordering: .releasing)
  }

  /// Records that no renderer hides the cursor any more.
  @MainActor
  static func cursorShown() {
    isCursorHidden.store(false, ordering: .releasing)
  }

  /// Records the state a console put the terminal in: the modes to put back on `input`, if it
  /// changed them, and the sequence it wrote on `output`, if any.
  ///
  /// Returns `false`, recording nothing, while another console's state is recorded: the
  /// terminal as that one found it is what an ending process restores.
  @MainActor
  static func consoleBegan(
    input: Int32, modes: termios?, output: Int32, sequence: ConsoleSequence?
  ) -> Bool {
    guard consoleState.load(ordering: .acquiring) == 0 else { return false }
    registerExitHandler()
    if let modes {
      savedModes.pointee = modes
    }
    consoleInput.store(input, ordering: .relaxed)
    consoleOutput.store(output, ordering: .relaxed)
    consoleState.store(
      (modes == nil ? 0 : ConsoleBits.modes) | (sequence?.rawValue ?? 0), ordering: .releasing)
    return true
  }

  /// Records that the console restored the terminal itself.
  @MainActor
  static func consoleRestored() {
    consoleState.store(0, ordering: .releasing)
  }

  /// Restores what is recorded and clears it: the renderer's cursor, then the console's screen.
  ///
  /// The console's modes come last. Only async-signal-safe calls.
  static func restoreNow() {
    if isCursorHidden.exchange(false, ordering: .acquiringAndReleasing) {
      writeAll(cursorDescriptor.load(ordering: .relaxed), renderingReset)
    }
    let state = consoleState.exchange(0, ordering: .acquiringAndReleasing)
    if let sequence = ConsoleSequence(rawValue: state & ~ConsoleBits.modes) {
      writeAll(consoleOutput.load(ordering: .relaxed), sequence.restoring)
    }
    if state & ConsoleBits.modes != 0 {
      _ = tcsetattr(consoleInput.load(ordering: .relaxed), TCSANOW, savedModes)
    }
  }

  @MainActor private static var isExitHandlerRegistered = false

  @MainActor
  private static func registerExitHandler() {
    guard !isExitHandlerRegistered else { return }
    isExitHandlerRegistered = true
    atexit(restoreAtExit)
  }
}

/// The escape sequences a console wrote when it began, which decide what restores them.
enum ConsoleSequence: UInt8 {
  /// The cursor hidden.
  case cursorHidden = 2
  /// The alternate screen shown and the cursor hidden on it.
  case alternateScreen = 4

  /// What a console writes when it begins.
  var beginning: String {
    switch self {
    case .cursorHidden: "\u{1B}[?25l"
    case .alternateScreen: "\u{1B}[?1049h\u{1B}[?25l"
    }
  }

  /// What puts the terminal back: colours reset, the cursor shown, the normal screen.
  var restoring: StaticString {
    switch self {
    case .cursorHidden: "\u{1B}[0m\u{1B}[?25h"
    case .alternateScreen: "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
    }
  }
}

private enum ConsoleBits {
  /// The console changed the terminal's modes.
  static let modes: UInt8 = 1
}

/// Ends the open line, resets the colours and shows the cursor: what a renderer's cursor needs.
private let renderingReset: StaticString = "\u{1B}[0m\u{1B}[?25h\n"

private let isCursorHidden = Atomic<Bool>(false)
private let cursorDescriptor = Atomic<Int32>(STDOUT_FILENO)
/// The console's ``ConsoleSequence`` raw value, with ``ConsoleBits/modes`` when it changed the
/// modes; 0 when there is nothing to restore.
private let consoleState = Atomic<UInt8>(0)
private let consoleInput = Atomic<Int32>(-1)
private let consoleOutput = Atomic<Int32>(-1)

// SAFETY: written only on the main actor in `consoleBegan`, before `consoleState` publishes it
// with a releasing store; read only by `restoreNow` after the acquiring exchange that takes
// that state, at most once per publication. Never freed, so a handler never reads freed memory.
nonisolated(unsafe) private let savedModes: UnsafeMutablePointer<termios> = {  // SAFETY: above
  let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
  pointer.initialize(to: termios())
  return pointer
}()

/// Writes all of `text`, retrying after interruptions: async-signal-safe.
private func writeAll(_ descriptor: Int32, _ text: StaticString) {
  var offset = 0
  while offset < text.utf8CodeUnitCount {
    let written = write(descriptor, text.utf8Start + offset, text.utf8CodeUnitCount - offset)
    if written > 0 {
      offset += written
    } else if written < 0 && errno == EINTR {
      continue
    } else {
      return
    }
  }
}

/// The exit handler: restores what is still recorded when the process exits.
private func restoreAtExit() {
  TerminalRestoration.restoreNow()
}
