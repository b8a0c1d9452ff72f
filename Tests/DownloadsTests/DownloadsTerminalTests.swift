import ExampleTestSupport
import Foundation
import TaskProgressTestSupport
import Testing

/// `downloads` on a (pseudo-)terminal: the keys, the bars, and the terminal restored on every way
/// out.
// Serialized: each test runs a program in a process of its own, and dozens of them at once on two
// cores, under the sanitizer, starve the suites that run in this process.
@Suite("downloads on a terminal", .serialized, .timeLimit(TestScale.timeLimit(minutes: 2)))
struct DownloadsTerminalTests {
  private static let hideCursor = "\u{1B}[?25l"
  private static let showCursor = "\u{1B}[?25h"

  /// A key and what it does, as the session's hint lines show it.
  private static func hint(_ key: String, _ action: String) -> String {
    "\(key) \(action)"
  }

  /// Starts the queue on the terminal: waits for the first hint, presses Enter, waits for a bar.
  private func startQueue(
    on terminal: PseudoTerminal, _ arguments: [String] = ["--count", "20", "--speed", "0.2"],
    standardError: Pipe? = nil
  ) async throws -> Process {
    let process = try terminal.launchDownloads(arguments, standardError: standardError)
    #expect(await terminal.read(until: Self.hint("Enter", "start")))
    let beforeEnter = terminal.bytesRead
    terminal.type("\r")
    #expect(await terminal.read(until: Self.hint("c", "cancel all"), after: beforeEnter))
    #expect(await terminal.read(until: "▕", after: beforeEnter))
    return process
  }

  /// Presses q, waits for the program to end, and checks that the terminal is as it was.
  private func quit(_ process: Process, on terminal: PseudoTerminal) async {
    terminal.type("q")
    await terminal.readToEnd()
    #expect(await terminal.waitForExit(of: process), "downloads did not end")
    expectRestored(terminal)
  }

  private func expectRestored(_ terminal: PseudoTerminal) {
    let modes = terminal.modes
    #expect(modes.c_lflag & tcflag_t(ICANON) != 0, "line editing is back")
    #expect(modes.c_lflag & tcflag_t(ECHO) != 0, "echo is back")
    #expect(modes.c_lflag & tcflag_t(ISIG) != 0, "signal keys are back")
    let afterHiding = terminal.output.components(separatedBy: Self.hideCursor).last ?? ""
    #expect(terminal.output.contains(Self.hideCursor))
    #expect(afterHiding.contains(Self.showCursor), "the cursor is back")
    var screen = VirtualTerminal()
    screen.feed(terminal.bytes)
    #expect(screen.isCursorVisible)
    #expect(!terminal.output.contains("\u{1B}[?1049h"), "the bars stay in the scrollback")
  }

  @Test func enterStartsTheQueueAndItRunsToTheEnd() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startQueue(
      on: terminal, ["--count", "4", "--jobs", "2", "--speed", "20"])
    #expect(await terminal.read(until: "All downloads finished."))
    #expect(await terminal.read(until: Self.hint("Enter", "start again")))
    await quit(process, on: terminal)
    #expect(process.terminationStatus == 0)
    var screen = VirtualTerminal()
    screen.feed(terminal.bytes)
    let lines = screen.scrollback + screen.trimmedScreen
    #expect(lines.filter { $0.contains("done in") }.count == 4, "\(lines)")
    // The counts after the total's bar may give way to the room the live area kept for the speed.
    #expect(lines.contains { $0.hasPrefix("Total") && $0.contains("100%") }, "\(lines)")
  }

  @Test func cCancelsAllTheDownloadsAndEnterRunsTheQueueAgain() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startQueue(on: terminal)
    let beforeCancel = terminal.bytesRead
    terminal.type("c")
    #expect(await terminal.read(until: "Cancelled: ", after: beforeCancel))
    #expect(await terminal.read(until: Self.hint("Enter", "start again"), after: beforeCancel))
    let cancelled = String(decoding: terminal.bytes.dropFirst(beforeCancel), as: UTF8.self)
    #expect(cancelled.contains("cancelled after"), "the bars under way end cancelled")
    #expect(cancelled.contains("never started)"), "the waiting downloads never start")
    let afterCancel = terminal.bytesRead
    terminal.type("\r")  // a new run of the whole queue
    #expect(await terminal.read(until: Self.hint("c", "cancel all"), after: afterCancel))
    #expect(await terminal.read(until: "▕", after: afterCancel))
    await quit(process, on: terminal)
    #expect(process.terminationStatus == 130)  // q cancelled the run under way
  }

  @Test func qQuitsMidRunAndRestoresTheTerminal() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startQueue(on: terminal)
    await quit(process, on: terminal)
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == 130)
    let afterQuit = terminal.output.components(separatedBy: Self.hint("c", "cancel all")).last
    #expect(afterQuit?.contains("cancelled after") == true, "the bars were ended, not left")
  }

  @Test func ctrlCCancelsTheDownloadsRestoresTheTerminalAndExits130() async throws {
    let terminal = try PseudoTerminal()
    let process = try await startQueue(on: terminal)
    terminal.type("\u{03}")
    await terminal.readToEnd()
    #expect(await terminal.waitForExit(of: process), "downloads did not end")
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == 130)
    expectRestored(terminal)
  }

  static let signals: [(Int32, Int32)] = [(SIGINT, 130), (SIGTERM, 143), (SIGHUP, 143)]

  @Test(arguments: signals)
  func aSignalMidRunRestoresTheTerminalAndExitsWithItsStatus(
    signal: Int32, status: Int32
  ) async throws {
    let terminal = try PseudoTerminal()
    let process = try await startQueue(on: terminal)
    kill(process.processIdentifier, signal)
    await terminal.readToEnd()
    #expect(await terminal.waitForExit(of: process), "downloads did not end")
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == status)
    expectRestored(terminal)
  }

  @Test(arguments: ["q", "\u{04}"])
  func quittingBeforeAnyRunExits0(key: String) async throws {
    let terminal = try PseudoTerminal()
    let process = try terminal.launchDownloads([])
    #expect(await terminal.read(until: Self.hint("Enter", "start")))
    terminal.type(key)
    await terminal.readToEnd()
    #expect(await terminal.waitForExit(of: process), "downloads did not end")
    #expect(process.terminationStatus == 0)
    expectRestored(terminal)
  }

  @Test func aFailedDownloadIsOneLineOnStandardErrorOnceTheTerminalIsRestored() async throws {
    let terminal = try PseudoTerminal()
    let errors = Pipe()
    let process = try await startQueue(
      on: terminal, ["--count", "3", "--jobs", "3", "--speed", "50", "--fail-at", "2"],
      standardError: errors)
    #expect(await terminal.read(until: "2 finished, 1 failed."))
    await quit(process, on: terminal)
    #expect(process.terminationStatus == 1)
    #expect(terminal.output.contains("failed after"))
    let errorBytes = await offThePool { errors.fileHandleForReading.readDataToEndOfFile() }
    let errorText = String(decoding: errorBytes, as: UTF8.self)
    #expect(errorText.hasPrefix("downloads: download 2 of 3 ("), "\(errorText)")
    #expect(errorText.contains(") failed after "), "\(errorText)")
    #expect(errorText.hasSuffix("(as --fail-at asked)\n"))
    #expect(errorText.split(separator: "\n").count == 1)
  }

  @Test func aDumbTerminalGetsPlainLinesAndNoKeys() async throws {
    let terminal = try PseudoTerminal()
    let process = try terminal.launchDownloads(
      ["--count", "3", "--speed", "100"], environment: ["TERM": "dumb"])
    await terminal.readToEnd()
    #expect(await terminal.waitForExit(of: process), "downloads did not end")
    #expect(process.terminationStatus == 0)
    #expect(!terminal.output.contains("\u{1B}"))
    #expect(terminal.output.contains("Downloading 3 files"))
    #expect(terminal.output.contains("Total"))
  }

  /// The lines the session prints above the bars, as the screen shows them.
  private static func isSessionLine(_ line: String) -> Bool {
    line.hasPrefix("downloads  ") || line.hasPrefix("All downloads finished.")
      || ["Enter start · q quit", "c cancel all · q quit", "Enter start again · q quit"].contains(
        line)
  }

  /// Many bars at once, on a terminal too short and maybe too narrow for them all.
  ///
  /// The renderer keeps its live area (the bars, `… N more` and the total) within the screen and
  /// each line within the width, and redraws it in place: moving the cursor up over it and
  /// rewriting it never scrolls. The screen scrolls only when a line is written for good above
  /// the live area (a line the session prints, or the last line of a download that ended, which
  /// takes two rows, the bar and `done in …`, on a narrow terminal), which pushes the top row into
  /// the scrollback. So every row in the scrollback must be such a line: a redraw that scrolled
  /// would push a row of the live area (a bar under way, `… N more`, the total, or a blank row)
  /// into the scrollback. And each download's last line is written once: the scrollback and the
  /// screen hold exactly one per download.
  @Test(arguments: [(100, 24, 50), (40, 12, 12)])
  func manyBarsRedrawWithoutALineWrapOrAScroll(columns: Int, rows: Int, count: Int) async throws {
    let terminal = try PseudoTerminal(columns: UInt16(columns), rows: UInt16(rows))
    let process = try await startQueue(
      on: terminal, ["--count", "\(count)", "--jobs", "\(count)", "--speed", "5"])
    #expect(await terminal.read(until: "All downloads finished."))
    await quit(process, on: terminal)
    #expect(process.terminationStatus == 0)
    #expect(terminal.output.contains(" more"), "the live area was cut to the screen's height")

    var screen = VirtualTerminal(columns: columns, rows: rows)
    screen.feed(terminal.bytes)
    #expect(screen.wraps == 0)
    #expect(screen.unknownSequences.isEmpty, "\(screen.unknownSequences)")
    #expect(screen.scrolls == screen.scrollback.count)
    let transcript = screen.scrollback + screen.trimmedScreen
    /// Whether the row at `index` is (part of) the last line of a download.
    func isFinalLine(_ index: Int) -> Bool {
      transcript[index].contains("done in")
        || (transcript[index].contains("▕") && index + 1 < transcript.count
          && transcript[index + 1].hasPrefix("done in"))
    }
    for (index, row) in screen.scrollback.enumerated() {
      #expect(isFinalLine(index) || Self.isSessionLine(row), "scrolled away: \(row)")
    }
    let finalLines = transcript.indices.filter { isFinalLine($0) && transcript[$0].contains("▕") }
    #expect(finalLines.count == count, "\(transcript)")
    #expect(transcript.filter { $0.hasPrefix("Total") }.count == 1)
  }
}
