import Dispatch

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif os(Windows) || os(WASI)
// Raw input needs termios and the signals sigaction, which these platforms do not have.
#error("TaskProgressAdapters needs a POSIX terminal (termios, sigaction): not on this platform")
#else
#error("Unsupported platform: TaskProgressAdapters needs a POSIX C library")
#endif

/// The terminal as an interactive command-line tool uses it: keys as they are typed, signals as
/// events, and the terminal put back as it was found on every way out.
///
/// A console turns what a tool would otherwise handle with `termios`, `sigaction` and escape
/// sequences into one `AsyncSequence` of ``ConsoleEvent``s:
///
/// ```swift
/// @MainActor
/// func runInteractively(_ runner: TaskRunner) async {
///   let console = TerminalConsole()
///   console.begin()
///   defer { console.restore() }
///   runner.attach(TerminalRenderer(label: "Importing"))
///   for await event in console.events {
///     switch event {
///     case .key(.enter): runner.start(over: files) { file in try await importFile(file) }
///     case .key("p"): runner.isPaused ? runner.resume() : runner.pause()
///     case .key("c"): runner.cancel()
///     case .key("q"), .endOfInput, .interrupt, .terminate, .hangUp: return
///     case .resize, .key: break
///     }
///   }
/// }
/// ```
///
/// See <doc:DrawingProgressInATerminal#Read-keys-and-signals> for the whole story.
@MainActor
public final class TerminalConsole {
  /// The descriptor keys are read from; `nil` when the console reads no keys.
  public let input: Int32?
  /// Where the console writes its escape sequences, and whose size a ``ConsoleEvent/resize``
  /// announces.
  public let output: TerminalStream

  /// What ``begin(onAlternateScreen:)`` changed, to undo in ``restore()``.
  private struct Began {
    /// The modes the input had, when the console changed them.
    var modes: termios?
    /// The escape sequence written, if any.
    var sequence: ConsoleSequence?
    /// Whether ``TerminalRestoration`` holds this state for an ending process.
    var isRecorded: Bool
  }

  private var began: Began?
  private var stream: AsyncStream<ConsoleEvent>?
  /// Set while the events are delivered.
  private var continuation: AsyncStream<ConsoleEvent>.Continuation?
  private var keySource: (any DispatchSourceRead)?
  private var decoder = ConsoleKeyDecoder()
  /// Whether ``restore()`` has ended the console's use.
  private var isOver = false

  /// A console on standard input and `output`, standard output by default.
  ///
  /// It reads keys when standard input is a terminal, and none when it is a pipe or a file, so
  /// that a tool reading its data from standard input keeps it. Creating a console changes
  /// nothing: ``begin(onAlternateScreen:)`` and ``events`` do.
  ///
  /// ```swift
  /// let console = TerminalConsole()
  /// console.begin()
  /// for await event in console.events where event == .key("q") {
  ///   break
  /// }
  /// console.restore()
  /// ```
  public convenience init(output: TerminalStream = TerminalStream.standardOutput) {
    self.init(input: isatty(STDIN_FILENO) == 1 ? STDIN_FILENO : nil, output: output)
  }

  /// A console that reads keys from `input` and writes on `output`.
  ///
  /// ```swift
  /// // Signals only: a tool whose standard input is its data.
  /// let console = TerminalConsole(input: nil, output: TerminalStream.standardOutput)
  /// for await event in console.events where event == .interrupt {
  ///   break
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - input: The descriptor to read keys from: a terminal, a pipe, any readable descriptor;
  ///     the console does not close it. `nil` for no keys: the events are then signals only.
  ///   - output: Where to write the escape sequences that hide the cursor and show the
  ///     alternate screen; nothing is written unless it is an interactive terminal that
  ///     understands them.
  public init(input: Int32?, output: TerminalStream) {
    self.input = input
    self.output = output
  }

  /// Whether the input is a terminal and the output one that understands escape sequences (not
  /// `TERM=dumb`): what a full-screen or key-driven session needs.
  ///
  /// ```swift
  /// if TerminalConsole().isInteractive {
  ///   // draw the screen, read keys
  /// }
  /// ```
  public var isInteractive: Bool {
    guard let input, isatty(input) == 1 else { return false }
    return output.capabilities.redrawing == .anyRows
  }

  /// Puts the input in raw mode and hides the cursor, on the alternate screen if asked.
  ///
  /// In raw mode each key arrives as it is typed, unechoed, and Ctrl-C arrives as
  /// ``ConsoleEvent/interrupt`` rather than as a signal. With `onAlternateScreen`, the console
  /// also switches to the alternate screen, which a full-screen view draws on; without it, the
  /// tool draws where the cursor is, and what it leaves stays in the terminal's scrollback.
  ///
  /// Only what applies is done: the modes when the input is a terminal, the escape sequences
  /// when the output is an interactive terminal that understands them. ``restore()`` undoes it,
  /// and so does the process ending: by `exit`, by returning from `main`, or by `SIGINT`,
  /// `SIGTERM` or `SIGHUP` at their default disposition. Calling it again before ``restore()``
  /// does nothing.
  ///
  /// ```swift
  /// let console = TerminalConsole()
  /// console.begin(onAlternateScreen: true)
  /// defer { console.restore() }
  /// TerminalStream.standardOutput.write("Press q to quit\n")
  /// for await event in console.events where event == .key("q") {
  ///   break
  /// }
  /// ```
  public func begin(onAlternateScreen: Bool = false) {
    guard began == nil else { return }
    var state = Began(isRecorded: false)
    var modes = termios()
    if let input, tcgetattr(input, &modes) == 0 {
      state.modes = modes
      modes.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
      modes.c_iflag &= ~tcflag_t(IXON | ICRNL)
      withUnsafeMutableBytes(of: &modes.c_cc) { bytes in
        bytes[Int(VMIN)] = 1
        bytes[Int(VTIME)] = 0
      }
    }
    if output.capabilities.redrawing == .anyRows {
      state.sequence = onAlternateScreen ? .alternateScreen : .cursorHidden
    }
    // Recorded before anything changes, so that a signal in between finds what to restore.
    state.isRecorded = TerminalRestoration.consoleBegan(
      input: input ?? -1, modes: state.modes, output: output.fileDescriptor,
      sequence: state.sequence)
    SignalRouter.hold()
    began = state
    if let input, state.modes != nil {
      tcsetattr(input, TCSAFLUSH, &modes)
    }
    if let sequence = state.sequence {
      output.write(sequence.beginning)
    }
  }

  /// The keys typed on the input and the signals the process receives, in the order they come.
  ///
  /// The first use installs the console's handlers of `SIGINT`, `SIGTERM`, `SIGHUP` and
  /// `SIGWINCH`, whatever their disposition was, and starts reading keys. From then on these
  /// signals end nothing: each arrives as an event, and the tool decides what it does. The
  /// terminal is still restored when the tool then exits, and the dispositions the console
  /// found come back with ``restore()``, or when the task iterating the events is cancelled.
  ///
  /// Every use returns the same sequence: iterate it in one task at a time. After
  /// ``restore()`` it is finished.
  ///
  /// ```swift
  /// let console = TerminalConsole()
  /// for await event in console.events {
  ///   if event == .key("q") || event == .interrupt { break }
  /// }
  /// console.restore()
  /// ```
  public var events: AsyncStream<ConsoleEvent> {
    if let stream { return stream }
    let (stream, continuation) = AsyncStream.makeStream(of: ConsoleEvent.self)
    self.stream = stream
    guard !isOver, SignalRouter.listen(ObjectIdentifier(self), { self.deliver(signal: $0) }) else {
      continuation.finish()
      return stream
    }
    self.continuation = continuation
    continuation.onTermination = { _ in
      Task { @MainActor in self.stopEvents() }
    }
    if let input {
      readKeys(from: input)
    }
    return stream
  }

  /// Puts the terminal back as ``begin(onAlternateScreen:)`` found it, gives the signals back
  /// their dispositions, and finishes ``events``; later calls do nothing.
  ///
  /// Call it once the tool is done with the console, before it prints its last words: the
  /// colours reset, the cursor shown, the normal screen back, the input's modes as they were.
  ///
  /// ```swift
  /// let console = TerminalConsole()
  /// console.begin(onAlternateScreen: true)
  /// console.restore()
  /// print("Imported 12 files.")
  /// ```
  public func restore() {
    isOver = true
    stopEvents()
    guard let began else { return }
    self.began = nil
    if let sequence = began.sequence {
      output.write(String(describing: sequence.restoring))
    }
    if let input, var modes = began.modes {
      tcsetattr(input, TCSAFLUSH, &modes)
    }
    if began.isRecorded {
      TerminalRestoration.consoleRestored()
    }
    SignalRouter.release()
  }

  /// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed.
  ///
  /// A program started with a standard stream closed (`tool >&-`) would otherwise hand that
  /// number to the next file it opens, a log file or a descriptor of the system's own, and
  /// whatever it writes to standard output would go there. Call it first thing in `main`.
  ///
  /// ```swift
  /// TerminalConsole.reserveStandardStreams()
  /// ```
  nonisolated public static func reserveStandardStreams() {
    for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
      // `open` returns the lowest free number, which is this one: the lower ones are open.
      _ = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
    }
  }

  /// Reads keys from `input` on the main queue until its end.
  private func readKeys(from input: Int32) {
    let source = DispatchSource.makeReadSource(fileDescriptor: input, queue: .main)
    source.setEventHandler {
      MainActor.assumeIsolated { self.readAvailableKeys(from: input) }
    }
    source.resume()
    keySource = source
  }

  private func readAvailableKeys(from input: Int32) {
    var bytes = [UInt8](repeating: 0, count: 64)
    let count = read(input, &bytes, bytes.count)
    guard count > 0 else {
      if count == 0 || (errno != EINTR && errno != EAGAIN) {
        // Nothing more will come; a source left on an input at its end fires without end.
        keySource?.cancel()
        keySource = nil
        continuation?.yield(.endOfInput)
      }
      return
    }
    for byte in bytes[..<count] {
      if let event = decoder.decode(byte) {
        continuation?.yield(event)
      }
    }
  }

  private func deliver(signal: Int32) {
    switch signal {
    case SIGINT: continuation?.yield(.interrupt)
    case SIGTERM: continuation?.yield(.terminate)
    case SIGHUP: continuation?.yield(.hangUp)
    case SIGWINCH: continuation?.yield(.resize)
    default: break
    }
  }

  /// Stops reading keys and receiving signals, and finishes the events.
  private func stopEvents() {
    keySource?.cancel()
    keySource = nil
    SignalRouter.stopListening(ObjectIdentifier(self))
    let continuation = self.continuation
    self.continuation = nil
    continuation?.finish()
  }
}
