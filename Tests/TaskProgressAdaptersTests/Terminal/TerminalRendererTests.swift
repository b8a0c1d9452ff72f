import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@MainActor
@Suite("Terminal renderer", .timeLimit(TestScale.timeLimit(minutes: 1)))
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

  // MARK: - On a terminal

  @Test func aRunRedrawsInPlaceBetweenHidingAndShowingTheCursorAt40Columns() async {
    let terminal = await play(columns: 40, capabilities: .interactiveUnicode)
    // The bar glides with the animation; the percentage is the reported one, like the counts.
    let expected = [
      "⎋[?25l",
      "⏎Task ▕            ▏   0%⎋[K",
      "⏎Task ▕▏                   ▏  10%  5/50⎋[K",
      "⏎Task ▕▍                   ▏  10%  5/50⎋[K",
      "⏎Task ▕▊                   ▏  10%  5/50⎋[K",
      "⏎Task ▕█                   ▏  10%  5/50⎋[K",
      "⏎Task ▕█▌                  ▏  20%  10/50⎋[K",
      "⏎Task ▕██                  ▏  20%  10/50⎋[K",
      "⏎Task ▕██▋                 ▏  20%  10/50⎋[K",
      "⏎Task ▕███                 ▏  20%  10/50⎋[K",
      "⏎Task ▕███▋                ▏  40%  20/50⎋[K",
      "⏎Task ▕████▌               ▏  40%  20/50⎋[K",
      "⏎Task ▕█████▍              ▏  40%  20/50⎋[K",
      "⏎Task ▕██████              ▏  40%  20/50⎋[K",
      "⏎Task ▕███████             ▏  60%  30/50⎋[K",
      "⏎Task ▕████████▏           ▏  60%  30/50⎋[K",
      "⏎Task ▕█████████▎          ▏  60%  30/50⎋[K",
      "⏎Task ▕██████████          ▏  60%  30/50⎋[K",
      "⏎Task ▕███████████▏        ▏  90%  45/50⎋[K",
      "⏎Task ▕████████████▋       ▏  90%  45/50⎋[K",
      "⏎Task ▕██████████████      ▏  90%  45/50⎋[K",
      "⏎Task ▕███████████████▏    ▏  90%  45/50⎋[K",
      "⏎Task ▕████████████████▏   ▏ 100%  50/50⎋[K",
      "⏎Task ▕█████████████████▎  ▏ 100%  50/50⎋[K",
      "⏎Task ▕██████████████████▍ ▏ 100%  50/50⎋[K",
      "⏎Task ▕███████████████████ ▏ 100%  50/50⎋[K",
      "⏎Task ▕████████████████████▏ 100%  50/50⎋[K\ndone in 1.2s\n⎋[?25h",
    ]
    #expect(terminal.visible == expected.joined())
  }

  @Test func at20ColumnsOnlyTheBarAndThePercentageRemain() async {
    let terminal = await play(columns: 20, capabilities: .interactiveUnicode)
    let frames = terminal.redraws
    #expect(frames.first == "▕            ▏   0%")
    #expect(frames.dropLast().last == "▕███████████▍▏ 100%")  // reported: the bar still glides
    #expect(terminal.output.hasSuffix("▕████████████▏ 100%\u{1B}[K\ndone in 1.2s\n\u{1B}[?25h"))
    #expect(frames.allSatisfy { $0.count <= 19 })
  }

  @Test(arguments: 1...12)
  func onATerminalTooNarrowForTheBarEveryRowIsCutAndTheStatusWrittenWhole(columns: Int) async {
    for capabilities in [TerminalCapabilities.interactiveUnicode, .interactiveASCII, .dumb] {
      let terminal = await play(columns: columns, capabilities: capabilities)
      // Scalar by scalar: an empty row's `\r` and `\n` make one character.
      let scalars = terminal.output.unicodeScalars
      let frames = scalars.split(separator: "\r", omittingEmptySubsequences: false).dropFirst()
        .map { String(String.UnicodeScalarView($0.prefix { $0 != "\n" && $0 != "\u{1B}" })) }
      #expect(!frames.isEmpty)
      for frame in frames {
        #expect(TerminalFormat.columns(frame) <= columns - 1, "\(columns): \(frame)")
      }
      let rows = String(String.UnicodeScalarView(scalars.filter { $0 != "\r" }))
      #expect(rows.contains("\ndone in 1.2s\n"))
    }
  }

  @Test func at200ColumnsTheBarFillsTheLineAndKeepsItsWidth() async {
    let terminal = await play(columns: 200, capabilities: .interactiveUnicode) { script in
      script.counts = (1...40).map { $0 * 25 }
      script.total = 1_000
    }
    let frames = terminal.redraws
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
        == "Task ▕██████████████                     ▏  40%  20/50\u{1B}[K\n"
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
    let harness = Harness(animation: ProgressAnimation(curve: .linear, duration: .seconds(1)))
    let clock = harness.clock
    let terminal = MemoryTerminal(columns: 60, now: { clock.now.offset })
    let token = harness.runner.attach(TerminalRenderer(output: terminal))
    let proceed = await harness.startHeldRun(reporting: 1)
    harness.clock.advance(by: .seconds(2) - frame)
    proceed.open()
    await harness.recorder.waitForTerminalState()
    // Every redraw goes back to the start of the row; the first one hides the cursor first.
    let redraws = terminal.writes.filter { $0.text.contains("\r") }
    // A 1 s glide, redrawn on every third 60 Hz frame: three frames are 50 ms, less the few
    // attoseconds that `Duration` loses in dividing a second by 60.
    #expect(redraws.count >= 20)
    // Between the first draw (the start) and the last (the end), redraws are 3 frames apart.
    for (previous, next) in zip(redraws.dropFirst(), redraws.dropFirst(2).dropLast()) {
      #expect(next.time - previous.time >= frame * 3)
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
    let frames = terminal.redraws.dropFirst()  // the first one is the 0% of the start
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
    #expect(last.hasSuffix("  7  cancelled after 1.0s\u{1B}[K\n\u{1B}[?25h"))
    token.cancel()
  }

  @Test func asciiWhereTheLocaleIsNotUTF8() async {
    let terminal = await play(columns: 40, capabilities: .interactiveASCII)
    let frames = terminal.redraws
    #expect(frames[2] == "Task [>                   ]  10%  5/50")
    #expect(frames[4] == "Task [#>                  ]  20%  10/50")
    #expect(frames.last == "Task [####################] 100%  50/50")
    #expect(terminal.output.unicodeScalars.allSatisfy { $0.isASCII })
  }

  @Test func aDumbTerminalGetsCarriageReturnsButNoEscapeSequences() async {
    let terminal = await play(columns: 40, capabilities: .dumb)
    #expect(!terminal.output.contains("\u{1B}"))
    let frames = terminal.redraws
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
    let frames = terminal.redraws
    // At 30 columns there is no room for an ETA; at 50 there is, and 15 columns are kept for it.
    #expect(frames.first?.count == 29)
    #expect(frames.last?.count == 34)
    harness.runner.cancel()
    token.cancel()
  }

  /// A bar at `columns` that shows a message; with `narrowedTo`, the terminal is resized and a
  /// frame comes a millisecond after the last draw, well within the redraw interval.
  private func barWithAMessage(columns: Int, narrowedTo newColumns: Int? = nil) -> MemoryTerminal {
    let terminal = MemoryTerminal(columns: columns, rows: 5, emulatesScreen: true)
    let renderer = TerminalRenderer(
      label: "Task", output: terminal, restoresTerminalOnSignals: false)
    renderer.render(
      ProgressUpdate(reason: .stateChanged, state: .running(0), displayedProgress: 0, time: .zero))
    let progress = RunProgress(completed: 20, of: 50, message: "Hashing IMG_0042.jpg")
    renderer.render(
      ProgressUpdate(
        reason: .stateChanged, state: .running(progress), displayedProgress: 0.4,
        time: .milliseconds(100)))
    if let newColumns {
      terminal.resize(columns: newColumns, rows: 5)
    }
    renderer.render(
      ProgressUpdate(
        reason: .frame, state: .running(progress), displayedProgress: 0.4,
        time: .milliseconds(101)))
    return terminal
  }

  @Test(arguments: [(80, 30), (60, 59), (40, 12), (30, 80)])
  func aResizedTerminalGetsTheLineAFreshOneWouldDrawAtOnce(columns: Int, newColumns: Int) {
    let resized = barWithAMessage(columns: columns, narrowedTo: newColumns)
    let fresh = barWithAMessage(columns: newColumns)
    let screen = resized.screen!
    #expect(screen.trimmedScreen == fresh.screen!.trimmedScreen)
    #expect(screen.wraps == 0)
    #expect(screen.screen.allSatisfy { VirtualTerminal.columns(of: $0) < newColumns })
    // The redraw went back to the start of the bar's row and erased the rest of it.
    #expect(resized.output.hasSuffix("\u{1B}[K"))
    #expect(resized.output.split(separator: "\r").count == 4)  // 0%, 40%, and the resize
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
      // A hundred reports spread over the million, each a round trip through the main actor.
      script.counts = Array(stride(from: 1, through: 1_000_000, by: 9_973)) + [1_000_000]
      script.total = 1_000_000
      script.step = .milliseconds(1)
    }
    #expect(terminal.lines.count <= 1 + 10 + 1 + 1)
    #expect(terminal.lines.first == "Task: started")
    #expect(terminal.lines.dropLast().last?.hasPrefix("Task: finished in ") == true)
    #expect(!terminal.output.contains("\r") && !terminal.output.contains("\u{1B}"))
  }

  // MARK: - Rate and ETA

  @Test func theRateAndTheETAAreTheRunnersOwnAndShowOnlyOnceItHasThem() async {
    // Slow, then a burst, then slow again.
    let counts = [2, 4, 6, 8, 10, 12, 14, 60, 62, 64, 66, 68, 70, 72, 74, 76, 78, 80]
    let harness = Harness(animation: ProgressAnimation(curve: .linear))
    let terminal = MemoryTerminal(columns: 120)
    let drawer = TerminalRenderer(label: "Task", output: terminal)
    // Every update with the line drawn for it, if any.
    var drawn: [(update: ProgressUpdate, line: String)] = []
    let token = harness.runner.attach(
      RecordingRenderer { update in
        terminal.clear()
        drawer.render(update)
        if let redraw = terminal.output.split(separator: "\r").last, terminal.output.contains("\r")
        {
          drawn.append((update, String(redraw.prefix { $0 != "\u{1B}" })))
        }
      })
    let reached = counts.map { _ in Latch() }
    let proceed = counts.map { _ in Latch() }
    harness.runner.start { reporter in
      for (index, count) in counts.enumerated() {
        reporter.report(completed: count, of: 100)
        reached[index].open()
        await proceed[index].wait()
      }
      await Latch().wait()
    }
    for index in counts.indices {
      await reached[index].wait()
      harness.clock.advance(by: .milliseconds(150))
      proceed[index].open()
    }
    harness.runner.cancel()
    token.cancel()
    let draws = drawn.filter { $0.update.state.phase == .running }
    #expect(draws.count > 20)
    for (update, line) in draws {
      let rate = update.throughput.map { ProgressUnit.items.format(throughput: $0) }
      let eta = update.estimatedTimeRemaining.map { "ETA " + TerminalFormat.remaining($0) }
      #expect(rate.map { line.contains("  " + $0) } ?? !line.contains("it/s"), "\(line)")
      #expect(eta.map { line.contains("  " + $0) } ?? !line.contains("ETA"), "\(line)")
    }
    // The runner estimates once reports have moved the run; the line shows nothing before.
    #expect(!draws.prefix(3).contains { $0.line.contains("ETA") || $0.line.contains("it/s") })
    #expect(draws.filter { $0.line.contains(" it/s  ETA ") }.count > 10)
  }

  @Test func aFractionOnlyRunHasAnETAButNoRate() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 80)
    let token = harness.runner.attach(TerminalRenderer(label: "Task", output: terminal))
    let fractions = [0.1, 0.2, 0.3, 0.4, 0.5]
    let reached = fractions.map { _ in Latch() }
    let proceed = fractions.map { _ in Latch() }
    harness.runner.start { reporter in
      for (index, fraction) in fractions.enumerated() {
        await proceed[index].wait()
        reporter.report(fractionCompleted: fraction)
        reached[index].open()
      }
      await Latch().wait()
    }
    for index in fractions.indices {
      harness.clock.advance(by: .milliseconds(999))
      proceed[index].open()
      await reached[index].wait()
      harness.clock.advance(by: .milliseconds(1))
    }
    // The last report is drawn at once or at the next redraw, at most 50 ms later.
    harness.clock.advance(by: .milliseconds(100))
    #expect(harness.runner.throughput == nil)
    let eta = harness.runner.estimatedTimeRemaining ?? .zero
    // 10% a second, 50% left: five seconds, and a little more as the rate decays; rounded up.
    #expect(eta > .seconds(5) && eta < .seconds(5.01))
    #expect(terminal.redraws.last?.hasSuffix("▏  50%  ETA 0:06") == true)
    #expect(!terminal.output.contains("/s"))
    harness.runner.cancel()
    token.cancel()
  }

  // MARK: - Units

  @Test func bytesAreShownInTheirUnitsEndToEnd() async {
    let harness = Harness(animation: .instant)
    harness.runner.unit = .bytes
    let terminal = MemoryTerminal(columns: 100)
    let token = harness.runner.attach(TerminalRenderer(label: "Copying", output: terminal))
    // 12.3 MB a second for 98 seconds: 1.2 GB of 3.4 GB.
    let steps = 98
    let reached = (0..<steps).map { _ in Latch() }
    let proceed = (0..<steps).map { _ in Latch() }
    harness.runner.start { reporter in
      for step in 0..<steps {
        await proceed[step].wait()
        reporter.report(completed: (step + 1) * 12_300_000, of: 3_400_000_000)
        reached[step].open()
      }
      await Latch().wait()
    }
    for step in 0..<steps {
      harness.clock.advance(by: .milliseconds(999))
      proceed[step].open()
      await reached[step].wait()
      harness.clock.advance(by: .milliseconds(1))  // the frame that reads the report
    }
    // The last report is drawn at once or at the next redraw, at most 50 ms later.
    harness.clock.advance(by: .milliseconds(100))
    let throughput = harness.runner.throughput ?? 0
    let eta = harness.runner.estimatedTimeRemaining ?? .zero
    #expect(abs(throughput - 12_300_000) < 10_000)  // it decays a little while nothing moves
    // 2,194.6 MB left at 12.3 MB/s: 178.4 s, rounded up.
    #expect(abs(eta / .seconds(1) - 178.5) < 0.1)
    #expect(
      terminal.redraws.last?.hasSuffix("▏  35%  1.2 GB / 3.4 GB  12.3 MB/s  ETA 2:59") == true)
    harness.runner.cancel()
    #expect(
      terminal.output.hasSuffix(
        "▏  35%  1.2 GB / 3.4 GB  cancelled after 1:38\u{1B}[K\n\u{1B}[?25h"))
    token.cancel()
  }

  /// A stage under way takes the fraction beyond the counts: the percentage and the counts show
  /// the fraction, as the bar does.
  @Test func aPercentageBeyondTheCountsIsTheFraction() {
    let progress = RunProgress(fractionCompleted: 0.45, completed: 0, of: 100)
    let terminal = MemoryTerminal(columns: 60)
    let renderer = TerminalRenderer(label: "Stage", output: terminal)
    renderer.render(
      ProgressUpdate(reason: .stateChanged, state: .running(0), displayedProgress: 0, time: .zero))
    renderer.render(
      ProgressUpdate(
        reason: .stateChanged, state: .running(progress), displayedProgress: 0.45,
        time: .seconds(1)))
    #expect(terminal.redraws[1].hasSuffix("▏  45%  45/100"))
    renderer.didDetach()
  }

  @Test func theRenderersUnitOverridesTheRunners() {
    let progress = RunProgress(completed: 1 << 30, of: 1 << 31)
    let updates = [
      ProgressUpdate(reason: .stateChanged, state: .running(0), displayedProgress: 0, time: .zero),
      ProgressUpdate(
        reason: .stateChanged, state: .running(progress), displayedProgress: 0.5,
        time: .seconds(1), throughput: 1_048_576, estimatedTimeRemaining: .seconds(1024)),
      ProgressUpdate(
        reason: .stateChanged, state: .finished, displayedProgress: 1, time: .seconds(2)),
    ]
    let terminal = MemoryTerminal(columns: 80)
    let renderer = TerminalRenderer(label: "Task", unit: .binaryBytes, output: terminal)
    let plain = MemoryTerminal(columns: 80, capabilities: .plain)
    let plainRenderer = TerminalRenderer(label: "Task", unit: .binaryBytes, output: plain)
    for update in updates {
      renderer.render(update)
      plainRenderer.render(update)
    }
    #expect(terminal.redraws[1].hasSuffix("▏  50%  1.0 GiB / 2.0 GiB  1.0 MiB/s  ETA 17:04"))
    #expect(
      terminal.output.hasSuffix("▏ 100%  2.0 GiB / 2.0 GiB  done in 2.0s\u{1B}[K\n\u{1B}[?25h"))
    #expect(
      plain.lines == [
        "Task: started", "Task: 50%  1.0 GiB / 2.0 GiB",
        "Task: finished in 2.0s  2.0 GiB / 2.0 GiB",
        "",
      ])
  }

  // MARK: - Messages

  /// A message, a wide one, and one that tries to break the line and clear the screen.
  nonisolated static let messages = [
    "Hashing IMG_0042.jpg", "写真を処理しています：京都の休日の四十二枚目",
    "two\nlines \u{1B}[2J\u{1B}]0;title\u{7} and\r a bell\u{7}",
    "\u{202E}txt.emdaer\u{202C} \u{2066}isolated\u{2069}\u{200B}\u{FEFF}",
  ]

  @Test(arguments: [20, 40, 80, 200], messages)
  func aMessageFitsEveryWidthAndNeverBreaksTheLine(columns: Int, message: String) {
    let terminal = MemoryTerminal(columns: columns)
    let renderer = TerminalRenderer(label: "Heavy task", output: terminal)
    renderer.render(
      ProgressUpdate(reason: .stateChanged, state: .running(0), displayedProgress: 0, time: .zero))
    for step in 1...25 {
      let progress = RunProgress(completed: 2 * step, of: 50, message: message)
      renderer.render(
        ProgressUpdate(
          reason: .stateChanged, state: .running(progress), displayedProgress: Double(step) / 25,
          time: .milliseconds(100 * step), throughput: 20,
          estimatedTimeRemaining: .milliseconds(100 * (25 - step))))
    }
    renderer.render(
      ProgressUpdate(
        reason: .stateChanged, state: .finished, displayedProgress: 1, time: .milliseconds(2600)))
    let frames = terminal.redraws
    #expect(frames.count == 27)
    for frame in frames {
      #expect(TerminalFormat.columns(frame) <= columns - 1, "\(frame)")
    }
    // No newline before the end of the run, and no escape sequence but the renderer's own.
    let lastRedraw = terminal.output.lastIndex(of: "\r") ?? terminal.output.endIndex
    #expect(!terminal.output[..<lastRedraw].contains("\n"))
    var written = terminal.output
    for own in ["\u{1B}[?25l", "\u{1B}[K", "\u{1B}[?25h"] {
      written = written.replacing(own, with: "")
    }
    #expect(!written.contains("\u{1B}") && !written.contains("\u{7}"))
    #expect(!written.unicodeScalars.contains(where: TerminalFormat.isHiddenFormat))
    // From 80 columns the message shows, whole or cut; the final line has none.
    let shown = TerminalFormat.singleLine(message)
    if columns >= 80 {
      #expect(frames.dropFirst().dropLast().allSatisfy { $0.contains("  " + shown.prefix(6)) })
    } else {
      #expect(!frames.contains { $0.contains(shown.prefix(6)) })
    }
    #expect(!frames[frames.count - 1].contains(shown.prefix(6)))
  }

  @Test func theHeavyTaskLineAt80Columns() {
    let terminal = MemoryTerminal(columns: 80)
    let renderer = TerminalRenderer(label: "Heavy task", output: terminal)
    renderer.render(
      ProgressUpdate(reason: .stateChanged, state: .running(0), displayedProgress: 0, time: .zero))
    renderer.render(
      ProgressUpdate(
        reason: .stateChanged,
        state: .running(RunProgress(completed: 26, of: 50, message: "Hashing IMG_0042.jpg")),
        displayedProgress: 0.52, time: .seconds(1), throughput: 24.8,
        estimatedTimeRemaining: .milliseconds(970)))
    #expect(
      terminal.redraws.last
        == "Heavy task ▕█████▏    ▏  52%  26/50  24.8 it/s  ETA 0:01  Hashing IMG_0042.jpg")
  }

  @Test func plainStepsCarryTheMessageOnOneLine() {
    let plain = MemoryTerminal(columns: 80, capabilities: .plain)
    let renderer = TerminalRenderer(label: "Task", output: plain)
    renderer.render(
      ProgressUpdate(reason: .stateChanged, state: .running(0), displayedProgress: 0, time: .zero))
    for (count, message) in [
      (5, "Hashing a.jpg"), (6, "Hashing b.jpg"), (10, "two\nlines\u{1B}[2J"),
    ] {
      renderer.render(
        ProgressUpdate(
          reason: .stateChanged,
          state: .running(RunProgress(completed: count, of: 50, message: message)),
          displayedProgress: 0, time: .seconds(count)))
    }
    renderer.render(
      ProgressUpdate(
        reason: .stateChanged, state: .cancelled, displayedProgress: 0, time: .seconds(11)))
    #expect(
      plain.lines == [
        "Task: started", "Task: 10%  5/50  Hashing a.jpg", "Task: 20%  10/50  two lines [2J",
        "Task: cancelled after 11.0s at 20% 10/50", "",
      ])
  }

  @Test(arguments: [TerminalCapabilities.interactiveUnicode, .plain])
  func invisibleFormatCharactersNeverReachTheTerminal(capabilities: TerminalCapabilities) {
    let terminal = MemoryTerminal(columns: 80, capabilities: capabilities)
    let renderer = TerminalRenderer(
      label: "Task\u{2067}", output: terminal, restoresTerminalOnSignals: false)
    renderer.render(
      ProgressUpdate(reason: .stateChanged, state: .running(0), displayedProgress: 0, time: .zero))
    // A right-to-left override would draw the rest of the line backwards: `exe.jpg`.
    let message = "Opening photo\u{202E}gpj.exe\u{202C} soft\u{AD}ly\u{200B}"
    renderer.render(
      ProgressUpdate(
        reason: .stateChanged,
        state: .running(RunProgress(completed: 10, of: 50, message: message)),
        displayedProgress: 0.2, time: .seconds(1)))
    renderer.render(
      ProgressUpdate(
        reason: .stateChanged, state: .failed(TestError(message: "bad\u{FEFF} file\u{2069}")),
        displayedProgress: 0.2, time: .seconds(2)))
    #expect(!terminal.output.unicodeScalars.contains(where: TerminalFormat.isHiddenFormat))
    #expect(terminal.output.contains("Opening photogpj.exe softly"))
  }

  // MARK: - Pausing

  /// Starts a run on `harness` that reports 26 of 50 with a message, then 27 of 50 when the
  /// first latch opens; returns once the first report was drawn, with that latch and one that
  /// opens when the second report is made.
  private func startPausableRun(_ harness: Harness) async -> (proceed: Latch, reported: Latch) {
    let first = Latch()
    let proceed = Latch()
    let reported = Latch()
    harness.runner.start { reporter in
      reporter.report(message: "Hashing IMG_0042.jpg")
      reporter.report(completed: 26, of: 50)
      first.open()
      await proceed.wait()
      reporter.report(completed: 27, of: 50)
      reported.open()
      await Latch().wait()
    }
    await first.wait()
    harness.clock.advance(by: .milliseconds(100))  // a redraw after the report
    return (proceed, reported)
  }

  @Test func aPausedBarSaysSoInPlaceOfTheRateAndTheETAAndGoesOnDrawing() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 80)
    let token = harness.runner.attach(TerminalRenderer(label: "Task", output: terminal))
    let (proceed, reported) = await startPausableRun(harness)
    // Room is kept for the rate and the ETA, and for the message: the bar is 13 cells.
    #expect(terminal.redraws.last == "Task ▕██████▊      ▏  52%  26/50  Hashing IMG_0042.jpg")
    harness.runner.pause()
    #expect(
      terminal.redraws.last == "Task ▕██████▊      ▏  52%  26/50  paused  Hashing IMG_0042.jpg")
    // Work not yet at a checkpoint still reports; the paused bar shows it.
    proceed.open()
    await reported.wait()
    harness.clock.advance(by: .milliseconds(100))
    #expect(
      terminal.redraws.last == "Task ▕███████      ▏  54%  27/50  paused  Hashing IMG_0042.jpg")
    harness.runner.resume()
    #expect(terminal.redraws.last == "Task ▕███████      ▏  54%  27/50  Hashing IMG_0042.jpg")
    harness.runner.cancel()
    #expect(terminal.output.hasSuffix("▏  54%  27/50  cancelled after 0.2s\u{1B}[K\n\u{1B}[?25h"))
    token.cancel()
  }

  @Test func plainOutputSaysWhereARunPausedAndResumed() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 80, capabilities: .plain)
    let token = harness.runner.attach(TerminalRenderer(label: "Task", output: terminal))
    let (proceed, reported) = await startPausableRun(harness)
    harness.runner.pause()
    proceed.open()
    await reported.wait()
    harness.clock.advance(by: .milliseconds(100))
    harness.runner.resume()
    harness.runner.cancel()
    #expect(
      terminal.lines == [
        "Task: started", "Task: 52%  26/50  Hashing IMG_0042.jpg", "Task: paused at 52%  26/50",
        "Task: resumed at 54%  27/50", "Task: cancelled after 0.2s at 54% 27/50", "",
      ])
    token.cancel()
  }
}

extension TerminalRendererTests {
  @Test func updatesARunnerNeverSendsDrawWithoutTrapping() {
    let terminal = MemoryTerminal(columns: 40)
    let renderer = TerminalRenderer(label: "Task", output: terminal)
    let updates: [ProgressUpdate] = [
      ProgressUpdate(
        reason: .stateChanged, state: .running(.indeterminate()), displayedProgress: .nan,
        time: .seconds(5)),
      // Before the run began, with a displayed progress that is not a number.
      ProgressUpdate(
        reason: .frame, state: .running(.indeterminate()), displayedProgress: .nan,
        time: .seconds(4)),
      ProgressUpdate(
        reason: .stateChanged, state: .running(0.5), displayedProgress: .infinity,
        time: .seconds(6), throughput: .nan, estimatedTimeRemaining: .seconds(-1)),
      ProgressUpdate(
        reason: .stateChanged, state: .finished, displayedProgress: 1, time: .seconds(Int64.max)),
    ]
    for update in updates {
      renderer.render(update)
    }
    #expect(terminal.output.contains("done in"))
  }

  @Test func aTerminalWithoutEscapesBlanksWideLeftoversByColumns() {
    let terminal = MemoryTerminal(columns: 80, capabilities: .dumb)
    let renderer = TerminalRenderer(label: "Task", output: terminal)
    for (index, message) in ["日本語日本語", "ab"].enumerated() {
      renderer.render(
        ProgressUpdate(
          reason: .stateChanged,
          state: .running(RunProgress(completed: 1, of: 4, message: message)),
          displayedProgress: 0.25, time: .seconds(index)))
    }
    let lines = terminal.output.split(separator: "\r").map(String.init)
    let (wide, narrow) = (lines[lines.count - 2], lines[lines.count - 1])
    #expect(TerminalFormat.columns(narrow) >= TerminalFormat.columns(wide))
  }

  @Test func plainStepsWrittenWhilePausedSaySo() {
    let terminal = MemoryTerminal(columns: 80, capabilities: .plain)
    let renderer = TerminalRenderer(label: "Task", output: terminal)
    let states: [RunState] = [
      .running(RunProgress(completed: 0, of: 10)), .paused(RunProgress(completed: 0, of: 10)),
      .paused(RunProgress(completed: 3, of: 10, message: "Hashing c.jpg")),
      .running(RunProgress(completed: 3, of: 10, message: "Hashing c.jpg")),
      .running(RunProgress(completed: 4, of: 10, message: "Hashing d.jpg")),
    ]
    for (index, state) in states.enumerated() {
      renderer.render(
        ProgressUpdate(
          reason: .stateChanged, state: state, displayedProgress: 0,
          time: .milliseconds(100 * index)))
    }
    #expect(
      terminal.lines == [
        "Task: started", "Task: paused at 0%  0/10", "Task: 30%  3/10  paused  Hashing c.jpg",
        "Task: resumed at 30%  3/10", "Task: 40%  4/10  Hashing d.jpg", "",
      ])
  }
}
