import Dispatch
public import TaskProgressAdapters

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(WASILibc)
import WASILibc
#elseif os(Windows)
import ucrt
#else
#error("Unsupported platform")
#endif

/// The standard streams, kept open for the life of the program.
public enum StandardStreams {
  /// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed.
  ///
  /// A program started with a standard stream closed (`heavy-task >&-`) would otherwise hand
  /// that number to the next file it opens, a log file or a descriptor of the system's own, and
  /// whatever it writes to standard output would go there. Call this first thing in `main`.
  public static func reserve() {
    for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
      // `open` returns the lowest free number, which is this one: the lower ones are open.
      _ = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
    }
  }
}

/// A key an example's interactive session understands.
public enum Key: Equatable, Sendable {
  /// Return or Enter: press the button, start the run.
  case enter
  /// `p`: pause or resume.
  case pause
  /// `c`: cancel.
  case cancel
  /// `q`: quit.
  case quit
  /// Ctrl-C, which arrives as a key in raw mode.
  case interrupt
  /// Ctrl-D, or the end of the input.
  case endOfInput
}

/// Turns the bytes a terminal sends into keys.
///
/// It skips the escape sequences of arrows, function keys and the like (`ESC [ … final`,
/// `ESC O x`), whose bytes could otherwise read as `c`, `p` or `q`. A sequence may arrive split
/// over reads: the decoder keeps its place between bytes.
public struct KeyDecoder: Sendable {
  private enum Place {
    case text, escape, controlSequence, singleShift
  }

  private var place = Place.text

  /// A decoder at the start of the input.
  public init() {}

  /// The key `byte` completes, if any.
  public mutating func decode(_ byte: UInt8) -> Key? {
    switch place {
    case .escape:
      place =
        byte == UInt8(ascii: "[")
        ? .controlSequence : byte == UInt8(ascii: "O") ? .singleShift : .text
      return nil
    case .controlSequence:
      if (0x40...0x7E).contains(byte) { place = .text }  // the final byte
      return nil
    case .singleShift:
      place = .text
      return nil
    case .text:
      switch byte {
      case 0x1B:
        place = .escape
        return nil
      case 0x0D, 0x0A: return .enter
      case UInt8(ascii: "p"), UInt8(ascii: "P"): return .pause
      case UInt8(ascii: "c"), UInt8(ascii: "C"): return .cancel
      case UInt8(ascii: "q"), UInt8(ascii: "Q"): return .quit
      case 0x03: return .interrupt  // Ctrl-C, a key in raw mode
      case 0x04: return .endOfInput  // Ctrl-D
      default: return nil
      }
    }
  }
}

/// The terminal as an interactive session uses it: raw keyboard input, the alternate screen if
/// asked for, and signals turned into events, all restored by ``restore()`` on every way out.
@MainActor
public final class Console {
  private var savedModes: termios?
  /// Whether the alternate screen is shown.
  private var isOnScreen = false
  private var isCursorHidden = false
  private var sources: [any DispatchSourceProtocol] = []
  private let output: TerminalStream

  /// A console that draws on `output`, standard output in the examples.
  public init(output: TerminalStream) {
    self.output = output
  }

  /// Whether both standard input and standard output are terminals that understand escape
  /// sequences (not `TERM=dumb`): the screen needs cursor movement, the keys need raw input.
  public static var isInteractive: Bool {
    isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
      && TerminalStream.standardOutput.capabilities.supportsEscapeSequences
  }

  /// Turns off line editing, echo and signal keys, and hides the cursor.
  ///
  /// Each key then arrives at once, and Ctrl-C arrives as a key. With `onAlternateScreen`, the
  /// console also switches to the alternate screen, which a full-screen view draws on; without
  /// it, the program draws where the cursor is, and what it leaves stays in the terminal's
  /// scrollback.
  public func begin(onAlternateScreen: Bool = true) {
    var modes = termios()
    if tcgetattr(STDIN_FILENO, &modes) == 0 {
      savedModes = modes
      modes.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
      modes.c_iflag &= ~tcflag_t(IXON | ICRNL)
      withUnsafeMutableBytes(of: &modes.c_cc) { bytes in
        bytes[Int(VMIN)] = 1
        bytes[Int(VTIME)] = 0
      }
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &modes)
    }
    output.write(onAlternateScreen ? "\u{1B}[?1049h\u{1B}[?25l" : "\u{1B}[?25l")
    isCursorHidden = true
    isOnScreen = onAlternateScreen
  }

  /// Leaves the alternate screen, shows the cursor and restores the terminal's modes; later calls
  /// do nothing.
  public func restore() {
    for source in sources {
      source.cancel()
    }
    sources = []
    if isCursorHidden {
      output.write("\u{1B}[0m\u{1B}[?25h" + (isOnScreen ? "\u{1B}[?1049l" : ""))
      isCursorHidden = false
      isOnScreen = false
    }
    if var modes = savedModes {
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &modes)
      savedModes = nil
    }
  }

  /// Calls `handler` on the main actor with every key typed.
  public func onKey(_ handler: @escaping @MainActor (Key) -> Void) {
    let source = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
    var decoder = KeyDecoder()
    source.setEventHandler {
      MainActor.assumeIsolated {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &bytes, bytes.count)
        guard count > 0 else {
          if count == 0 || (errno != EINTR && errno != EAGAIN) { handler(.endOfInput) }
          return
        }
        for byte in bytes[..<count] {
          if let key = decoder.decode(byte) { handler(key) }
        }
      }
    }
    source.resume()
    sources.append(source)
  }

  /// Calls `handler` on the main actor when `signal` arrives, instead of its default action.
  public func onSignal(_ signal: Int32, _ handler: @escaping @MainActor () -> Void) {
    SignalEvents.shared.on(signal, handler)
  }

  /// The same, for a session without a console.
  public static func onSignal(_ signal: Int32, _ handler: @escaping @MainActor () -> Void) {
    SignalEvents.shared.on(signal, handler)
  }
}

/// Signals as main-actor events, by the self-pipe trick.
///
/// The handler, installed with `sigaction` before `on(_:_:)` returns, only writes the signal's
/// number into a pipe (async-signal-safe), and a read source on the main queue calls the
/// registered handler. A signal that arrives a moment after registration is never lost, as it
/// could be while a dispatch signal source activates.
@MainActor
final class SignalEvents {
  static let shared = SignalEvents()
  private var handlers: [Int32: @MainActor () -> Void] = [:]
  private var source: (any DispatchSourceRead)?

  private init() {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { return }
    _ = fcntl(descriptors[1], F_SETFL, fcntl(descriptors[1], F_GETFL) | O_NONBLOCK)
    // Written before any handler that reads it is installed.
    signalPipeWriteEnd = descriptors[1]
    let reader = descriptors[0]
    let source = DispatchSource.makeReadSource(fileDescriptor: reader, queue: .main)
    source.setEventHandler {
      MainActor.assumeIsolated {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = read(reader, &bytes, bytes.count)
        guard count > 0 else { return }
        for byte in bytes[..<count] {
          SignalEvents.shared.handlers[Int32(byte)]?()
        }
      }
    }
    source.resume()
    self.source = source
  }

  func on(_ signalNumber: Int32, _ handler: @escaping @MainActor () -> Void) {
    handlers[signalNumber] = handler
    var action = sigaction()
    #if canImport(Darwin)
    action.__sigaction_u.__sa_handler = forwardSignal
    #else
    action.__sigaction_handler.sa_handler = forwardSignal
    #endif
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    sigaction(signalNumber, &action, nil)
  }
}

// SAFETY: written once, on the main actor, in `SignalEvents.init`, before `sigaction` installs
// the only reader, `forwardSignal`; never written again.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1  // SAFETY: above

/// The signal handler: one `write(2)`, which is async-signal-safe.
private func forwardSignal(_ signal: Int32) {
  var byte = UInt8(truncatingIfNeeded: signal)
  _ = write(signalPipeWriteEnd, &byte, 1)
}
