import ExampleTestSupport
import Foundation
import Testing

/// A terminal renderer's bar in a process whose signals a TerminalConsole handles: the terminal
/// is restored whether the program exits on the console's event, raises the signal again after
/// the console's restore, or is ended by a signal the console was not asked for.
// Serialized: each test runs a program in a process of its own, and dozens of them at once on two
// cores, under the sanitizer, starve the suites that run in this process.
@Suite("Terminal console in a process", .serialized, .timeLimit(.minutes(1)))
struct ConsoleProcessTests {
  private static let hideCursor = "\u{1B}[?25l"
  private static let showCursor = "\u{1B}[?25h"

  /// Starts the probe in `mode` and waits for its bar.
  private func launch(_ mode: String, on terminal: PseudoTerminal) async throws -> Process {
    let process = try terminal.launch([mode], product: "terminal-probe")
    #expect(await terminal.read(until: Self.hideCursor))
    #expect(await terminal.read(until: "probe ▕"))
    return process
  }

  private func expectCursorShown(_ terminal: PseudoTerminal) {
    let afterHiding = terminal.output.components(separatedBy: Self.hideCursor).last ?? ""
    #expect(
      afterHiding.contains(Self.showCursor),
      "the cursor stayed hidden: \(afterHiding.suffix(80).debugDescription)")
  }

  @Test func exitingOnTheConsolesInterruptShowsTheCursor() async throws {
    let terminal = try PseudoTerminal()
    let process = try await launch("console-exit", on: terminal)
    kill(process.processIdentifier, SIGINT)
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == 130)
    expectCursorShown(terminal)
  }

  @Test func raisingTheSignalAgainAfterTheConsolesRestoreShowsTheCursorAndEndsTheProcess()
    async throws
  {
    let terminal = try PseudoTerminal()
    let process = try await launch("console-raise", on: terminal)
    kill(process.processIdentifier, SIGINT)
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationReason == .uncaughtSignal)
    #expect(process.terminationStatus == SIGINT)
    expectCursorShown(terminal)
  }

  @Test(arguments: [SIGTERM, SIGHUP])
  func aSignalThatEndsARawConsoleRestoresTheModesAndTheCursor(signal: Int32) async throws {
    let terminal = try PseudoTerminal()
    let process = try await launch("console-raw", on: terminal)
    #expect(terminal.modes.c_lflag & tcflag_t(ICANON) == 0, "raw mode")
    kill(process.processIdentifier, signal)
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationReason == .uncaughtSignal)
    #expect(process.terminationStatus == signal)
    let modes = terminal.modes
    #expect(modes.c_lflag & tcflag_t(ICANON) != 0, "line editing is back")
    #expect(modes.c_lflag & tcflag_t(ECHO) != 0, "echo is back")
    expectCursorShown(terminal)
  }
}
