import ExampleTestSupport
import Foundation
import Testing

/// The library's terminal renderer in a process of its own, on a pseudo-terminal, with the signals
/// left at their default disposition: its guard shows the cursor again before the signal ends the
/// process, as the signal would have.
// Serialized: each test runs a program in a process of its own, and dozens of them at once on two
// cores, under the sanitizer, starve the suites that run in this process.
@Suite("Terminal renderer ended by a signal", .serialized, .timeLimit(.minutes(1)))
struct TerminalRendererProcessTests {
  static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

  @Test(arguments: signals)
  func theCursorComesBackAndTheSignalStillEndsTheProcess(signal: Int32) async throws {
    let terminal = try PseudoTerminal()
    let process = try terminal.launch([], product: "terminal-probe")
    #expect(await terminal.read(until: "\u{1B}[?25l"))  // the bar hid the cursor
    #expect(await terminal.read(until: "probe ▕"))
    kill(process.processIdentifier, signal)
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationReason == .uncaughtSignal)
    #expect(process.terminationStatus == signal)
    let afterHiding = terminal.output.components(separatedBy: "\u{1B}[?25l").last ?? ""
    #expect(afterHiding.contains("\u{1B}[?25h"))
  }
}
