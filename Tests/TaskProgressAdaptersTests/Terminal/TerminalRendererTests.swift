import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@MainActor
@Suite("Terminal renderer", .timeLimit(.minutes(1)))
struct TerminalRendererTests {
  /// Plays the default script (5, 10, 20, 30, 45, 50 of 50, 200 ms apart, linear animation).
  private func play(
    columns: Int, capabilities: TerminalCapabilities, label: String = "Task",
    _ configure: (inout ScriptedRun) -> Void = { _ in }
  ) async -> MemoryTerminal {
    let terminal = MemoryTerminal(columns: columns, capabilities: capabilities)
    var script = ScriptedRun()
    configure(&script)
    await script.play(into: TerminalRenderer(label: label, output: terminal))
    return terminal
  }

  /// The interactive redraws: the text between each carriage return and the erase-line sequence.
  private func frames(_ terminal: MemoryTerminal) -> [String] {
    terminal.output.split(separator: "\r", omittingEmptySubsequences: false).dropFirst().map {
      String($0.prefix { $0 != "\u{1B}" })
    }
  }

  // MARK: - On a terminal

  @Test func aRunRedrawsInPlaceBetweenHidingAndShowingTheCursorAt40Columns() async {
    let terminal = await play(columns: 40, capabilities: .interactiveUnicode)
    // The bar glides with the animation; the percentage is the reported one, like the counts.
    let expected = [
      "⎋[?25l",
      "⏎Task ▕            ▏   0%⎋[K",
      "⏎Task ▕▎                   ▏  10%  5/50⎋[K",
      "⏎Task ▕▋                   ▏  10%  5/50⎋[K",
      "⏎Task ▕█                   ▏  10%  5/50⎋[K",
      "⏎Task ▕█▋                  ▏  20%  10/50⎋[K",
      "⏎Task ▕██▍                 ▏  20%  10/50⎋[K",
      "⏎Task ▕███                 ▏  20%  10/50⎋[K",
      "⏎Task ▕███▉                ▏  40%  20/50⎋[K",
      "⏎Task ▕█████▏              ▏  40%  20/50⎋[K",
      "⏎Task ▕██████              ▏  40%  20/50⎋[K",
      "⏎Task ▕███████▍            ▏  60%  30/50⎋[K",
      "⏎Task ▕████████▉           ▏  60%  30/50⎋[K",
      "⏎Task ▕██████████          ▏  60%  30/50⎋[K",
      "⏎Task ▕███████████▋        ▏  90%  45/50⎋[K",
      "⏎Task ▕█████████████▌      ▏  90%  45/50⎋[K",
      "⏎Task ▕███████████████▏    ▏  90%  45/50⎋[K",
      "⏎Task ▕████████████████▌   ▏ 100%  50/50⎋[K",
      "⏎Task ▕██████████████████  ▏ 100%  50/50⎋[K",
      "⏎Task ▕███████████████████ ▏ 100%  50/50⎋[K",
      "⏎Task ▕████████████████████▏ 100%  50/50⎋[K\ndone in 1.2s\n⎋[?25h",
    ]
    #expect(terminal.visible == expected.joined())
  }

  @Test func at20ColumnsOnlyTheBarAndThePercentageRemain() async {
    let terminal = await play(columns: 20, capabilities: .interactiveUnicode)
    let frames = frames(terminal)
    #expect(frames.first == "▕            ▏   0%")
    #expect(frames.dropLast().last == "▕███████████▍▏ 100%")  // reported: the bar still glides
    #expect(terminal.output.hasSuffix("▕████████████▏ 100%\u{1B}[K\ndone in 1.2s\n\u{1B}[?25h"))
    #expect(frames.allSatisfy { $0.count <= 19 })
  }

  @Test func at200ColumnsTheBarFillsTheLineAndKeepsItsWidth() async {
    let terminal = await play(columns: 200, capabilities: .interactiveUnicode) { script in
      script.counts = (1...40).map { $0 * 25 }
      script.total = 1_000
    }
    let frames = frames(terminal)
    #expect(frames.allSatisfy { $0.count <= 199 })
    // After the first report, the bar keeps one width: room is reserved for what comes later.
    let percentColumns = Set(
      frames.dropFirst().compactMap { frame in
        frame.firstIndex(of: "%").map { frame.distance(from: frame.startIndex, to: $0) }
      })
    #expect(percentColumns.count == 1)
    let withETA = frames.filter { $0.contains("ETA ") }
    #expect(withETA.count > 10)
    #expect(withETA.allSatisfy { $0.contains(" it/s  ETA ") })
    #expect(terminal.lines.dropLast().last?.hasSuffix("1000/1000  done in 8.0s\u{1B}[K") == true)
  }

  @Test func aFailureSaysWhyInOneLineInRedWhereColourIsAllowed() async {
    let terminal = await play(columns: 80, capabilities: .interactiveColor) { script in
      script.failAfter = 3
      script.error = TestError(message: "disk full\nwhile writing chunk 7")
    }
    // The reason does not fit in the room kept after the bar, so it gets a line of its own.
    let last = terminal.output.split(separator: "\r").last.map(String.init) ?? ""
    #expect(
      last
        == "Task ▕█████████████▌                    ▏  40%  20/50\u{1B}[K\n"
        + "\u{1B}[31mfailed after 0.6s: disk full while writing chunk 7\u{1B}[0m\n\u{1B}[?25h")
  }

  @Test func aFinishedLineIsGreenWhereColourIsAllowedAndPlainWhereNot() async {
    let colored = await play(columns: 80, capabilities: .interactiveColor)
    #expect(colored.output.contains("50/50  \u{1B}[32mdone in 1.2s\u{1B}[0m\u{1B}[K\n"))
    let plain = await play(columns: 80, capabilities: .interactiveUnicode)
    #expect(plain.output.contains("50/50  done in 1.2s\u{1B}[K\n"))
    #expect(!plain.output.contains("\u{1B}[3"))
  }

  @Test func cancellingEndsTheLineAndSaysSo() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 60)
    let token = harness.runner.attach(TerminalRenderer(output: terminal))
    harness.runner.start { _ in await Latch().wait() }
    harness.clock.advance(by: .milliseconds(1500))
    harness.runner.cancel()
    #expect(terminal.output.hasSuffix("▏   0%\u{1B}[K\ncancelled after 1.5s\n\u{1B}[?25h"))
    token.cancel()
  }

  @Test func redrawsAtMostTwentyTimesASecondButTransitionsAtOnce() async {
    // A one-second linear glide moves the bar on every one of its 60 frames a second.
    let harness = Harness(animation: .linear(duration: .seconds(1)))
    let clock = harness.clock
    let terminal = MemoryTerminal(columns: 60, now: { clock.now.offset })
    let token = harness.runner.attach(TerminalRenderer(output: terminal))
    let proceed = await harness.startHeldRun(reporting: 1)
    harness.clock.advance(by: .seconds(2) - frame)
    proceed.open()
    await harness.recorder.waitForTerminalState()
    let redraws = terminal.writes.filter { $0.text.hasPrefix("\r") }
    #expect(redraws.count >= 10)  // a 1 s glide, redrawn every fourth 60 Hz frame
    // Between the first draw (the start) and the last (the end), redraws are 50 ms apart or more.
    for (previous, next) in zip(redraws.dropFirst(), redraws.dropFirst(2).dropLast()) {
      #expect(next.time - previous.time >= TerminalRenderer.redrawInterval)
    }
    #expect(redraws.count <= 2 * 20 + 2)
    token.cancel()
  }

  @Test func anIndeterminateBarMovesWithoutClaimingAPercentage() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 30)
    let token = harness.runner.attach(TerminalRenderer(output: terminal))
    await harness.startIndeterminateRun(completed: 12)
    harness.clock.advance(by: .seconds(1))
    let frames = frames(terminal).dropFirst()  // the first one is the 0% of the start
    #expect(frames.count >= 10)
    #expect(frames.allSatisfy { !$0.contains("%") && $0.hasSuffix("  12") })
    #expect(Set(frames).count >= 5)  // the block moves
    #expect(frames.allSatisfy { $0.filter { $0 == "█" }.count == 5 })
    harness.runner.cancel()
    token.cancel()
  }

  @Test func anIndeterminateRunThatEndsClaimsNoPercentageEvenThen() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 60)
    let token = harness.runner.attach(TerminalRenderer(output: terminal))
    await harness.startIndeterminateRun(completed: 7)
    harness.clock.advance(by: .seconds(1))
    harness.runner.cancel()
    let last = terminal.output.split(separator: "\r").last.map(String.init) ?? ""
    #expect(!last.contains("%"))
    #expect(last.contains("█") && last.contains("  7"))
    #expect(last.hasSuffix("cancelled after 1.0s\n\u{1B}[?25h"))
    token.cancel()
  }

  @Test func asciiWhereTheLocaleIsNotUTF8() async {
    let terminal = await play(columns: 40, capabilities: .interactiveASCII)
    let frames = frames(terminal)
    #expect(frames[2] == "Task [>                   ]  10%  5/50")
    #expect(frames[4] == "Task [#>                  ]  20%  10/50")
    #expect(frames.last == "Task [####################] 100%  50/50")
    #expect(terminal.output.unicodeScalars.allSatisfy { $0.isASCII })
  }

  @Test func aDumbTerminalGetsCarriageReturnsButNoEscapeSequences() async {
    let terminal = await play(columns: 40, capabilities: .dumb)
    #expect(!terminal.output.contains("\u{1B}"))
    let frames = frames(terminal)
    #expect(frames[0] == "Task [            ]   0%")
    #expect(frames[1] == "Task [                    ]  10%  5/50")
    #expect(terminal.output.hasSuffix("[####################] 100%  50/50\ndone in 1.2s\n"))
  }

  @Test func theWidthFollowsAResizedTerminal() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 30)
    let token = harness.runner.attach(TerminalRenderer(output: terminal))
    harness.runner.start { _ in await Latch().wait() }
    terminal.columns = 50
    harness.clock.advance(by: .milliseconds(100))
    let frames = frames(terminal)
    // At 30 columns there is no room for an ETA; at 50 there is, and 15 columns are kept for it.
    #expect(frames.first?.count == 29)
    #expect(frames.last?.count == 34)
    harness.runner.cancel()
    token.cancel()
  }

  @Test func restoreTerminalEndsTheOpenLineAndShowsTheCursor() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 30)
    let renderer = TerminalRenderer(output: terminal)
    let token = harness.runner.attach(renderer)
    harness.runner.start { _ in await Latch().wait() }
    renderer.restoreTerminal()
    #expect(terminal.output.hasSuffix("\u{1B}[K\n\u{1B}[?25h"))
    renderer.restoreTerminal()  // idempotent
    #expect(terminal.output.hasSuffix("\u{1B}[K\n\u{1B}[?25h"))
    harness.runner.cancel()
    token.cancel()
  }

  @Test func detachingMidRunEndsTheOpenLineAndShowsTheCursor() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 30)
    let token = harness.runner.attach(TerminalRenderer(output: terminal))
    let proceed = await harness.startHeldRun(reporting: 0.5)
    #expect(terminal.output.hasSuffix("\u{1B}[K"))  // the bar is open
    token.cancel()
    #expect(terminal.output.hasSuffix("\u{1B}[K\n\u{1B}[?25h"))
    let detached = terminal.output
    proceed.open()
    await harness.recorder.waitForTerminalState()
    #expect(terminal.output == detached)  // nothing more after the detach
  }

  @Test func aRunnerReleasedMidRunLeavesTheTerminalAsItFoundIt() async {
    let clock = ManualClock()
    let terminal = MemoryTerminal(columns: 40)
    var runner: TaskRunner? = TaskRunner(animation: .instant, clock: clock)
    runner?.attach(TerminalRenderer(label: "Task", output: terminal))
    let started = Latch()
    runner?.start { _ in
      started.open()
      await Latch().wait()
    }
    await started.wait()
    runner = nil
    #expect(terminal.visible.hasPrefix("⎋[?25l⏎Task ▕"))
    #expect(terminal.visible.hasSuffix("cancelled after 0.0s\n⎋[?25h"))
  }

  // MARK: - Not on a terminal

  @Test func plainOutputHasOneLinePerTransitionAndPerTenPercentStep() async {
    let terminal = await play(columns: 80, capabilities: .plain)
    #expect(
      terminal.output == """
        Task: started
        Task: 10%  5/50
        Task: 20%  10/50
        Task: 40%  20/50
        Task: 60%  30/50
        Task: 90%  45/50
        Task: 100%  50/50
        Task: finished in 1.2s  50/50

        """)
  }

  @Test func plainOutputOfAFailureSaysWhereAndWhy() async {
    let terminal = await play(columns: 80, capabilities: .plain, label: "") { script in
      script.failAfter = 3
    }
    #expect(
      terminal.lines == [
        "started", "10%  5/50", "20%  10/50", "40%  20/50",
        "failed after 0.6s at 40% 20/50: disk full", "",
      ])
  }

  @Test func percentagesOfHugeCountsAgreeWithTheCounts() async {
    let total = 1 << 40
    let twentyNinePercent = (29 * total + 99) / 100  // a fraction of it rounds to 28.99999…%
    let terminal = await play(columns: 80, capabilities: .plain, label: "") { script in
      script.counts = [twentyNinePercent, total]
      script.total = total
      script.failAfter = 1
    }
    #expect(
      terminal.lines == [
        "started", "29%  \(twentyNinePercent)/\(total)",
        "failed after 0.2s at 29% \(twentyNinePercent)/\(total): disk full", "",
      ])
  }

  @Test func plainOutputOfAMillionReportsIsAHandfulOfLines() async {
    let terminal = await play(columns: 80, capabilities: .plain) { script in
      script.counts = Array(stride(from: 1, through: 1_000_000, by: 997)) + [1_000_000]
      script.total = 1_000_000
      script.step = .milliseconds(1)
    }
    #expect(terminal.lines.count <= 1 + 10 + 1 + 1)
    #expect(terminal.lines.first == "Task: started")
    #expect(terminal.lines.dropLast().last?.hasPrefix("Task: finished in ") == true)
    #expect(!terminal.output.contains("\r") && !terminal.output.contains("\u{1B}"))
  }

  // MARK: - Estimates

  @Test func theETAAppearsOnlyWithEnoughSamplesNeverNegativeAndNeverLeaping() async {
    // Slow, then a burst, then slow again: the raw estimate swings by a factor of ~50.
    let counts = [2, 4, 6, 8, 10, 12, 14, 60, 62, 64, 66, 68, 70, 72, 74, 76, 78, 80]
    let terminal = await play(columns: 100, capabilities: .interactiveUnicode) { script in
      script.counts = counts
      script.total = 100
      script.step = .milliseconds(150)
    }
    let frames = frames(terminal)
    let etas = frames.compactMap { frame -> Int? in
      guard let range = frame.firstRange(of: "ETA ") else { return nil }
      let parts = frame[range.upperBound...].split(separator: ":").compactMap { Int($0) }
      return parts.reduce(0) { $0 * 60 + $1 }
    }
    // No estimate from the first few frames: 3 samples of 100 ms are needed.
    let firstWithETA = frames.firstIndex { $0.contains("ETA ") } ?? frames.count
    #expect(firstWithETA >= 4)
    #expect(!etas.isEmpty)
    #expect(etas.allSatisfy { $0 >= 0 })
    for (previous, next) in zip(etas, etas.dropFirst()) where previous > 2 && next > 2 {
      #expect(Double(next) / Double(previous) <= 2.5 && Double(previous) / Double(next) <= 2.5)
    }
  }
}
