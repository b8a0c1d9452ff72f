public import TaskProgress

/// Draws a ``/TaskProgress/TaskRunnerGroup`` on a terminal: a bar for each runner at work and a
/// total, or plain lines where there is no terminal.
///
/// ```swift
/// let group = TaskRunnerGroup(unit: .bytes)
/// group.attach(TerminalGroupRenderer(unit: .bytes))
/// group.start(files, maxConcurrency: 3, label: \.name, weight: { Double($0.size) }) {
///   file, reporter in
///   try await download(file, reporter: reporter)
/// }
/// ```
///
/// The total counts the runners in each phase, a queue's items not started yet as waiting:
/// `3 running, 5 waiting, 1 failed`. Without a terminal, each run writes a line as it starts,
/// moves and ends, and once the group settles, a line for each run that failed since, then the
/// total: `Failed: b.bin: disk full`, `Total: 50%  100/200  1 finished, 1 failed`.
@MainActor
public final class TerminalGroupRenderer: GroupRenderer {
  /// What becomes of a runner's bar when its run ends.
  public enum FinishedBars: Hashable, Sendable {
    /// The run's final line is written above the live area, where the scrollback keeps it.
    case keep
    /// The bar goes without a trace.
    case clear
  }

  /// The text before the summary line, or `nil` for no summary line.
  public let summaryLabel: String?
  /// The unit counts and rates are shown in, or `nil` for each runner's own
  /// ``/TaskProgress/TaskRunner/unit`` and, in the summary, the group's
  /// ``/TaskProgress/TaskRunnerGroup/unit``.
  public let unit: ProgressUnit?
  /// What becomes of a runner's bar when its run ends.
  public let finishedBars: FinishedBars
  /// The live area: a bar for each member with a run under way, and the summary.
  private let drawer: TerminalDrawer
  private let plain: PlainWriter

  /// The bar of each member with a run under way, in the order the members joined as of the
  /// last frame; a run that began since then comes last until the next frame.
  private var bars = SlotList<Bar>()
  /// Whether a run began since the last frame, so that the next one puts the bars in the order
  /// their members joined.
  private var barsNeedOrdering = false
  /// Whether the group had members at its last frame.
  private var hasMembers = false
  /// The group's members at its last frame, told apart from any other members it had by
  /// ``TaskRunnerGroup/Members/membership``.
  private var membership: Int?
  /// The group's summary, as of its last frame.
  private var summary = TaskRunnerGroup.Summary.empty

  // Drawing in place.

  /// The final lines of the runs that ended since the last draw, to write above the area.
  private var finalLines: [ProgressLine] = []
  /// Whether something changed that is drawn at once: a run began, paused, resumed or ended, or
  /// a member joined or left.
  private var needsRedraw = false
  /// The label width and the room after the bars, kept while the area is open, so that the
  /// bars keep their width as runners come and go.
  private var labelColumns = 0
  /// The widest label of any member, running or not: the bars keep their place as runners
  /// start one after another.
  private var memberLabelColumns = 0
  private var reserved = ProgressLine.Reservation()
  /// The widest the summary's counts per phase were while the area is open, so that the total's
  /// bar keeps its width as they change: `3 running, 5 waiting` to `…, 6 finished, 1 failed`.
  private var summaryMessageColumns = 0

  /// Whether the group has settled, with no run under way and none about to start.
  ///
  /// The area closes then, and not while a queue is between two runs.
  private var isQuiet = true

  // Plain lines.

  /// Whether a run was under way since the last summary line.
  private var hadActivity = false
  /// The runs that failed since the last summary line, `label: error` each, listed with it: in
  /// a queue of hundreds, a failure's own line is long gone by the end.
  private var failures: [String] = []

  /// Creates a renderer.
  ///
  /// - Parameters:
  ///   - summaryLabel: The text before the summary line, such as `Total`; `nil` for no summary
  ///     line.
  ///   - unit: The unit counts and rates are shown in, such as
  ///     ``/TaskProgress/ProgressUnit/bytes``; `nil`, the default, for each runner's and the
  ///     group's own.
  ///   - finishedBars: Whether a run's final line stays above the bars, the default, or goes.
  ///   - output: Where to draw: standard error by default, so that standard output keeps only
  ///     what the program prints, as indicatif and tqdm do; `.standardOutput`, or an output of
  ///     your own.
  ///   - restoresTerminalOnSignals: Whether to show the cursor again when `SIGINT`, `SIGTERM` or
  ///     `SIGHUP` ends the process while bars are drawn. Only signals left at their default
  ///     disposition are handled; a program with its own handlers calls ``restoreTerminal()``.
  public init(
    summaryLabel: String? = "Total",
    unit: ProgressUnit? = nil,
    finishedBars: FinishedBars = .keep,
    output: some TerminalOutput = TerminalStream.standardError,
    restoresTerminalOnSignals: Bool = true
  ) {
    self.summaryLabel = summaryLabel.map(TerminalFormat.singleLine)
    self.unit = unit
    self.finishedBars = finishedBars
    self.drawer = TerminalDrawer(output: output, restoresOnSignals: restoresTerminalOnSignals)
    self.plain = PlainWriter(output: output)
  }

  /// Whether the output redraws in place: an interactive terminal that takes escape sequences,
  /// which an area of more than one row needs.
  private var drawsInPlace: Bool {
    drawer.output.capabilities.redrawing == .anyRows
  }

  /// Handles one event of the group: draws on `.frame`, keeps the rest for it.
  public func render(_ event: TaskRunnerGroup.Event) {
    switch event {
    case .updated(let member, let update):
      take(update, for: member)
    case .left(let id):
      bars.remove(id)
      needsRedraw = true
    case .frame(let summary, let members, let time):
      self.summary = summary
      hasMembers = !members.isEmpty
      if membership == nil {
        // Attached mid-run: the labels of the members whose latest update was a frame of a run
        // that ended, which takes no lookup, count in the labels' width too.
        for (member, _, _) in members {
          noteLabel(of: member)
        }
      }
      if members.membership != membership {
        membership = members.membership
        needsRedraw = true  // members joined or left: drawn at once
      }
      if barsNeedOrdering {
        orderBars(as: members)
      }
      let wasQuiet = isQuiet
      isQuiet = summary.isSettled && bars.isEmpty
      if isQuiet && !wasQuiet {
        needsRedraw = true  // the area closes now
      }
      if drawsInPlace {
        draw(at: time)
      } else {
        writePlainSummary()
      }
    }
  }

  /// Ends the live area and shows the cursor again: the group is gone or the renderer detached.
  public func didDetach() {
    restoreTerminal()
    bars = SlotList()
    hasMembers = false
    membership = nil
    finalLines = []
  }

  /// Writes `text` above the bars, a line for each of its lines, and draws the bars again below
  /// it, in one write.
  ///
  /// Control characters in the text are written as spaces on a terminal, so that it cannot move
  /// the cursor out from under the bars; piped, the text is written as it is, with a newline.
  public func print(_ text: String) {
    guard drawsInPlace else {
      plain.write([text])
      return
    }
    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map {
      TerminalFormat.singleLine(String($0))
    }
    draw(printing: lines)
  }

  /// Ends the live area, leaving the bars as they are on the screen, and shows the cursor again.
  ///
  /// The renderer does this by itself when the last run ends, when it is detached and when its
  /// group goes away. Call it when the program stops drawing for another reason, such as a
  /// signal it handles itself. A run that goes on opens a new area below on the next frame.
  public func restoreTerminal() {
    if drawsInPlace, drawer.isOpen || !finalLines.isEmpty {
      draw(ending: true)
    }
    drawer.close()
  }

  // MARK: - Members

  /// A member's run under way, as drawn.
  private struct Bar: Identifiable {
    let id: TaskRunnerGroup.Member.ID
    var run: RunLines
    /// The latest update of the run.
    var latest: ProgressUpdate

    /// Takes in an update of the run under way, whose counts are shown in `unit`; returns the
    /// plain lines it calls for, when it `writesLines`, and whether the run paused or resumed.
    @MainActor mutating func take(
      _ update: ProgressUpdate, progress: RunProgress, unit: ProgressUnit, writesLines: Bool
    ) -> (lines: [String], pauseChanged: Bool) {
      latest = update
      let pauseChanged = run.take(progress, isPaused: update.state.phase == .paused, unit: unit)
      guard writesLines, update.reason == .stateChanged else { return ([], pauseChanged) }
      return (run.plainLines(began: false, pauseChanged: pauseChanged, unit: unit), pauseChanged)
    }
  }

  /// Takes in a member's update: it joins, or its run begins, moves, pauses or ends.
  private func take(_ update: ProgressUpdate, for member: TaskRunnerGroup.Member) {
    // The frames of a run that ended change nothing here: its final line was made from the
    // state that ended it. A queue's every item gives one; it costs no lookup.
    if update.reason == .frame, update.state.phase.isTerminal {
      return
    }
    // A run under way, whatever the update (a renderer attached mid-run gets members whose
    // latest update is a frame); not the frames of a bar that settles after its run ended,
    // which would write the summary again on every frame.
    if update.state.phase.isActive {
      hadActivity = true
    }
    let unit = self.unit ?? update.unit
    switch update.state {
    case .running(let progress), .paused(let progress):
      // In place, one lookup: a bar with its lines and latest update is hundreds of bytes, and
      // every update of a run changes it.
      let plainLines = bars[member.id]?.take(
        update, progress: progress, unit: unit, writesLines: !drawsInPlace)
      switch plainLines {
      case nil:
        begin(member, update, progress: progress, unit: unit)
      case (let lines, let pauseChanged)?:
        if pauseChanged {
          needsRedraw = true
        }
        if !lines.isEmpty {
          plain.write(lines)
        }
      }
    case .finished, .failed, .cancelled:
      guard update.reason == .stateChanged else { return }
      guard let run = bars.remove(member.id)?.run else {
        noteLabel(of: member)  // a member that joins with its run over
        return
      }
      if !drawsInPlace {
        plain.write([run.plainEnd(update, unit: unit)])
        if let error = update.state.error {
          let reason = RunLines.oneLine(error)
          failures.append(run.label.isEmpty ? reason : run.label + ": " + reason)
        }
      } else if finishedBars == .keep {
        finalLines.append(run.finalLine(update, unit: unit))
      }
      needsRedraw = true
    case .idle:
      // The label of a member with no run under way counts in the labels' width too: the bars
      // keep their place as runners start one after another.
      noteLabel(of: member)
      if bars.remove(member.id) != nil {
        needsRedraw = true
      }
    }
  }

  /// A run of `member` begins, or a renderer attached mid-run hears of one under way.
  private func begin(
    _ member: TaskRunnerGroup.Member, _ update: ProgressUpdate, progress: RunProgress,
    unit: ProgressUnit
  ) {
    let label = noteLabel(of: member)
    var run = RunLines(label: label, start: update.time)
    let pauseChanged = run.take(progress, isPaused: update.state.phase == .paused, unit: unit)
    if !drawsInPlace {
      plain.write(run.plainLines(began: true, pauseChanged: pauseChanged, unit: unit))
    }
    bars.append(Bar(id: member.id, run: run, latest: update))
    barsNeedOrdering = true
    needsRedraw = true
  }

  /// The member's label on one line, once its width counts in the labels' width.
  @discardableResult
  private func noteLabel(of member: TaskRunnerGroup.Member) -> String {
    let label = TerminalFormat.singleLine(member.label)
    memberLabelColumns = max(memberLabelColumns, TerminalFormat.columns(label))
    return label
  }

  /// Puts the bars in the order their members joined, as the group's frame lists them.
  private func orderBars(as members: TaskRunnerGroup.Members) {
    barsNeedOrdering = false
    var ordered = SlotList<Bar>()
    for member in members.active {
      if let bar = bars[member.id] {
        ordered.append(bar)
      }
    }
    // A bar whose run the group has not listed yet keeps its place after the others.
    if ordered.count < bars.count {
      for bar in bars.elements where !ordered.contains(bar.id) {
        ordered.append(bar)
      }
    }
    bars = ordered
  }

  // MARK: - Drawing in place

  /// Draws the final lines of the runs that ended, then `printed`, then the area.
  ///
  /// A frame at `time` draws only when a redraw is due. The area closes when no run is under way
  /// any more and the group is quiet, or when `ending`.
  private func draw(at time: Duration? = nil, printing printed: [String] = [], ending: Bool = false)
  {
    let hasBars = !bars.isEmpty
    // Nothing to draw and nothing on the screen: printed text goes out on its own.
    guard drawer.isOpen || hasBars || !finalLines.isEmpty else {
      plain.write(printed)
      needsRedraw = false
      return
    }
    if !drawer.isOpen {
      labelColumns = 0
      reserved = ProgressLine.Reservation()
      summaryMessageColumns = 0
    }
    let closes = ending || (!hasBars && isQuiet)
    // A frame that is not due leaves both as they are: either would have made it due.
    drawer.draw(at: time, force: needsRedraw || !finalLines.isEmpty) { size in
      var lines = self.lines(showsBars: ending || !closes, final: closes, size: size)
      lines.printed = printed
      lines.closes = closes
      return lines
    }
    needsRedraw = false
    finalLines = []
  }

  /// The final lines of the runs that ended, to go above the area, and the lines of the area.
  ///
  /// The area holds, when it `showsBars`, the bars of the members with a run under way (as many
  /// as fit in the terminal's rows, then `… 6 more`), then the summary, fitted to its columns. A
  /// `final` summary shows the exact progress in its bar.
  private func lines(
    showsBars: Bool, final: Bool, size: TerminalDrawer.Size
  )
    -> TerminalDrawer.Lines
  {
    let (columns, rows) = (size.columns, size.rows)
    let summaryLine = self.summaryLine(final: final)
    let summaryRows = summaryLine == nil ? 0 : 1
    let barCount = showsBars ? bars.count : 0
    let shown = bars.prefix(
      barCount + summaryRows > rows ? max(rows - 1 - summaryRows, 0) : barCount)
    let hidden = barCount - shown.count
    let barLines = shown.map { bar in
      bar.run.liveLine(bar.latest, unit: unit ?? bar.latest.unit)
    }
    // The label width and the room after the bars, shared by every line and kept while the
    // area is open.
    let live = barLines + [summaryLine].compactMap { $0 }
    labelColumns = max(
      labelColumns, memberLabelColumns, live.map { TerminalFormat.columns($0.label) }.max() ?? 0)
    for line in live {
      reserved = reserved.merged(with: line)
    }
    let labelCap = max((columns - 1) / 3, 1)
    let width = min(labelColumns, labelCap)

    // Every line, in the area and above it, takes one row of the screen: a status longer than
    // a row is cut to one.
    let capabilities = drawer.output.capabilities
    func fitted(_ line: ProgressLine) -> (line: String, overflow: String?) {
      line.fitted(columns: columns, capabilities: capabilities, longStatus: .cut)
    }
    var area = barLines.map { fitted(aligned($0, labelWidth: width)).line }
    if hidden > 0 && rows > summaryRows {
      let ellipsis = capabilities.supportsUnicode ? "…" : "..."
      area.append(ProgressLine.clipped("\(ellipsis) \(hidden) more", columns: columns))
    }
    if let summaryLine {
      area.append(fitted(aligned(summaryLine, labelWidth: width)).line)
    }
    var above: [String] = []
    above.reserveCapacity(finalLines.count)
    for line in finalLines {
      let labelWidth = min(max(width, TerminalFormat.columns(line.label)), labelCap)
      let rows = fitted(aligned(line, labelWidth: labelWidth))
      above.append(rows.line)
      if let overflow = rows.overflow {
        above.append(overflow)
      }
    }
    return TerminalDrawer.Lines(above: above, area: area)
  }

  /// `line` with its label padded or cut to `labelWidth` columns and the shared room after the
  /// bar, at least its own.
  private func aligned(_ line: ProgressLine, labelWidth: Int) -> ProgressLine {
    var line = line
    if labelWidth > 0 {
      let ellipsis = drawer.output.capabilities.supportsUnicode ? "…" : "..."
      let label = TerminalFormat.truncated(line.label, toColumns: labelWidth, ellipsis: ellipsis)
      line.label = label + String(repeating: " ", count: labelWidth - TerminalFormat.columns(label))
    }
    line.reserved = reserved.merged(with: line)
    return line
  }

  /// The summary line, when the renderer has one and the group has members, as of a frame that
  /// counted them.
  private func summaryLine(final: Bool) -> ProgressLine? {
    guard let summaryLabel, hasMembers, summary.counts.total > 0 else { return nil }
    let unit = self.unit ?? summary.unit
    let counts = summaryCounts(unit: unit)
    var line = ProgressLine(label: summaryLabel, counts: counts.text)
    line.barFraction = final ? summary.fractionCompleted : summary.displayedProgress
    line.percentFraction = summary.fractionCompleted
    line.rate = summary.throughput.map { unit.format(throughput: $0) }
    line.eta = summary.estimatedTimeRemaining.map { "ETA " + TerminalFormat.remaining($0) }
    line.isPaused = summary.counts.paused > 0 && summary.counts.running == 0
    let message = summary.counts.description
    summaryMessageColumns = max(summaryMessageColumns, TerminalFormat.columns(message))
    line.message = message
    line.prefersWholeMessage = true
    line.keptMessageColumns = summaryMessageColumns
    line.reserved = ProgressLine.Reservation.forRun(
      counts.progress ?? RunProgress(fractionCompleted: summary.fractionCompleted), unit: unit)
    return line
  }

  /// The group's units done and in all, when every runner's total is known: as text
  /// (`1.2 GB / 3.4 GB`) and as a progress, for the room the line keeps.
  private func summaryCounts(unit: ProgressUnit) -> (text: String?, progress: RunProgress?) {
    let total = summary.totalUnits
    guard summary.isTotalKnown, total.isFinite, total >= 0, total < 1e18,
      summary.completedUnits.isFinite
    else { return (nil, nil) }
    let completed = min(max(summary.completedUnits, 0), total)
    let progress = RunProgress(
      completed: Int(completed.rounded(.down)), of: Int(total.rounded()))
    return (RunLines.countsText(progress, finished: false, unit: unit), progress)
  }

  // MARK: - Plain lines

  /// `Total: 54%  2.2 GB / 4.1 GB  1 finished, 1 failed`, when the group stops being active,
  /// after a line for each run that failed since the last one: `Failed: b.bin: disk full`.
  private func writePlainSummary() {
    guard hadActivity, isQuiet, let summaryLabel, hasMembers else { return }
    hadActivity = false
    let parts = [
      TerminalFormat.percent(summary.fractionCompleted) + "%",
      summaryCounts(unit: unit ?? summary.unit).text,
      summary.counts.description,
    ]
    let text = parts.compactMap { $0 }.joined(separator: "  ")
    plain.write(
      failures.map { "Failed: " + $0 } + [summaryLabel.isEmpty ? text : summaryLabel + ": " + text])
    failures = []
  }
}

extension ProgressLine.Reservation {
  /// This room, widened to what `line` keeps and shows after its bar.
  fileprivate func merged(with line: ProgressLine) -> ProgressLine.Reservation {
    let columns: (String?) -> Int = { $0.map(TerminalFormat.columns) ?? 0 }
    var merged = self
    merged.counts = max(counts, line.reserved.counts, columns(line.counts))
    merged.rate = max(rate, line.reserved.rate, columns(line.rate))
    merged.eta = max(eta, line.reserved.eta, columns(line.eta))
    merged.message = message || line.reserved.message || line.message != nil
    return merged
  }
}
