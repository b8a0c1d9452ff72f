import ExampleTestSupport
import Foundation
import Testing

/// The library's terminal renderer in a process of its own, on a pseudo-terminal, stopped in the
/// middle of a run without the run ending: the terminal is left as it was found.
// Serialized: each test runs a program in a process of its own, and dozens of them at once on two
// cores, under the sanitizer, starve the suites that run in this process.
@Suite("Terminal renderer stopped mid-run", .serialized, .timeLimit(.minutes(1)))
struct RendererLifetimeProcessTests {
  @Test(arguments: ["detach", "release", "exit"])
  func theCursorComesBackAndTheLineEnds(mode: String) async throws {
    let terminal = try PseudoTerminal()
    let process = try terminal.launch([mode], product: "terminal-probe")
    #expect(await terminal.read(until: "\u{1B}[?25l"))  // the bar hid the cursor
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == 0)
    let afterHiding = terminal.output.components(separatedBy: "\u{1B}[?25l").last ?? ""
    #expect(
      afterHiding.contains("\u{1B}[?25h"),
      "the cursor stayed hidden: \(afterHiding.debugDescription)")
    let lastBar = afterHiding.components(separatedBy: "probe ▕").last ?? ""
    #expect(lastBar.contains("\n") || lastBar.contains("\r\n"), "the bar's line was left open")
    if mode != "exit" {
      // Ended before the program went on: what it prints next starts on a line of its own.
      let beforeOver = terminal.output.components(separatedBy: "probe: over").first ?? ""
      #expect(beforeOver.hasSuffix("\n\u{1B}[?25h") || beforeOver.hasSuffix("\r\n\u{1B}[?25h"))
    }
  }

  @Test func theBarGoesToStandardErrorByDefault() async throws {
    let terminal = try PseudoTerminal()
    let errors = Pipe()
    let process = try terminal.launch(["detach"], product: "terminal-probe", standardError: errors)
    await terminal.readToEnd()
    await process.exit()
    let drawnBytes = await offThePool { errors.fileHandleForReading.readDataToEndOfFile() }
    let drawn = String(decoding: drawnBytes, as: UTF8.self)
    #expect(process.terminationStatus == 0)
    // Standard error is a pipe: plain lines there, and only the program's own on the terminal.
    #expect(drawn.hasPrefix("probe: started\n"), "\(drawn.debugDescription)")
    #expect(terminal.output.contains("probe: over"))
    #expect(!terminal.output.contains("probe:  ") && !terminal.output.contains("probe ▕"))
    #expect(!terminal.output.contains("started"))
  }
}
