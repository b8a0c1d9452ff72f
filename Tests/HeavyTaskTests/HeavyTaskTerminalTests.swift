import ExampleTestSupport
import Foundation
import Testing

/// `heavy-task` on a (pseudo-)terminal: the screen, the keys, and the terminal restored on every
/// way out.
// Serialized: each test runs a program in a process of its own, and dozens of them at once on two
// cores, under the sanitizer, starve the suites that run in this process.
@Suite("heavy-task on a terminal", .serialized, .timeLimit(.minutes(2)))
struct HeavyTaskTerminalTests {
  private static let enterAlternateScreen = "\u{1B}[?1049h"
  private static let leaveAlternateScreen = "\u{1B}[?1049l"
  private static let showCursor = "\u{1B}[?25h"

  /// Starts a run on the terminal: waits for the screen, presses Enter, waits for the bar.
  private func startRun(on terminal: PseudoTerminal, items: Int = 200) async throws -> Process {
    let process = try terminal.launch(["--items", "\(items)", "--delay-ms", "50"])
    #expect(await terminal.read(until: "Perform a Heavy Task"))
    #expect(await terminal.read(until: "Press Enter"))
    terminal.type("\r")
    #expect(await terminal.read(until: "Heavy task ▕"))
    return process
  }

  /// Presses q, waits for the program to end, and checks that the terminal is as it was.
  private func quit(_ process: Process, on terminal: PseudoTerminal) async {
    terminal.type("q")
    await terminal.readToEnd()
    await process.exit()
    expectRestored(terminal)
  }

  private func expectRestored(_ terminal: PseudoTerminal) {
    let modes = terminal.modes
    #expect(modes.c_lflag & tcflag_t(ICANON) != 0, "line editing is back")
    #expect(modes.c_lflag & tcflag_t(ECHO) != 0, "echo is back")
    #expect(modes.c_lflag & tcflag_t(ISIG) != 0, "signal keys are back")
    let afterScreen = terminal.output.components(separatedBy: Self.leaveAlternateScreen).last ?? ""
    #expect(terminal.output.contains(Self.enterAlternateScreen))
    #expect(terminal.output.contains(Self.leaveAlternateScreen), "the normal screen is back")
    #expect(terminal.output.contains(Self.showCursor), "the cursor is back")
    #expect(!afterScreen.contains("\u{1B}[?25l"), "the cursor is not hidden again")
  }

  /// A key and what it does, as the hint line below the progress view shows it.
  private static func hint(_ key: String, _ action: String) -> String {
    "\u{1B}[2m\(key)\u{1B}[0m \(action)"
  }

  /// Presses p on a running run and waits until the screen shows it paused, with the hint to
  /// resume; returns the offset of what was drawn after the key.
  @discardableResult
  private func pause(on terminal: PseudoTerminal) async -> Int {
    #expect(await terminal.read(until: Self.hint("p", "pause")))
    let beforePause = terminal.bytesRead
    terminal.type("p")
    #expect(await terminal.read(until: Self.hint("p", "resume"), after: beforePause))
    #expect(await terminal.read(until: "paused", after: beforePause))
    return terminal.bytesRead
  }

  static let signals: [(Int32, Int32)] = [(SIGINT, 130), (SIGTERM, 143), (SIGHUP, 143)]

  @Test(arguments: signals)
  func aSignalMidRunRestoresTheTerminalAndExitsWithItsStatus(
    signal: Int32, status: Int32
  ) async throws {
    let terminal = try PseudoTerminal()
    let process = try await startRun(on: terminal)
    kill(process.processIdentifier, signal)
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == status)
    expectRestored(terminal)
    #expect(terminal.output.contains("Heavy task: cancelled after "))
  }

  @Test func ctrlCCancelsTheRunRestoresTheTerminalAndExits130() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startRun(on: terminal)
    terminal.type("\u{03}")
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationStatus == 130)
    expectRestored(terminal)
  }

  @Test func cCancelsTheRunAndTheButtonCanBePressedAgain() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startRun(on: terminal)
    terminal.type("c")
    #expect(await terminal.read(until: "cancelled after"))
    let afterCancel = terminal.bytesRead
    terminal.type("\r")  // a new run: the button is dimmed again and a new bar is drawn
    #expect(await terminal.read(until: "\u{1B}[2m  Perform a Heavy Task", after: afterCancel))
    #expect(await terminal.read(until: "Heavy task ▕", after: afterCancel))
    await quit(process, on: terminal)
  }

  @Test func pPausesTheRunAndPAgainResumesItToTheEnd() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startRun(on: terminal, items: 40)
    let afterPause = await pause(on: terminal)
    #expect(!terminal.output.contains("done in"), "the run is still under way when paused")
    terminal.type("p")
    #expect(await terminal.read(until: Self.hint("p", "pause"), after: afterPause))
    #expect(await terminal.read(until: "done in", after: afterPause))
    #expect(await terminal.read(until: Self.hint("Enter", "press"), after: afterPause))
    terminal.type("q")
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationStatus == 0)
    expectRestored(terminal)
    let afterScreen = terminal.output.components(separatedBy: Self.leaveAlternateScreen).last ?? ""
    #expect(afterScreen.contains("Heavy task: finished in "))
    #expect(afterScreen.contains("100%") || afterScreen.contains("40/40"))
  }

  @Test func cCancelsAPausedRunAndQExitsWithItsStatus() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startRun(on: terminal, items: 40)
    let afterPause = await pause(on: terminal)
    terminal.type("c")
    #expect(await terminal.read(until: "cancelled after", after: afterPause))
    #expect(await terminal.read(until: Self.hint("Enter", "press"), after: afterPause))
    #expect(await terminal.read(until: "\u{1B}[7m  Perform a Heavy Task  ", after: afterPause))
    terminal.type("q")
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationStatus == 130)  // the status of the last run: cancelled
    expectRestored(terminal)
  }

  @Test func ctrlCWhilePausedCancelsRestoresTheTerminalAndExits130() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startRun(on: terminal, items: 40)
    await pause(on: terminal)
    terminal.type("\u{03}")
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == 130)
    expectRestored(terminal)
    let afterScreen = terminal.output.components(separatedBy: Self.leaveAlternateScreen).last ?? ""
    #expect(afterScreen.contains("Heavy task: cancelled after "))
  }

  @Test func theHintLineOffersTheKeysThatActNow() async throws {
    let terminal = try PseudoTerminal()
    let process = try terminal.launch(["--items", "40", "--delay-ms", "50"])
    #expect(
      await terminal.read(until: Self.hint("Enter", "press") + " · " + Self.hint("q", "quit")))
    terminal.type("\r")
    #expect(
      await terminal.read(
        until: Self.hint("p", "pause") + " · " + Self.hint("c", "cancel") + " · "
          + Self.hint("q", "quit")))
    await pause(on: terminal)
    #expect(
      terminal.output.contains(
        Self.hint("p", "resume") + " · " + Self.hint("c", "cancel") + " · "
          + Self.hint("q", "quit")))
    await quit(process, on: terminal)
    #expect(process.terminationStatus == 130)  // q cancelled the paused run
  }

  @Test func arrowAndFunctionKeysDoNothing() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startRun(on: terminal)
    // Right, Up, F2, Home, F1: their bytes include `C`, `A`, `Q`, `H` and `P`, none of which may
    // act.
    terminal.type("\u{1B}[C\u{1B}[A\u{1B}OQ\u{1B}[1;5H\u{1B}OP")
    terminal.type("c")  // a real key, to know the sequences were read
    #expect(await terminal.read(until: "cancelled after"))
    let cancellations = terminal.output.components(separatedBy: "cancelled after").count - 1
    #expect(cancellations == 1)
    #expect(!terminal.output.contains(Self.hint("p", "resume")), "F1 did not pause the run")
    terminal.type("q")
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationStatus == 130)
  }

  @Test func aLogThatCannotBeWrittenEndsTheSessionWith73() async throws {
    let terminal = try PseudoTerminal()
    let process = try terminal.launch(["--items", "50", "--delay-ms", "20", "--log", "/dev/full"])
    #expect(await terminal.read(until: "Press Enter"))
    terminal.type("\r")
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationStatus == 73)
    expectRestored(terminal)
    #expect(
      terminal.output.contains(
        "heavy-task: cannot write to log file '/dev/full': No space left on device"))
  }

  @Test func aFailedRunIsOneLineOnStandardErrorOnceTheScreenIsRestored() async throws {
    let terminal = try PseudoTerminal()
    let errors = Pipe()
    let process = try terminal.launch(
      ["--items", "5", "--delay-ms", "1", "--fail-at", "3"], standardError: errors)
    #expect(await terminal.read(until: "Press Enter"))
    terminal.type("\r")
    #expect(await terminal.read(until: "failed after"))
    // A second failure: still one line, for the run whose status the program exits with.
    let afterFirst = terminal.bytesRead
    terminal.type("\r")
    #expect(await terminal.read(until: "failed after", after: afterFirst))
    await quit(process, on: terminal)
    #expect(process.terminationStatus == 1)
    let errorBytes = await offThePool { errors.fileHandleForReading.readDataToEndOfFile() }
    let errorText = String(decoding: errorBytes, as: UTF8.self)
    #expect(
      errorText
        == "heavy-task: the heavy task failed at item 3 of 5: item 3 threw an error (as --fail-at asked)\n"
    )
  }

  /// A resize clears the screen and draws it again at the new width: at 30 columns with the
  /// short help that fits; at 12, too narrow for the button's box, with the button's face alone,
  /// cut to the width rather than wrapped onto the rows below.
  @Test(
    arguments: [
      (30, ["\u{1B}[2J", "Enter q"]),
      (12, ["\u{1B}[2J", "\u{1B}[7mPerform a \u{1B}[0m"]),
    ] as [(UInt16, [String])])
  func aResizeRedrawsTheScreenAtTheNewWidth(columns: UInt16, shows texts: [String]) async throws {
    let terminal = try PseudoTerminal(columns: 80)
    let process = try terminal.launch([])
    #expect(await terminal.read(until: "view, in a terminal"))
    let before = terminal.bytesRead
    terminal.resize(columns: columns, for: process)
    for text in texts {
      #expect(await terminal.read(until: text, after: before), "\(columns) columns: \(text)")
    }
    await quit(process, on: terminal)
  }

  @Test func aDumbTerminalGetsNoScreenAndABarRedrawnWithoutEscapeSequences() async throws {
    let terminal = try PseudoTerminal()
    let process = try terminal.launch(
      ["--items", "5", "--delay-ms", "1"], environment: ["TERM": "dumb"])
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationStatus == 0)
    #expect(!terminal.output.contains("\u{1B}"))
    #expect(terminal.output.contains("[ Perform a Heavy Task ] pressed"))
    // Still a terminal: the bar redraws in place with carriage returns alone.
    #expect(terminal.output.contains("\rHeavy task ▕█"))
    #expect(terminal.output.contains("done in "))
  }

  @Test func qAfterAFinishedRunExits0AndLeavesTheLastLineOnTheScreen() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startRun(on: terminal, items: 3)
    #expect(await terminal.read(until: "done in"))
    terminal.type("q")
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationStatus == 0)
    expectRestored(terminal)
    let afterScreen = terminal.output.components(separatedBy: Self.leaveAlternateScreen).last ?? ""
    #expect(afterScreen.contains("Heavy task: finished in "))
  }

  @Test func theButtonIsHighlightedWhileItCanBePressedAndDimmedDuringARun() async throws {
    let terminal = try PseudoTerminal()
    let process = try terminal.launch(["--items", "100", "--delay-ms", "50"])
    // Reverse video: focused.
    #expect(await terminal.read(until: "\u{1B}[7m  Perform a Heavy Task  "))
    terminal.type("\r")
    #expect(await terminal.read(until: "\u{1B}[2m  Perform a Heavy Task  "))  // dim: disabled
    terminal.type("q")
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationStatus == 130)  // q cancelled the run in progress
    expectRestored(terminal)
  }

  @Test func theEndOfInputQuitsAndRestores() async throws {
    let terminal = try PseudoTerminal()
    let process = try terminal.launch([])
    #expect(await terminal.read(until: "Press Enter"))
    terminal.type("\u{04}")  // Ctrl-D
    await terminal.readToEnd()
    await process.exit()
    #expect(process.terminationStatus == 0)
    expectRestored(terminal)
  }
}
