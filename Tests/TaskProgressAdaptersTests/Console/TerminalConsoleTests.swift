import Foundation
import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

extension SignalDispositionSuites {
  /// The console's keys from any input, its signals as events, and the terminal and the signal
  /// dispositions put back as they were. (An ending process's restore is checked in processes
  /// of their own: HeavyTaskTests' ConsoleProcessTests.)
  @MainActor
  @Suite("Terminal console", .timeLimit(TestScale.timeLimit(minutes: 1)))
  struct TerminalConsoleTests {
    /// An output that is no terminal: the console writes nothing on it.
    private let nowhere = TerminalStream(fileDescriptor: -1, environment: [:])

    /// The next `count` events, or those that came before the deadline.
    private func next(
      _ count: Int, of events: AsyncStream<ConsoleEvent>, waitingFor what: String,
      sourceLocation: SourceLocation = #_sourceLocation
    ) async -> [ConsoleEvent] {
      await withDeadline(waitingFor: what, sourceLocation: sourceLocation) {
        var collected: [ConsoleEvent] = []
        for await event in events {
          collected.append(event)
          if collected.count == count { break }
        }
        return collected
      } ?? []
    }

    @Test func keysFromAPipeArriveInOrderUntilItsEnd() async throws {
      var descriptors: [Int32] = [-1, -1]
      try #require(pipe(&descriptors) == 0)
      defer { close(descriptors[0]) }
      let console = TerminalConsole(input: descriptors[0], output: nowhere)
      defer { console.restore() }
      #expect(!console.isInteractive)
      let events = console.events
      write(descriptors[1], "aé\r\u{1B}[Aq\u{03}")
      #expect(
        await next(5, of: events, waitingFor: "the keys written")
          == [.key("a"), .key("é"), .key(.enter), .key("q"), .interrupt])
      // An escape sequence cut between two writes, each read apart: the first read's key comes
      // before the second write.
      write(descriptors[1], "x\u{1B}[1;")
      #expect(await next(1, of: events, waitingFor: "x") == [.key("x")])
      write(descriptors[1], "2Py")
      #expect(await next(1, of: events, waitingFor: "y") == [.key("y")])
      close(descriptors[1])
      #expect(await next(1, of: events, waitingFor: "the end") == [.endOfInput])
    }

    @Test func eachSignalArrivesAsAnEventAndEndsNothing() async {
      let console = TerminalConsole(input: nil, output: nowhere)
      defer { console.restore() }
      let events = console.events
      kill(getpid(), SIGWINCH)
      #expect(await next(1, of: events, waitingFor: "SIGWINCH") == [.resize])
      kill(getpid(), SIGINT)
      #expect(await next(1, of: events, waitingFor: "SIGINT") == [.interrupt])
      kill(getpid(), SIGTERM)
      #expect(await next(1, of: events, waitingFor: "SIGTERM") == [.terminate])
      kill(getpid(), SIGHUP)
      #expect(await next(1, of: events, waitingFor: "SIGHUP") == [.hangUp])
    }

    @Test func restoreGivesBackTheDispositionsFinishesTheEventsAndRepeatsNothing() async {
      let ignored = signal(SIGHUP, SIG_IGN)
      defer { signal(SIGHUP, ignored) }
      let before = SignalRouter.signals.map(handler(of:))
      let console = TerminalConsole(input: nil, output: nowhere)
      let events = console.events
      #expect(handler(of: SIGHUP) != before[2], "the console took the ignored signal over")
      console.restore()
      #expect(SignalRouter.signals.map(handler(of:)) == before)
      #expect(await next(1, of: events, waitingFor: "the events to finish").isEmpty)
      console.restore()  // does nothing
      #expect(SignalRouter.signals.map(handler(of:)) == before)
      #expect(await next(1, of: console.events, waitingFor: "the events, finished").isEmpty)
    }

    @Test func aCancelledLoopGivesTheSignalsBack() async {
      let before = SignalRouter.signals.map(handler(of:))
      let console = TerminalConsole(input: nil, output: nowhere)
      defer { console.restore() }
      let events = console.events
      let loop = Task {
        for await _ in events {}
      }
      loop.cancel()
      await loop.value
      #expect(
        await waitUntil("the dispositions to come back") {
          SignalRouter.signals.map(handler(of:)) == before
        })
    }

    @Test func onATerminalBeginAndRestoreChangeTheModesAndTheScreenOnce() async throws {
      let terminal = try PseudoTerminalPair()
      let previous = signal(SIGTERM, SIG_DFL)
      defer { signal(SIGTERM, previous) }
      let before = terminal.modes
      let dispositions = SignalRouter.signals.map(handler(of:))
      let output = TerminalStream(
        fileDescriptor: terminal.secondary, environment: ["TERM": "xterm-256color"])
      let console = TerminalConsole(input: terminal.secondary, output: output)
      #expect(console.isInteractive)
      console.begin(onAlternateScreen: true)
      console.begin(onAlternateScreen: true)  // does nothing
      #expect(terminal.modes.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == 0)
      #expect(terminal.readAvailable() == "\u{1B}[?1049h\u{1B}[?25l")
      // A terminating signal at its default disposition would now restore the terminal.
      #expect(handler(of: SIGTERM) != dispositions[1])

      let events = console.events
      terminal.type("p\u{03}")  // Ctrl-C is a byte in raw mode
      #expect(await next(2, of: events, waitingFor: "p and Ctrl-C") == [.key("p"), .interrupt])

      console.restore()
      console.restore()  // does nothing
      #expect(terminal.readAvailable() == "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
      #expect(terminal.modes.c_lflag == before.c_lflag)
      #expect(terminal.modes.c_iflag == before.c_iflag)
      #expect(SignalRouter.signals.map(handler(of:)) == dispositions)
    }

    @Test func withoutATerminalBeginWritesNothingAndChangesNoModes() throws {
      var descriptors: [Int32] = [-1, -1]
      try #require(pipe(&descriptors) == 0)
      defer { close(descriptors[0]) }
      let console = TerminalConsole(
        input: descriptors[0],
        output: TerminalStream(fileDescriptor: descriptors[1], environment: [:]))
      console.begin(onAlternateScreen: true)
      console.restore()
      close(descriptors[1])
      let written = FileHandle(fileDescriptor: descriptors[0]).readDataToEndOfFile()
      #expect(written.isEmpty)
    }

    @Test func aRenderersGuardAndAListeningConsoleShareTheHandlers() {
      let previous = signal(SIGINT, SIG_DFL)
      defer { signal(SIGINT, previous) }
      TerminalSignalGuard.acquire(fileDescriptor: STDOUT_FILENO)
      let guarding = handler(of: SIGINT)
      #expect(guarding != nil)
      let console = TerminalConsole(input: nil, output: nowhere)
      _ = console.events
      #expect(handler(of: SIGINT) == guarding, "one handler, which now delivers")
      console.restore()
      #expect(handler(of: SIGINT) == guarding, "still guarding the cursor")
      TerminalSignalGuard.release()
      #expect(handler(of: SIGINT) == nil)
    }

    @Test func aProgramsOwnHandlerComesBackWhenTheConsoleStopsEvenWhileGuarded() {
      let ignored = signal(SIGINT, SIG_IGN)
      defer { signal(SIGINT, ignored) }
      let programs = handler(of: SIGINT)
      let console = TerminalConsole(input: nil, output: nowhere)
      _ = console.events
      TerminalSignalGuard.acquire(fileDescriptor: STDOUT_FILENO)
      #expect(handler(of: SIGINT) != programs)
      console.restore()
      #expect(handler(of: SIGINT) == programs, "the guard never replaces a program's handler")
      TerminalSignalGuard.release()
      #expect(handler(of: SIGINT) == programs)
    }
  }
}

/// The plain handler of `signal`, as a pointer; `nil` for the default disposition.
func handler(of signal: Int32) -> UnsafeRawPointer? {
  var action = sigaction()
  sigaction(signal, nil, &action)
  #if canImport(Darwin)
  return unsafeBitCast(action.__sigaction_u.__sa_handler, to: UnsafeRawPointer?.self)
  #else
  return unsafeBitCast(action.__sigaction_handler.sa_handler, to: UnsafeRawPointer?.self)
  #endif
}

/// Writes all of `text` to `descriptor`.
private func write(_ descriptor: Int32, _ text: String) {
  var text = text
  text.withUTF8 { buffer in
    _ = Foundation.write(descriptor, buffer.baseAddress, buffer.count)
  }
}

/// A pseudo-terminal opened in the test's own process: the console's side, and the side the
/// test types on and reads what the console wrote.
private final class PseudoTerminalPair {
  let primary: Int32
  let secondary: Int32

  init() throws {
    var primary: Int32 = -1
    var secondary: Int32 = -1
    var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
    guard openpty(&primary, &secondary, nil, nil, &size) == 0 else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    self.primary = primary
    self.secondary = secondary
  }

  deinit {
    close(primary)
    close(secondary)
  }

  var modes: termios {
    var modes = termios()
    tcgetattr(secondary, &modes)
    return modes
  }

  func type(_ text: String) {
    write(primary, text)
  }

  /// What the console wrote so far and nobody read: what arrives within 100 ms of the last byte,
  /// a pause that ends a read, not one that decides a result (the bytes are there at once).
  func readAvailable() -> String {
    var bytes: [UInt8] = []
    var ready = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
    while poll(&ready, 1, 100) > 0 {
      var buffer = [UInt8](repeating: 0, count: 256)
      let count = read(primary, &buffer, buffer.count)
      guard count > 0 else { break }
      bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
