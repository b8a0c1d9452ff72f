import Foundation
import TaskProgressTestSupport
import Testing

@testable import TaskProgress
@testable import TaskProgressAdapters

/// A group renderer fed events by hand, on a memory terminal that emulates its screen.
///
/// The members go through a group's state machine too, whose snapshot each frame carries, as a
/// group's frames do; the summaries are the test's.
@MainActor
private final class Scene {
  let terminal: MemoryTerminal
  let renderer: TerminalGroupRenderer
  let clock = ManualClock()
  /// The group's time, advanced by each frame.
  private(set) var time: Duration = .zero
  private(set) var ids: [ObjectIdentifier] = []
  private var members: [TaskRunnerGroup.Member] = []
  private var group = GroupStateMachine(weighting: .units)

  init(
    columns: Int = 80, rows: Int? = 24, capabilities: TerminalCapabilities = .interactiveUnicode,
    summaryLabel: String? = "Total", finishedBars: TerminalGroupRenderer.FinishedBars = .keep,
    unit: ProgressUnit? = nil
  ) {
    terminal = MemoryTerminal(
      columns: columns, rows: rows, capabilities: capabilities, emulatesScreen: true)
    renderer = TerminalGroupRenderer(
      summaryLabel: summaryLabel, unit: unit, finishedBars: finishedBars, output: terminal,
      restoresTerminalOnSignals: false)
  }

  var screen: VirtualTerminal {
    terminal.screen!
  }

  /// A member joins in `state`; returns its index.
  @discardableResult
  func join(_ label: String, _ state: RunState = .idle) -> Int {
    let member = TaskRunnerGroup.Member(runner: TaskRunner(clock: clock), label: label)
    members.append(member)
    ids.append(member.id)
    _ = group.join(member, waiting: false)
    deliver(update(state), to: members.count - 1)
    return ids.count - 1
  }

  func update(
    _ state: RunState, reason: ProgressUpdate.Reason = .stateChanged, displayed: Double? = nil,
    throughput: Double? = nil, eta: Duration? = nil, unit: ProgressUnit = .items
  ) -> ProgressUpdate {
    ProgressUpdate(
      reason: reason, state: state, displayedProgress: displayed ?? state.fractionCompleted ?? 0,
      time: time, throughput: throughput, estimatedTimeRemaining: eta, unit: unit)
  }

  /// Member `index` changes to `state`.
  func set(
    _ index: Int, _ state: RunState, reason: ProgressUpdate.Reason = .stateChanged,
    displayed: Double? = nil, throughput: Double? = nil, eta: Duration? = nil,
    unit: ProgressUnit = .items
  ) {
    deliver(
      update(
        state, reason: reason, displayed: displayed, throughput: throughput, eta: eta, unit: unit),
      to: index)
  }

  private func deliver(_ update: ProgressUpdate, to index: Int) {
    _ = group.update(ids[index], update, at: time)
    renderer.render(.updated(members[index], update))
  }

  func leave(_ index: Int) {
    _ = group.leave(ids[index], at: time)
    renderer.render(.left(ids[index]))
  }

  /// A frame of the group, `after` the last one.
  func frame(_ summary: TaskRunnerGroup.Summary, after: Duration = .milliseconds(100)) {
    time += after
    renderer.render(.frame(summary, members: group.snapshot, time: time))
  }
}

/// A summary of `counts` at `fraction`, in items, each runner weighing `weight`.
private func summary(
  _ fraction: Double, running: Int = 0, paused: Int = 0, finished: Int = 0, failed: Int = 0,
  cancelled: Int = 0, idle: Int = 0, waiting: Int = 0, weight: Double = 100,
  throughput: Double? = nil,
  eta: Duration? = nil, unit: ProgressUnit = .items, settled: Bool? = nil
) -> TaskRunnerGroup.Summary {
  var counts = TaskRunnerGroup.PhaseCounts()
  counts.running = running
  counts.paused = paused
  counts.finished = finished
  counts.failed = failed
  counts.cancelled = cancelled
  counts.idle = idle + waiting
  counts.waiting = waiting
  let total = weight * Double(counts.total)
  return TaskRunnerGroup.Summary(
    fractionCompleted: fraction, displayedProgress: fraction, completedUnits: total * fraction,
    totalUnits: total, isTotalKnown: true, counts: counts, throughput: throughput,
    estimatedTimeRemaining: eta, unit: unit,
    // As a group has it: no run under way, none waiting, unless the test says otherwise.
    isSettled: settled ?? (counts.active == 0 && counts.idle == 0))
}

/// A runner of a real group whose operation reports once and then holds until the test ends it.
@MainActor
private final class HeldWork {
  let runner: TaskRunner
  let recorder: StateRecorder
  private let proceed = Latch()

  /// Starts the run; returns once it reported `completed` of `total`.
  init(
    _ label: String, in group: TaskRunnerGroup, clock: ManualClock, completed: Int,
    of total: Int, failing: Bool = false, animation: ProgressAnimation = .instant
  ) async {
    runner = TaskRunner(animation: animation, clock: clock)
    recorder = StateRecorder(observing: runner)
    group.add(runner, label: label)
    let (reported, proceed) = (Latch(), self.proceed)
    runner.start { reporter in
      reporter.report(completed: completed, of: total)
      reported.open()
      await proceed.wait()
      if failing { throw TestError(message: "disk full") }
    }
    await reported.wait()
  }

  /// Lets the operation return, and waits for the run to end.
  func end() async {
    proceed.open()
    await recorder.waitForTerminalState()
  }
}

/// The screen rows that hold a bar (`▕`, or `[` without Unicode).
private func barRows(_ screen: [String]) -> [String] {
  screen.filter { $0.contains("▕") }
}

/// The display column where the bar of a row opens.
private func barColumn(_ row: String) -> Int? {
  row.firstIndex(of: "▕").map { VirtualTerminal.columns(of: String(row[..<$0])) }
}

@MainActor
@Suite("Terminal group renderer", .timeLimit(TestScale.timeLimit(minutes: 3)))
struct TerminalGroupRendererTests {
  // MARK: - The live area

  @Test func eightBarsInAFourRowTerminalDrawFourRows() {
    let scene = Scene(columns: 60, rows: 4)
    for index in 1...8 {
      scene.join("file-\(index)", .running(RunProgress(completed: index * 10, of: 100)))
    }
    scene.frame(summary(0.45, running: 8))
    #expect(
      scene.screen.screen == [
        "file-1 ▕█          ▏  10%  10/100",
        "file-2 ▕██▏        ▏  20%  20/100",
        "… 6 more",
        "Total  ▕████▉      ▏  45%  360/800  8 running",
      ])
    #expect(scene.terminal.writeCount == 1)
    #expect(!scene.screen.isCursorVisible)
    #expect(scene.screen.wraps == 0 && scene.screen.scrolls == 0)
    #expect(scene.screen.unknownSequences.isEmpty)
  }

  @Test func withoutAKnownHeightTheAreaKeepsTo24Rows() {
    let scene = Scene(columns: 60, rows: nil)
    for index in 1...30 {
      scene.join("f\(index)", .running(.zero))
    }
    scene.frame(summary(0, running: 30))
    #expect(scene.screen.screen.count == 24)
    #expect(barRows(scene.screen.screen).count == 23)  // 22 bars and the total
    #expect(scene.screen.screen[22] == "… 8 more")
    #expect(scene.screen.screen[23].hasPrefix("Total ▕"))
    #expect(scene.screen.scrolls == 0)
  }

  @Test func withoutUnicodeTheHiddenBarsAreCountedInASCII() {
    let scene = Scene(columns: 40, rows: 3, capabilities: .interactiveASCII)
    for index in 1...5 {
      scene.join("f\(index)", .running(.zero))
    }
    scene.frame(summary(0, running: 5))
    #expect(scene.screen.screen[1] == "... 4 more")
    #expect(scene.screen.screen[0].hasPrefix("f1    ["))
  }

  @Test func withoutASummaryLabelThereIsNoSummaryLine() {
    let scene = Scene(columns: 60, rows: 3, summaryLabel: nil)
    for index in 1...4 {
      scene.join("f\(index)", .running(.zero))
    }
    scene.frame(summary(0, running: 4))
    #expect(
      scene.screen.screen == [
        "f1 ▕                                  ▏   0%",
        "f2 ▕                                  ▏   0%",
        "… 2 more",
      ])
  }

  @Test(arguments: [TerminalCapabilities.interactiveUnicode, .plain])
  func invisibleFormatCharactersInLabelsAndMessagesNeverReachTheTerminal(
    capabilities: TerminalCapabilities
  ) {
    let scene = Scene(columns: 80, rows: 10, capabilities: capabilities)
    scene.join("photo\u{202E}gpj.exe", .running(.zero))
    scene.set(
      0, .running(RunProgress(completed: 1, of: 4, message: "Reading\u{2066} a\u{200B}b\u{FEFF}")))
    scene.frame(summary(0.25, running: 1))
    scene.set(0, .failed(TestError(message: "disk\u{202B} full")))
    scene.frame(summary(0, failed: 1, settled: true))
    let written = scene.terminal.output
    #expect(!written.unicodeScalars.contains(where: TerminalFormat.isHiddenFormat))
    #expect(written.contains("photogpj.exe"))
  }

  @Test func anIdleMemberHasNoBarButIsCountedInTheSummary() {
    let scene = Scene(columns: 60, rows: 10)
    scene.join("waiting")
    scene.join("working", .running(RunProgress(completed: 1, of: 4)))
    scene.frame(summary(0.125, running: 1, idle: 1))
    let screen = scene.screen.trimmedScreen
    #expect(screen.count == 2)
    #expect(screen[0].hasPrefix("working ▕"))
    #expect(screen[1].hasSuffix("1 running, 1 idle"))
  }

  @Test func labelsArePaddedSoThatTheBarsAlignAndLongOnesAreCutAtAThird() {
    let scene = Scene(columns: 60, rows: 10, summaryLabel: "Σ")
    scene.join("a", .running(RunProgress(completed: 1, of: 10)))
    scene.join("medium.bin", .running(RunProgress(completed: 5, of: 10)))
    scene.join("日本語", .running(RunProgress(completed: 9, of: 10)))
    scene.join("", .running(RunProgress(fractionCompleted: 0.5)))
    scene.frame(summary(0.5, running: 4))
    let rows = scene.screen.trimmedScreen
    #expect(rows.count == 5)
    #expect(rows.allSatisfy { barColumn($0) == 11 })
    #expect(rows[2].hasPrefix("日本語     ▕"))
    #expect(rows[3].hasPrefix("           ▕"))
    // Every bar has the same width: the percentages line up too.
    #expect(
      Set(rows.map { VirtualTerminal.columns(of: String($0.prefix { $0 != "%" })) }).count == 1)

    let long = Scene(columns: 60, rows: 10)
    long.join("a-very-long-file-name-that-goes-on.tar.gz", .running(.zero))
    long.join("b", .running(.zero))
    long.frame(summary(0, running: 2))
    #expect(long.screen.screen[0].hasPrefix("a-very-long-file-n… ▕"))  // 59 / 3 = 19 columns
    #expect(long.screen.screen[1].hasPrefix("b                   ▕"))
  }

  @Test func aBarShowsWhatTheSingleRenderersLineShows() {
    let scene = Scene(columns: 100, rows: 10, unit: .bytes)
    scene.join("disk.img", .running(RunProgress(completed: 1_200_000_000, of: 3_400_000_000)))
    scene.set(
      0, .running(RunProgress(completed: 1_200_000_000, of: 3_400_000_000, message: "Block 7")),
      reason: .frame, displayed: 0.3, throughput: 12_300_000, eta: .seconds(179))
    scene.join("b", .paused(RunProgress(completed: 1, of: 2)))
    scene.frame(summary(0.3, running: 1, paused: 1))
    let rows = scene.screen.trimmedScreen
    #expect(rows[0].hasPrefix("disk.img ▕"))
    #expect(rows[0].contains("▏  35%  1.2 GB / 3.4 GB  12.3 MB/s  ETA 2:59"))
    #expect(rows[1].contains("▏  50%  1 B / 2 B  paused"))
  }

  // MARK: - Printing

  @Test func printedLinesGoAboveTheBarsInOneWrite() {
    let scene = Scene(columns: 60, rows: 10)
    for label in ["a.bin", "b.bin", "c.bin"] {
      scene.join(label, .running(RunProgress(completed: 1, of: 2)))
    }
    scene.frame(summary(0.5, running: 3))
    let before = scene.screen.trimmedScreen
    let writes = scene.terminal.writeCount
    scene.renderer.print("Downloaded x.bin\nChecked \u{1B}[31my.bin\tok")
    #expect(scene.terminal.writeCount == writes + 1)
    #expect(
      scene.screen.trimmedScreen == [
        "Downloaded x.bin", "Checked  [31my.bin ok",
      ] + before)
    // The next frames draw below the printed lines.
    scene.frame(summary(0.5, running: 3), after: .seconds(1))
    scene.renderer.print("Done")
    #expect(
      scene.screen.trimmedScreen == ["Downloaded x.bin", "Checked  [31my.bin ok", "Done"] + before)
    #expect(scene.screen.wraps == 0 && scene.screen.scrolls == 0)
  }

  @Test func aPrintedLineLongerThanTheWidthWrapsAboveTheBarsAndLeavesThemWhole() {
    let scene = Scene(columns: 20, rows: 10)
    scene.join("a", .running(.zero))
    scene.join("b", .running(.zero))
    scene.frame(summary(0, running: 2))
    let bars = scene.screen.trimmedScreen
    scene.renderer.print(String(repeating: "x", count: 30))
    #expect(
      scene.screen.trimmedScreen == [
        String(repeating: "x", count: 20), String(repeating: "x", count: 10),
      ]
        + bars)
  }

  @Test func printingWithoutBarsWritesTheLines() {
    let scene = Scene(columns: 60, rows: 10)
    scene.renderer.print("hello\nworld")
    #expect(scene.terminal.output == "hello\nworld\n")
    let piped = Scene(capabilities: .plain)
    piped.renderer.print("raw \u{1B}[1mtext")
    #expect(piped.terminal.output == "raw \u{1B}[1mtext\n")
  }

  // MARK: - Runs that end

  @Test(arguments: [TerminalGroupRenderer.FinishedBars.keep, .clear])
  func aBarThatEndsGivesItsSlotToTheNext(finishedBars: TerminalGroupRenderer.FinishedBars) {
    let scene = Scene(columns: 60, rows: 4, finishedBars: finishedBars)
    for index in 1...5 {
      scene.join("f\(index)", .running(RunProgress(completed: index, of: 10)))
    }
    scene.frame(summary(0.3, running: 5))
    #expect(barRows(scene.screen.screen).map { $0.prefix(2) } == ["f1", "f2", "To"])
    scene.set(0, .finished)
    scene.frame(summary(0.4, running: 4, finished: 1), after: .milliseconds(10))
    #expect(
      scene.screen.screen == [
        "f2    ▕██▍         ▏  20%  2/10",
        "f3    ▕███▌        ▏  30%  3/10",
        "… 2 more",
        "Total ▕████▊       ▏  40%  200/500  4 running, 1 finished",
      ])
    switch finishedBars {
    case .keep:
      // The final line went above the area and scrolled into the scrollback.
      #expect(scene.screen.scrollback == ["f1    ▕████████████▏ 100%  10/10  done in 0.1s"])
      #expect(scene.screen.scrolls == 1)
    case .clear:
      #expect(scene.screen.scrollback.isEmpty)
      #expect(scene.screen.scrolls == 0)
    }
    #expect(scene.screen.wraps == 0)
  }

  @Test func finalLinesSayHowEachRunEnded() {
    let scene = Scene(columns: 100, rows: 10, capabilities: .interactiveColor)
    scene.join("ok", .running(RunProgress(completed: 5, of: 10)))
    scene.join("bad", .running(RunProgress(completed: 2, of: 10)))
    scene.join("stop", .running(RunProgress(completed: 1, of: 10)))
    scene.join("slow", .running(RunProgress(completed: 1, of: 10)))
    scene.frame(summary(0.1, running: 4))
    scene.set(0, .finished)
    scene.set(1, .failed(TestError(message: "disk full\nwhile writing")))
    scene.set(2, .cancelled)
    scene.frame(summary(0.1, running: 1, finished: 1, failed: 1, cancelled: 1))
    let rows = scene.screen.trimmedScreen
    #expect(rows.count == 5)
    #expect(rows[0].hasSuffix("100%  10/10  done in 0.1s"))
    #expect(rows[1].hasSuffix("20%  2/10  failed after 0.1s: disk full while writing"))
    #expect(rows[2].hasSuffix("10%  1/10  cancelled after 0.1s"))
    #expect(rows[3].hasPrefix("slow  ▕"))
    #expect(scene.terminal.output.contains("\u{1B}[32mdone in 0.1s\u{1B}[0m"))
    #expect(scene.terminal.output.contains("\u{1B}[31mfailed after 0.1s"))
    #expect(rows.allSatisfy { barColumn($0) == 6 })
  }

  @Test func aFailureTooLongForItsLineGetsARowOfItsOwnCutToTheWidth() {
    let scene = Scene(columns: 40, rows: 10)
    scene.join("a", .running(RunProgress(completed: 1, of: 10)))
    scene.join("b", .running(RunProgress(completed: 1, of: 10)))
    scene.frame(summary(0.1, running: 2))
    scene.set(0, .failed(TestError(message: String(repeating: "reason ", count: 20))))
    scene.frame(summary(0.05, running: 1, failed: 1))
    let rows = scene.screen.trimmedScreen
    #expect(rows[0].hasPrefix("a     ▕"))
    #expect(rows[1].hasPrefix("failed after 0.1s: reason reason"))
    #expect(rows[1].hasSuffix("…"))
    #expect(VirtualTerminal.columns(of: rows[1]) == 39)
    #expect(rows[2].hasPrefix("b     ▕"))
    #expect(scene.screen.wraps == 0)
  }

  @Test func aMemberThatLeavesMidRunLosesItsBarWithoutALine() {
    let scene = Scene(columns: 60, rows: 10)
    scene.join("a", .running(.zero))
    scene.join("b", .running(.zero))
    scene.frame(summary(0, running: 2))
    scene.leave(0)
    scene.frame(summary(0, running: 1), after: .milliseconds(1))
    let rows = scene.screen.trimmedScreen
    #expect(rows.count == 2)
    #expect(rows[0].hasPrefix("b     ▕"))  // the label width is kept while the area is open
  }

  @Test func whenTheLastRunEndsTheSummaryStaysTheCursorComesBackAndANewRunDrawsBelow() {
    let scene = Scene(columns: 60, rows: 10)
    scene.join("a", .running(RunProgress(completed: 1, of: 2)))
    scene.join("b", .running(RunProgress(completed: 1, of: 2)))
    scene.frame(summary(0.5, running: 2))
    scene.set(0, .finished)
    scene.set(1, .finished)
    // Every run ended and none waits to start: the area closes on this frame.
    scene.frame(summary(1, finished: 2))
    #expect(
      scene.screen.trimmedScreen == [
        "a     ▕████████████▏ 100%  2/2  done in 0.1s",
        "b     ▕████████████▏ 100%  2/2  done in 0.1s",
        "Total ▕████████████▏ 100%  200/200  2 finished",
      ])
    #expect(scene.screen.isCursorVisible)
    #expect(scene.terminal.output.hasSuffix("2 finished\u{1B}[K\n\u{1B}[?25h"))
    #expect(scene.screen.cursorRow == 3 && scene.screen.cursorColumn == 0)
    // Nothing more while nothing runs.
    let output = scene.terminal.output
    scene.frame(summary(1, finished: 2), after: .seconds(1))
    #expect(scene.terminal.output == output)
    // A new run opens a new area below the old one.
    scene.set(0, .running(.zero))
    scene.frame(summary(0.5, running: 1, finished: 1))
    let rows = scene.screen.trimmedScreen
    #expect(rows.count == 5)
    #expect(rows[2].hasPrefix("Total ▕"))
    #expect(rows[3].hasPrefix("a     ▕"))
    #expect(rows[4].hasSuffix("1 running, 1 finished"))
    #expect(!scene.screen.isCursorVisible)
  }

  @Test func aQueueBetweenTwoRunsKeepsItsAreaOpen() {
    // One frame with no run under way, then the queue's next run: one area, one summary.
    let scene = Scene(columns: 60, rows: 10)
    scene.join("a", .running(RunProgress(completed: 1, of: 2)))
    scene.join("b")
    scene.frame(summary(0.25, running: 1, idle: 1))
    scene.set(0, .finished)
    scene.frame(summary(0.5, finished: 1, idle: 1), after: .milliseconds(17))
    scene.set(1, .running(.zero))
    scene.frame(summary(0.5, running: 1, finished: 1), after: .milliseconds(17))
    #expect(!scene.screen.isCursorVisible)
    let rows = scene.screen.trimmedScreen
    #expect(rows.count == 3)
    #expect(rows[0].hasSuffix("done in 0.1s"))
    #expect(rows[1].hasPrefix("b     ▕"))
    #expect(rows[2].hasSuffix("1 running, 1 finished"))
    #expect(rows.filter { $0.hasPrefix("Total") }.count == 1)
  }

  @Test func piped_aQueueBetweenTwoRunsWritesOneSummaryAtTheEnd() {
    let scene = Scene(capabilities: .plain)
    scene.join("a", .running(.zero))
    scene.join("b")
    scene.frame(summary(0, running: 1, idle: 1))
    scene.set(0, .finished)
    scene.frame(summary(0.5, finished: 1, idle: 1))
    scene.set(1, .running(.zero))
    scene.frame(summary(0.5, running: 1, finished: 1))
    scene.set(1, .finished)
    scene.frame(summary(1, finished: 2))
    scene.frame(summary(1, finished: 2))
    #expect(
      scene.terminal.lines.filter { $0.hasPrefix("Total") } == ["Total: 100%  200/200  2 finished"])
  }

  @Test func aGroupWithRunnersWaitingClosesWhenTheGroupSettles() {
    let scene = Scene(columns: 60, rows: 10)
    scene.join("a", .running(RunProgress(completed: 1, of: 2)))
    scene.join("b")
    scene.frame(summary(0.25, running: 1, idle: 1))
    scene.set(0, .cancelled)
    scene.frame(summary(0, cancelled: 1, idle: 1), after: .milliseconds(17))
    #expect(!scene.screen.isCursorVisible)
    scene.frame(summary(0, cancelled: 1, idle: 1, settled: true), after: .milliseconds(250))
    #expect(scene.screen.isCursorVisible)
    #expect(scene.screen.trimmedScreen.last?.hasSuffix("1 idle, 1 cancelled") == true)
  }

  @Test func barsKeepTheirPlaceAsWaitingRunnersWithLongerLabelsStart() {
    let scene = Scene(columns: 80, rows: 10)
    scene.join("a", .running(RunProgress(completed: 1, of: 2)))
    scene.join("a-much-longer-name")
    scene.frame(summary(0.25, running: 1, idle: 1))
    let before = scene.screen.trimmedScreen[0].firstIndex(of: "▕")
    scene.set(1, .running(.zero))
    scene.frame(summary(0.25, running: 2), after: .milliseconds(17))
    let rows = scene.screen.trimmedScreen
    #expect(
      rows[0].firstIndex(of: "▕").map { rows[0].distance(from: rows[0].startIndex, to: $0) }
        == before.map { scene.screen.trimmedScreen[0].distance(from: rows[0].startIndex, to: $0) })
    #expect(rows[0].hasPrefix("a                  ▕"))
    #expect(rows[1].hasPrefix("a-much-longer-name ▕"))
  }

  @Test func theSummaryKeepsItsCountsPerPhaseBeforeItsRateAndTimeLeft() {
    let scene = Scene(columns: 78, rows: 10)
    scene.join("a", .running(RunProgress(completed: 1, of: 2)))
    scene.frame(
      summary(
        0.4, running: 3, finished: 5, failed: 1, idle: 2, throughput: 12_300_000, eta: .seconds(42))
    )
    let total = scene.screen.trimmedScreen.last ?? ""
    #expect(total.hasSuffix("3 running, 2 idle, 5 finished, 1 failed"))
    #expect(VirtualTerminal.columns(of: total) <= 77)
    #expect(!total.contains("ETA"))
  }

  // MARK: - Redrawing

  @Test func oneWritePerFrameNoneForAnIdenticalOneAndAtMost20ASecond() {
    let scene = Scene(columns: 60, rows: 10)
    scene.join("a", .running(RunProgress(completed: 1, of: 100)))
    scene.frame(summary(0.01, running: 1))
    #expect(scene.terminal.writeCount == 1)
    // The same again: nothing to write.
    scene.frame(summary(0.01, running: 1))
    #expect(scene.terminal.writeCount == 1)
    // Progress within the interval waits for it.
    scene.set(0, .running(RunProgress(completed: 50, of: 100)))
    scene.frame(summary(0.5, running: 1), after: .milliseconds(20))
    #expect(scene.terminal.writeCount == 1)
    scene.frame(summary(0.5, running: 1), after: .milliseconds(30))
    #expect(scene.terminal.writeCount == 2)
    // A pause is drawn at once, in one write.
    scene.set(0, .paused(RunProgress(completed: 50, of: 100)))
    scene.frame(summary(0.5, paused: 1), after: .milliseconds(1))
    #expect(scene.terminal.writeCount == 3)
    #expect(scene.screen.screen[0].hasSuffix("paused"))
    #expect(scene.screen.screen[1].hasSuffix("paused  1 paused"))
    // A member joining is drawn at once; its end, the summary and the cursor in one write.
    scene.join("b", .running(.zero))
    scene.frame(summary(0.25, running: 1, paused: 1), after: .milliseconds(1))
    #expect(scene.terminal.writeCount == 4)
    scene.set(0, .cancelled)
    scene.set(1, .finished)
    scene.frame(summary(0.5, finished: 1, cancelled: 1), after: .milliseconds(1))
    #expect(scene.terminal.writeCount == 5)
    #expect(scene.screen.isCursorVisible)
  }

  @Test func fiftyBarsRedrawForManyFramesInPlace() async {
    let scene = Scene(columns: 80, rows: 24)
    for index in 0..<50 {
      scene.join("file-\(index).bin", .running(RunProgress(completed: 0, of: 1_000)))
    }
    scene.frame(summary(0, running: 50))
    var turns = MainActorTurns()
    for step in 1...TestScale.count(300, sanitized: 100) {
      for index in 0..<50 {
        let completed = min(step * (index + 1) / 4, 999)
        scene.set(
          index,
          .running(RunProgress(completed: completed, of: 1_000, message: "chunk \(completed)")),
          reason: step.isMultiple(of: 3) ? .stateChanged : .frame, throughput: Double(step))
      }
      scene.frame(summary(Double(step) / 400, running: 50), after: .milliseconds(17))
      #expect(scene.screen.scrolls == 0 && scene.screen.wraps == 0)
      await turns.yieldIfDue()
    }
    #expect(scene.terminal.writeCount > 30)
    #expect(scene.screen.screen[22] == "… 28 more")
    #expect(scene.screen.screen[23].hasPrefix("Total"))
    #expect(barRows(scene.screen.screen).count == 23)
    #expect(scene.screen.unknownSequences.isEmpty)
  }

  @Test func aQueueOfThousandsDrawsItsRunningBarsInJoinOrderAndAFinalLineForEachRun() async {
    // All join first, then run 4 at a time, a frame after every 4 steps, where a step starts a
    // run and ends the oldest; every 1,000th leaves mid-run, three in four of the others as they
    // end, and the rest once the group has settled, as `removeEnded()` does.
    // 5,000, and 500 under ThreadSanitizer, where a draw costs many times as much.
    let (count, width) = (TestScale.count(5_000, sanitized: 500), 4)
    var turns = MainActorTurns()
    let scene = Scene(columns: 80, rows: 8)
    let label = { (index: Int) in "m\(index)" }
    for index in 0..<count {
      scene.join(label(index))
    }
    scene.frame(summary(0, idle: count))
    var (finished, left) = (0, 0)
    var mismatches: [String] = []
    for step in 0..<(count + width) {
      if step < count {
        scene.set(step, .running(RunProgress(completed: 1, of: 2)))
      }
      let ending = step - width
      if ending >= 0 {
        if ending.isMultiple(of: 1_000) {
          scene.leave(ending)
          left += 1
        } else {
          scene.set(ending, .finished)
          finished += 1
          if !ending.isMultiple(of: 4) {
            scene.leave(ending)
          }
        }
      }
      guard step % width == width - 1 else { continue }
      await turns.yieldIfDue()
      let running = min(step + 1, count) - finished - left
      scene.frame(
        summary(
          Double(finished) / Double(count), running: running, finished: finished,
          idle: count - finished - left - running))
      // The bars are the runs under way, in the order their members joined.
      let bars = barRows(scene.screen.screen).dropLast().filter { !$0.contains("done in") }.map {
        String($0.prefix { $0 != " " })
      }
      let expected = (max(step - width + 1, 0)..<min(step + 1, count)).map(label)
      if bars != expected {
        mismatches.append("step \(step): \(bars) instead of \(expected)")
      }
    }
    #expect(mismatches.prefix(3) == [])
    #expect(scene.screen.isCursorVisible)
    #expect(scene.screen.trimmedScreen.last?.hasSuffix("\(finished) finished") == true)
    #expect(scene.screen.wraps == 0 && scene.screen.unknownSequences.isEmpty)
    // A final line for each run that ended, in the order they ended, and none for those that
    // left mid-run; nothing else scrolled.
    let done = (scene.screen.scrollback + scene.screen.trimmedScreen).filter {
      $0.hasSuffix("done in 0.1s")
    }
    #expect(done.count == finished)
    #expect(scene.screen.scrollback.allSatisfy { $0.hasSuffix("done in 0.1s") })
    #expect(
      done.map { String($0.prefix { $0 != " " }) }
        == (0..<count).filter { !$0.isMultiple(of: 1_000) }.map(label))
    // The rest leave: nothing more to draw; a runner that joins later draws alone.
    let output = scene.terminal.output
    for index in stride(from: 4, to: count, by: 4) where !index.isMultiple(of: 1_000) {
      scene.leave(index)
    }
    scene.frame(summary(1, finished: finished, settled: true))
    #expect(scene.terminal.output == output)
    let late = scene.join("late", .running(RunProgress(completed: 1, of: 4)))
    scene.frame(summary(0.25, running: 1))
    #expect(
      barRows(scene.screen.trimmedScreen).suffix(2).map { $0.prefix(5) } == ["late ", "Total"])
    scene.set(late, .finished)
    scene.frame(summary(1, finished: 1))
    #expect(scene.screen.isCursorVisible)
  }

  // Two seconds of drawing in a debug build, more than a minute under ThreadSanitizer with the
  // other suites, or beside a CPU hog on each core: the suite's limit of three minutes is for
  // that work, since the test waits for nothing. (A test's own limit cannot raise its suite's:
  // the shorter one applies.)
  @Test
  func noLineIsEverWiderThanTheTerminalAndOnlyFinalLinesScroll() async {
    var random = SplitMix64(seed: 7)
    let labels = [
      "a", "disk.img", "日本語のファイル名.zip", "😀 emoji ✅", "e\u{301}te\u{301}", "",
      "a-very-long-label-that-goes-on-and-on-and-on.tar.gz", "한국어 파일",
    ]
    let messages: [String?] = [
      nil, "Reading 写真-0042.jpg", "✅ nearly there", String(repeating: "長い", count: 50),
      "tab\there\nnewline\u{1B}[2J",
    ]
    let capabilities: [TerminalCapabilities] = [
      .interactiveUnicode, .interactiveASCII, .interactiveColor,
    ]
    var turns = MainActorTurns()
    // Every width in a plain run; every ninth under ThreadSanitizer, where it is seconds of work.
    for columns in stride(from: 5, through: 200, by: TestScale.count(1, sanitized: 9)) {
      await turns.yieldIfDue()
      let rows = 2 + random.next(below: 30)
      let count = 1 + random.next(below: 60)
      let scene = Scene(
        columns: columns, rows: rows, capabilities: capabilities[columns % 3],
        summaryLabel: columns % 7 == 0 ? nil : "Total")
      var progress = (0..<count).map { _ in random.next(below: 500) }
      for index in 0..<count {
        let message = messages[random.next(below: messages.count)]
        scene.join(
          labels[random.next(below: labels.count)],
          index % 9 == 4
            ? .running(.indeterminate(completed: progress[index]))
            : .running(RunProgress(completed: progress[index], of: 1_000, message: message)))
      }
      scene.frame(summary(0.2, running: count))
      var active = Set(0..<count)
      for _ in 0..<4 {
        await turns.yieldIfDue()
        var ended = 0
        for index in active.sorted() {
          progress[index] += random.next(below: 200)
          switch random.next(below: 8) {
          case 0:
            scene.set(index, .finished)
          case 1:
            scene.set(index, .failed(TestError(message: "connection reset by peer 接続")))
          case 2:
            scene.set(index, .cancelled)
          case 3:
            scene.set(
              index, .paused(RunProgress(completed: min(progress[index], 1_000), of: 1_000)))
            continue
          default:
            scene.set(
              index, .running(RunProgress(completed: min(progress[index], 1_000), of: 1_000)),
              reason: .frame, displayed: Double(min(progress[index], 1_000)) / 1_000,
              throughput: 1_234.5, eta: .seconds(random.next(below: 40_000)))
            continue
          }
          active.remove(index)
          ended += 1
        }
        let scrolls = scene.screen.scrolls
        scene.frame(summary(0.5, running: active.count, finished: count - active.count))
        let screen = scene.screen
        #expect(screen.wraps == 0, "\(columns) columns")
        #expect(screen.unknownSequences.isEmpty)
        // The area closes, its summary kept, on the second frame without a run.
        #expect(screen.scrolls - scrolls <= 2 * ended + 1, "\(columns) columns")
        #expect(
          screen.screen.allSatisfy { VirtualTerminal.columns(of: $0) <= columns - 1 },
          "\(columns) columns")
      }
    }
  }

  // MARK: - Resizing

  /// Three bars at `columns` × `rows`; with `resizedTo`, the terminal is resized and a frame
  /// drawn after the first.
  private func threeBars(columns: Int, rows: Int, resizedTo size: (Int, Int)? = nil) -> Scene {
    let scene = Scene(columns: columns, rows: rows)
    for (index, label) in ["alpha", "beta", "gamma"].enumerated() {
      scene.join(
        label, .running(RunProgress(completed: index + 1, of: 4, message: "step \(index)")))
    }
    scene.frame(summary(0.5, running: 3))
    if let (newColumns, newRows) = size {
      scene.terminal.resize(columns: newColumns, rows: newRows)
      scene.frame(summary(0.5, running: 3), after: .milliseconds(1))
    }
    return scene
  }

  @Test(arguments: [(80, 10, 120, 10), (120, 10, 50, 10), (80, 10, 30, 10), (80, 10, 80, 3)])
  func aResizedTerminalGetsTheAreaAFreshOneWouldDraw(
    columns: Int, rows: Int, newColumns: Int, newRows: Int
  ) {
    let resized = threeBars(columns: columns, rows: rows, resizedTo: (newColumns, newRows))
    let fresh = threeBars(columns: newColumns, rows: newRows)
    #expect(resized.screen.trimmedScreen == fresh.screen.trimmedScreen)
    #expect(resized.screen.wraps == 0)
    #expect(resized.screen.screen.allSatisfy { VirtualTerminal.columns(of: $0) < newColumns })
  }

  @Test func aTallerTerminalShowsTheBarsThatWereHidden() {
    let scene = Scene(columns: 60, rows: 3)
    for index in 1...4 {
      scene.join("f\(index)", .running(.zero))
    }
    scene.frame(summary(0, running: 4))
    #expect(scene.screen.screen[1] == "… 3 more")
    scene.terminal.resize(columns: 60, rows: 10)
    scene.frame(summary(0, running: 4), after: .milliseconds(1))
    #expect(barRows(scene.screen.trimmedScreen).count == 5)
    #expect(scene.screen.scrolls == 0)
  }

  // MARK: - The cursor

  @Test func restoreTerminalLeavesTheBarsAndShowsTheCursor() {
    let scene = Scene(columns: 60, rows: 10)
    scene.join("a", .running(RunProgress(completed: 1, of: 2)))
    scene.frame(summary(0.5, running: 1))
    let bars = scene.screen.trimmedScreen
    scene.renderer.restoreTerminal()
    #expect(scene.screen.isCursorVisible)
    #expect(scene.screen.trimmedScreen == bars)
    #expect(scene.screen.cursorRow == 2 && scene.screen.cursorColumn == 0)
    let output = scene.terminal.output
    scene.renderer.restoreTerminal()  // idempotent
    #expect(scene.terminal.output == output)
  }

  @Test func aRealGroupDrawsItsRunnersAndShowsTheCursorAfterTheLastRunEnds() async {
    let clock = ManualClock()
    let group = TaskRunnerGroup(clock: clock)
    let terminal = MemoryTerminal(columns: 80, rows: 10, emulatesScreen: true)
    group.attach(TerminalGroupRenderer(output: terminal, restoresTerminalOnSignals: false))
    let a = await HeldWork("a.bin", in: group, clock: clock, completed: 30, of: 100)
    let b = await HeldWork("b.bin", in: group, clock: clock, completed: 1, of: 4, failing: true)
    clock.advance(by: frame)
    #expect(
      terminal.screen?.trimmedScreen == [
        "a.bin ▕███       ▏  30%  30/100",
        "b.bin ▕██▌       ▏  25%  1/4",
        "Total ▕██▉       ▏  29%  31/104  2 running",
      ])
    #expect(terminal.screen?.isCursorVisible == false)
    await a.end()
    clock.advance(by: frame)
    await b.end()
    clock.advance(by: frame * 2)
    let screen = terminal.screen?.trimmedScreen ?? []
    #expect(screen.count == 3)
    #expect(screen[0].hasSuffix("100%  100/100  done in 0.0s"))
    #expect(screen[1].hasSuffix("25%  1/4  failed after 0.0s: disk full"))
    #expect(screen[2] == "Total ▕█████████▌▏  96%  100/104  1 finished, 1 failed")
    #expect(terminal.screen?.isCursorVisible == true)
    #expect(terminal.screen?.wraps == 0)
  }

  @Test func detachingMidRunShowsTheCursorAndDrawsNothingMore() async {
    let clock = ManualClock()
    let group = TaskRunnerGroup(clock: clock)
    let terminal = MemoryTerminal(columns: 60, rows: 10, emulatesScreen: true)
    let token = group.attach(
      TerminalGroupRenderer(output: terminal, restoresTerminalOnSignals: false))
    let work = await HeldWork("a.bin", in: group, clock: clock, completed: 1, of: 2)
    clock.advance(by: frame)
    #expect(terminal.screen?.isCursorVisible == false)
    token.cancel()
    #expect(terminal.screen?.isCursorVisible == true)
    #expect(terminal.output.hasSuffix("\u{1B}[K\n\u{1B}[?25h"))
    let output = terminal.output
    await work.end()
    clock.advance(by: frame)
    #expect(terminal.output == output)
  }

  @Test func aGroupReleasedMidRunLeavesTheCursorShown() async {
    let clock = ManualClock()
    var group: TaskRunnerGroup? = TaskRunnerGroup(clock: clock)
    let terminal = MemoryTerminal(columns: 60, rows: 10, emulatesScreen: true)
    group?.attach(TerminalGroupRenderer(output: terminal, restoresTerminalOnSignals: false))
    let work = await HeldWork("a.bin", in: group!, clock: clock, completed: 1, of: 2)
    clock.advance(by: frame)
    #expect(terminal.screen?.isCursorVisible == false)
    group = nil
    #expect(terminal.screen?.isCursorVisible == true)
    #expect(terminal.screen?.trimmedScreen.first?.hasPrefix("a.bin ▕") == true)
    await work.end()
  }

  // MARK: - Plain lines

  @Test(arguments: [TerminalCapabilities.plain, .dumb])
  func withoutEscapesEachRunnerWritesThePlainLinesOfTheSingleRenderer(
    capabilities: TerminalCapabilities
  ) {
    let scene = Scene(capabilities: capabilities)
    scene.join("a.bin")
    scene.join("b.bin")
    scene.frame(summary(0, idle: 2))
    scene.set(0, .running(RunProgress(completed: 0, of: 100)))
    scene.set(1, .running(RunProgress(completed: 0, of: 50)))
    scene.frame(summary(0, running: 2))
    scene.set(0, .running(RunProgress(completed: 5, of: 100)))
    scene.set(0, .running(RunProgress(completed: 25, of: 100, message: "chunk\n7")))
    scene.set(0, .running(RunProgress(completed: 27, of: 100)), reason: .frame)
    scene.set(0, .running(RunProgress(completed: 29, of: 100)))
    scene.set(1, .paused(RunProgress(completed: 10, of: 50)))
    scene.frame(summary(0.2, running: 1, paused: 1))
    scene.set(1, .running(RunProgress(completed: 10, of: 50)))
    scene.set(0, .running(RunProgress(completed: 100, of: 100)))
    scene.set(0, .finished)
    scene.set(1, .failed(TestError(message: "disk full")))
    scene.frame(summary(0.5, finished: 1, failed: 1))
    scene.frame(summary(0.5, finished: 1, failed: 1))
    #expect(
      scene.terminal.lines == [
        "a.bin: started",
        "b.bin: started",
        "a.bin: 25%  25/100  chunk 7",
        "b.bin: paused at 20%  10/50",
        "b.bin: 20%  10/50  paused",
        "b.bin: resumed at 20%  10/50",
        "a.bin: 100%  100/100",
        "a.bin: finished in 0.2s  100/100",
        "b.bin: failed after 0.2s at 20% 10/50: disk full",
        "Failed: b.bin: disk full",
        "Total: 50%  100/200  1 finished, 1 failed",
        "",
      ])
    #expect(!scene.terminal.output.contains("\r") && !scene.terminal.output.contains("\u{1B}"))
  }

  @Test(arguments: [ProgressAnimation.instant, .default])
  func piped_theSummaryIsWrittenOnceWhileFinishedBarsSettleAndFramesGoOn(
    animation: ProgressAnimation
  ) async {
    let clock = ManualClock()
    let group = TaskRunnerGroup(clock: clock)
    let terminal = MemoryTerminal(columns: 80, rows: 10, capabilities: .plain)
    group.attach(TerminalGroupRenderer(output: terminal, restoresTerminalOnSignals: false))
    let a = await HeldWork(
      "a.bin", in: group, clock: clock, completed: 3, of: 4, animation: animation)
    let b = await HeldWork(
      "b.bin", in: group, clock: clock, completed: 1, of: 4, animation: animation)
    clock.advance(by: frame)
    await a.end()
    await b.end()
    // Long after the group settled: the bars' animations have long ended too.
    for _ in 0..<300 {
      clock.advance(by: frame)
    }
    #expect(
      terminal.lines.filter { $0.hasPrefix("Total") } == ["Total: 100%  8/8  2 finished"])
  }

  @Test func piped_aRendererAttachedMidRunWritesTheSummaryWhenTheRunEnds() async {
    // The member joins with its latest update, a frame of its running run, and the run then
    // ends without another report.
    let clock = ManualClock()
    let group = TaskRunnerGroup(clock: clock)
    let a = await HeldWork("a.bin", in: group, clock: clock, completed: 3, of: 4)
    clock.advance(by: frame * 3)
    let terminal = MemoryTerminal(columns: 80, rows: 10, capabilities: .plain)
    group.attach(TerminalGroupRenderer(output: terminal, restoresTerminalOnSignals: false))
    await a.end()
    clock.advance(by: frame * 10)
    #expect(terminal.lines.filter { $0.hasPrefix("Total") } == ["Total: 100%  4/4  1 finished"])
  }

  @Test func theSummaryCountsTheItemsAQueueHasYetToStartAsWaiting() {
    let scene = Scene(columns: 100, rows: 10)
    for index in 0..<9 {
      scene.join("\(index)", index < 3 ? .running(.zero) : .idle)
    }
    scene.frame(summary(0, running: 3, failed: 1, waiting: 5))
    let rows = scene.screen.trimmedScreen
    #expect(rows.last?.hasSuffix("3 running, 5 waiting, 1 failed") == true, "\(rows)")
  }

  @Test func piped_aQueueListsItsFailedItemsAtTheEndOneLineEach() async {
    let clock = ManualClock()
    let group = TaskRunnerGroup(weighting: .equal, clock: clock)
    let terminal = MemoryTerminal(columns: 80, rows: 10, capabilities: .plain)
    group.attach(TerminalGroupRenderer(output: terminal, restoresTerminalOnSignals: false))
    let outcomes = await group.run(
      ["a.bin", "b.bin", "c.bin", "d.bin"], maxConcurrency: 2, label: { $0 },
      perform: { name, _ in
        if name != "a.bin" && name != "c.bin" { throw TestError(message: "\(name) is gone") }
      })
    #expect(outcomes.map(\.phase) == [.finished, .failed, .finished, .failed])
    clock.advance(by: frame)
    let lines = terminal.lines.filter { !$0.isEmpty }
    #expect(
      Array(lines.suffix(3)) == [
        "Failed: b.bin: b.bin is gone",
        "Failed: d.bin: d.bin is gone",
        "Total: 50%  2/4  2 finished, 2 failed",
      ], "\(lines)")
  }

  /// The total's bar keeps its width while its counts per phase grow and shrink: it narrows to
  /// the widest text so far, and never widens back while the area is open.
  @Test func theTotalsBarKeepsItsWidthAsItsCountsPerPhaseChange() {
    let scene = Scene(columns: 100)
    for index in 0..<3 {
      scene.join("\(index)", .running(.zero))
    }
    func totalBarCells() -> Int? {
      guard let row = scene.screen.trimmedScreen.last(where: { $0.hasPrefix("Total") }),
        let start = row.firstIndex(of: "▕"), let end = row.firstIndex(of: "▏")
      else { return nil }
      return row.distance(from: start, to: end) - 1
    }
    var widths: [Int?] = []
    for counts in [(3, 0, 0, 0), (3, 5, 4, 1), (3, 0, 9, 0), (1, 0, 12, 0)] {
      scene.frame(
        summary(0.5, running: counts.0, finished: counts.2, failed: counts.3, waiting: counts.1))
      widths.append(totalBarCells())
    }
    // Narrower once the text grew, then as wide while it shrinks.
    let screen = scene.screen.trimmedScreen
    #expect(widths[0] != nil && widths[0]! > widths[1] ?? 0, "\(widths) \(screen)")
    #expect(widths[1...].allSatisfy { $0 == widths[1] }, "\(widths) \(screen)")
  }

  /// A retry that starts over shows in a log: progress that goes back by more than a step is
  /// written at once, with its message, and its steps again; a small step back is not.
  @Test func piped_progressThatGoesBackIsWrittenAgainFromThere() {
    let scene = Scene(capabilities: .plain)
    scene.join("f", .running(.zero))
    for (completed, message) in [
      (5, nil), (6, nil), (0, "retry 1 of 2"), (1, "retry 1 of 2"), (2, "retry 1 of 2"),
      (1, "retry 1 of 2"), (2, "retry 1 of 2"), (3, "retry 1 of 2"),
    ] as [(Int, String?)] {
      scene.set(0, .running(RunProgress(completed: completed, of: 10, message: message)))
    }
    scene.set(0, .finished)
    #expect(
      scene.terminal.lines.dropLast() == [
        "f: started", "f: 50%  5/10", "f: 60%  6/10", "f: 0%  0/10  retry 1 of 2",
        "f: 10%  1/10  retry 1 of 2", "f: 20%  2/10  retry 1 of 2",
        "f: 30%  3/10  retry 1 of 2", "f: finished in 0.0s  10/10",
      ], "\(scene.terminal.lines)")
  }

  @Test func piped_withoutASummaryLabelThereIsNoSummaryLine() {
    let scene = Scene(capabilities: .plain, summaryLabel: nil)
    scene.join("", .running(.zero))
    scene.frame(summary(0, running: 1))
    scene.set(0, .finished)
    scene.frame(summary(1, finished: 1))
    scene.frame(summary(1, finished: 1))
    #expect(scene.terminal.lines == ["started", "finished in 0.1s", ""])
  }

  @Test func pipedHundredsOfThousandsOfReportsMakeAtMostOneLinePerTenPercentPerRunner() async {
    let scene = Scene(capabilities: .plain)
    scene.join("a", .running(.zero))
    scene.join("b", .running(.zero))
    // 400,000 reports in a plain run, 20,000 under ThreadSanitizer: one line per 10% whatever
    // their number.
    let reports = TestScale.count(200_000, sanitized: 10_000)
    var turns = MainActorTurns()
    for completed in 1...reports {
      scene.set(0, .running(RunProgress(completed: completed, of: reports)))
      scene.set(1, .running(RunProgress(completed: completed / 2, of: reports)))
      if completed.isMultiple(of: reports / 50) {
        scene.frame(summary(0.5, running: 2), after: .milliseconds(16))
      }
      if completed.isMultiple(of: 100) {
        await turns.yieldIfDue()
      }
    }
    scene.set(0, .finished)
    scene.set(1, .cancelled)
    scene.frame(summary(0.75, finished: 1, cancelled: 1))
    scene.frame(summary(0.75, finished: 1, cancelled: 1))
    let lines = scene.terminal.lines.dropLast()
    #expect(lines.filter { $0.hasPrefix("a: ") }.count == 1 + 10 + 1)
    #expect(lines.filter { $0.hasPrefix("b: ") }.count == 1 + 5 + 1)
    #expect(lines.last == "Total: 75%  150/200  1 finished, 1 cancelled")
  }

  // MARK: - The terminal's height

  @Test func aStreamThatIsNoTerminalTakesItsHeightFromLINES() {
    #expect(TerminalStream(fileDescriptor: -1, environment: ["LINES": "33"]).rows == 33)
    #expect(TerminalStream(fileDescriptor: -1, environment: ["LINES": "x"]).rows == nil)
    #expect(TerminalStream(fileDescriptor: -1, environment: [:]).rows == nil)
  }

  @Test func onAPseudoTerminalTheStreamReadsItsSizeAndTheBytesDrawTheScreen() throws {
    var primary: Int32 = -1
    var secondary: Int32 = -1
    var size = winsize(ws_row: 5, ws_col: 50, ws_xpixel: 0, ws_ypixel: 0)
    try #require(openpty(&primary, &secondary, nil, nil, &size) == 0)
    defer {
      close(primary)
      close(secondary)
    }
    let stream = TerminalStream(
      fileDescriptor: secondary, environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8"])
    #expect(stream.columns == 50 && stream.rows == 5)
    let renderer = TerminalGroupRenderer(output: stream, restoresTerminalOnSignals: false)
    let clock = ManualClock()
    let runners = (1...6).map { _ in TaskRunner(clock: clock) }
    let members = runners.enumerated().map { index, runner in
      TaskRunnerGroup.Member(runner: runner, label: "part-\(index + 1)", weight: nil)
    }
    var group = GroupStateMachine(weighting: .units)
    for (index, member) in members.enumerated() {
      let state = RunState.running(RunProgress(completed: index + 1, of: 10))
      let update = ProgressUpdate(
        reason: .stateChanged, state: state, displayedProgress: Double(index + 1) / 10,
        time: .zero)
      _ = group.join(member, waiting: false)
      _ = group.update(member.id, update, at: .zero)
      renderer.render(.updated(member, update))
    }
    renderer.render(
      .frame(summary(0.35, running: 6), members: group.snapshot, time: .milliseconds(100)))
    let end = ProgressUpdate(
      reason: .stateChanged, state: .finished, displayedProgress: 1, time: .seconds(2))
    _ = group.update(members[0].id, end, at: .seconds(2))
    renderer.render(.updated(members[0], end))
    renderer.render(
      .frame(
        summary(0.45, running: 5, finished: 1), members: group.snapshot, time: .milliseconds(200)))
    renderer.didDetach()

    // What the terminal received, the tty's `\n` to `\r\n` included.
    _ = fcntl(primary, F_SETFL, fcntl(primary, F_GETFL) | O_NONBLOCK)
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while true {
      let count = read(primary, &buffer, buffer.count)
      guard count > 0 else { break }
      bytes += buffer.prefix(count)
    }
    #expect(bytes.contains(13) && bytes.contains(10))
    var screen = VirtualTerminal(columns: 50, rows: 5, lineFeedReturns: false)
    screen.feed(bytes)
    // The detach ended the area with a newline, which scrolled the screen by a row.
    #expect(
      screen.scrollback == [
        "part-1 ▕█████████████▏ 100%  10/10  done in 2.0s",
        "part-2 ▕██▌          ▏  20%  2/10",
      ])
    #expect(
      screen.screen == [
        "part-3 ▕███▉         ▏  30%  3/10",
        "part-4 ▕█████▏       ▏  40%  4/10",
        "… 2 more",
        "Total  ▕█████▊       ▏  45%  270/600",
        "",
      ])
    #expect(screen.isCursorVisible)
    #expect(screen.wraps == 0 && screen.unknownSequences.isEmpty)
  }

  @Test func anOutputWithoutAHeightOfItsOwnHasNone() {
    final class Columns: TerminalOutput {
      let capabilities = TerminalCapabilities.plain
      let columns = 80
      func write(_ text: String) {}
    }
    #expect(Columns().rows == nil)
  }
}
