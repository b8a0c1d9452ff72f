public import TaskProgress

/// Draws a ``/TaskProgress/TaskRunnerGroup`` on a terminal: a bar for each runner at work and a
/// total, or plain lines where there is no terminal.
///
/// ```swift
/// let group = TaskRunnerGroup(unit: .bytes)
/// group.attach(TerminalGroupRenderer(unit: .bytes))
/// for file in files {
///   let runner = TaskRunner()
///   group.add(runner, label: file.name)
///   runner.start { reporter in try await download(file, reporter: reporter) }
/// }
/// ```
@MainActor
public final class TerminalGroupRenderer: GroupRenderer {
  /// What becomes of a runner's bar when its run ends.
  public enum FinishedBars: Hashable, Sendable {
    /// The run's final line is written above the live area, where the scrollback keeps it.
    case keep
    /// The bar goes without a trace.
    case clear
  }

  /// The longest the live area waits between two redraws: 20 per second, as a
  /// ``TerminalRenderer``.
  public static let redrawInterval: Duration = .milliseconds(50)
  /// The height assumed when the output does not know its own.
  static let assumedRows = 24

  /// The text before the summary line, or `nil` for no summary line.
  public let summaryLabel: String?
  /// The unit counts and rates are shown in, or `nil` for each runner's own
  /// ``/TaskProgress/TaskRunner/unit`` and, in the summary, the group's
  /// ``/TaskProgress/TaskRunnerGroup/unit``.
  public let unit: ProgressUnit?
  /// What becomes of a runner's bar when its run ends.
  public let finishedBars: FinishedBars
  private let output: any TerminalOutput
  private var cursor: CursorVisibility

  /// A member of the group.
  private struct Entry {
    let id: ObjectIdentifier
    /// The member's label, on one line.
    let label: String
    /// The member's latest update.
    var latest: ProgressUpdate
    /// The member's run, while one is under way.
    var run: RunLines?
  }

  /// The members, in the order they joined.
  private var entries: [Entry] = []
  /// Where each member is in `entries`.
  private var positions: [ObjectIdentifier: Int] = [:]
  /// The group's summary, as of its last frame.
  private var summary = TaskRunnerGroup.Summary.empty

  // Drawing in place.

  /// The rows the live area takes on the screen, the cursor at the end of the last one; 0 while
  /// no area is open.
  private var openRows = 0
  /// The final lines of the runs that ended since the last draw, to write above the area.
  private var endedLines: [ProgressLine] = []
  /// Whether something changed that is drawn at once: a run began, paused, resumed or ended, or
  /// a member joined or left.
  private var needsRedraw = false
  private var lastDraw: Duration?
  /// The lines of the area as last drawn, and the terminal's size then.
  private var lastArea: [String] = []
  private var lastSize: (columns: Int, rows: Int)?
  /// The label width and the room after the bars, kept while the area is open, so that the
  /// bars keep their width as runners come and go.
  private var labelColumns = 0
  /// The widest label of any member, running or not: the bars keep their place as runners
  /// start one after another.
  private var memberLabelColumns = 0
  private var reserved = ProgressLine.Reservation()

  /// Whether the group has settled, with no run under way and none about to start.
  ///
  /// The area closes then, and not while a queue is between two runs.
  private var isQuiet = true

  // Plain lines.

  /// Whether a run was under way since the last summary line.
  private var hadActivity = false

  /// Creates a renderer.
  ///
  /// - Parameters:
  ///   - summaryLabel: The text before the summary line, such as `Total`; `nil` for no summary
  ///     line.
  ///   - unit: The unit counts and rates are shown in, such as
  ///     ``/TaskProgress/ProgressUnit/bytes``; `nil`, the default, for each runner's and the
  ///     group's own.
  ///   - finishedBars: Whether a run's final line stays above the bars, the default, or goes.
  ///   - output: Where to draw: standard output by default.
  ///   - restoresTerminalOnSignals: Whether to show the cursor again when `SIGINT`, `SIGTERM` or
  ///     `SIGHUP` ends the process while bars are drawn. Only signals left at their default
  ///     disposition are handled; a program with its own handlers calls ``restoreTerminal()``.
  public init(
    summaryLabel: String? = "Total",
    unit: ProgressUnit? = nil,
    finishedBars: FinishedBars = .keep,
    output: any TerminalOutput = TerminalStream.standardOutput,
    restoresTerminalOnSignals: Bool = true
  ) {
    self.summaryLabel = summaryLabel.map(TerminalFormat.singleLine)
    self.unit = unit
    self.finishedBars = finishedBars
    self.output = output
    self.cursor = CursorVisibility(restoresOnSignals: restoresTerminalOnSignals)
  }

  /// Whether the output redraws in place: an interactive terminal that takes escape sequences.
  private var drawsInPlace: Bool {
    output.capabilities.supportsEscapeSequences
  }

  /// Handles one event of the group: draws on `.frame`, keeps the rest for it.
  public func render(_ event: TaskRunnerGroup.Event) {
    switch event {
    case .joined(let member, let update):
      guard positions[member.id] == nil else { return }
      positions[member.id] = entries.count
      let label = TerminalFormat.singleLine(member.label)
      memberLabelColumns = max(memberLabelColumns, TerminalFormat.columns(label))
      entries.append(Entry(id: member.id, label: label, latest: update))
      needsRedraw = true
      take(update, at: entries.count - 1)
    case .updated(let id, let update):
      if let position = positions[id] {
        take(update, at: position)
      }
    case .left(let id):
      guard let position = positions.removeValue(forKey: id) else { return }
      entries.remove(at: position)
      for index in entries.indices.dropFirst(position) {
        positions[entries[index].id] = index
      }
      needsRedraw = true
    case .frame(let summary, let time):
      self.summary = summary
      let wasQuiet = isQuiet
      isQuiet = summary.isSettled && !entries.contains { $0.run != nil }
      if isQuiet && !wasQuiet {
        needsRedraw = true  // the area closes now
      }
      if drawsInPlace {
        drawFrame(at: time)
      } else {
        writePlainSummary()
      }
    }
  }

  /// Ends the live area and shows the cursor again: the group is gone or the renderer detached.
  public func didDetach() {
    restoreTerminal()
    entries = []
    positions = [:]
    endedLines = []
  }

  /// Writes `text` above the bars, a line for each of its lines, and draws the bars again below
  /// it, in one write.
  ///
  /// Control characters in the text are written as spaces on a terminal, so that it cannot move
  /// the cursor out from under the bars; piped, the text is written as it is, with a newline.
  public func print(_ text: String) {
    guard drawsInPlace else {
      output.write(text + "\n")
      return
    }
    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map {
      TerminalFormat.singleLine(String($0))
    }
    draw(printing: lines, ending: false)
  }

  /// Ends the live area, leaving the bars as they are on the screen, and shows the cursor again.
  ///
  /// The renderer does this by itself when the last run ends, when it is detached and when its
  /// group goes away. Call it when the program stops drawing for another reason, such as a
  /// signal it handles itself. A run that goes on opens a new area below on the next frame.
  public func restoreTerminal() {
    if drawsInPlace, openRows > 0 || !endedLines.isEmpty {
      draw(printing: [], ending: true)
    }
    cursor.show(on: output)
  }

  // MARK: - Members

  /// Takes in a member's update: its run begins, moves, pauses or ends.
  private func take(_ update: ProgressUpdate, at position: Int) {
    entries[position].latest = update
    // A run under way, whatever the update (a renderer attached mid-run joins members whose
    // latest update is a frame); not the frames of a bar that settles after its run ended,
    // which would write the summary again on every frame.
    if update.state.phase.isActive {
      hadActivity = true
    }
    let unit = self.unit ?? update.unit
    switch update.state {
    case .running(let progress), .paused(let progress):
      var run: RunLines
      let began: Bool
      if let current = entries[position].run {
        run = current
        began = false
      } else {
        run = RunLines(label: entries[position].label, start: update.time)
        began = true
        needsRedraw = true
      }
      let isPaused = update.state.phase == .paused
      let pauseChanged = run.take(progress, isPaused: isPaused, unit: unit)
      if pauseChanged {
        needsRedraw = true
      }
      if !drawsInPlace, began || update.reason == .stateChanged {
        var lines = began ? [run.plainStart] : []
        if pauseChanged {
          lines.append(run.plainPause(unit: unit))
        }
        if let step = run.plainStep(unit: unit) {
          lines.append(step)
        }
        if !lines.isEmpty {
          output.write(lines.map { $0 + "\n" }.joined())
        }
      }
      entries[position].run = run
    case .finished, .failed, .cancelled:
      guard update.reason == .stateChanged, let run = entries[position].run else { return }
      if !drawsInPlace {
        output.write(run.plainEnd(update, unit: unit) + "\n")
      } else if finishedBars == .keep {
        endedLines.append(run.finalLine(update, unit: unit))
      }
      entries[position].run = nil
      needsRedraw = true
    case .idle:
      if entries[position].run != nil {
        entries[position].run = nil
        needsRedraw = true
      }
    }
  }

  // MARK: - Drawing in place

  private var terminalSize: (columns: Int, rows: Int) {
    (max(output.columns, 1), max(output.rows ?? TerminalGroupRenderer.assumedRows, 1))
  }

  /// Draws the area on a frame of the group, if it is due.
  private func drawFrame(at time: Duration) {
    let size = terminalSize
    if let lastSize, lastSize != size {
      needsRedraw = true
    }
    if !needsRedraw && endedLines.isEmpty, let lastDraw,
      !TerminalFormat.isRedrawDue(
        after: time - lastDraw, interval: TerminalGroupRenderer.redrawInterval)
    {
      return
    }
    lastDraw = time
    draw(printing: [], ending: false)
  }

  /// Writes, in one write, the final lines of the runs that ended, then `printed`, then the live
  /// area over the one on the screen; or, when no run is under way any more or `ending`, closes
  /// the area.
  private func draw(printing printed: [String], ending: Bool) {
    let size = terminalSize
    let active = entries.indices.filter { entries[$0].run != nil }
    let wasOpen = openRows > 0
    let closes = ending || (active.isEmpty && isQuiet)
    // Nothing to draw and nothing on the screen: printed text goes out on its own.
    if !wasOpen && active.isEmpty && endedLines.isEmpty {
      if !printed.isEmpty {
        output.write(printed.map { $0 + "\n" }.joined())
      }
      needsRedraw = false
      return
    }
    if !wasOpen {
      labelColumns = 0
      reserved = ProgressLine.Reservation()
    }
    let (ended, area) = lines(
      bars: ending || !closes ? active : [], final: closes, columns: size.columns,
      rows: size.rows)
    let isSameArea =
      wasOpen && !closes && ended.isEmpty && printed.isEmpty && area == lastArea
      && lastSize.map { $0 == size } == true
    lastSize = size
    needsRedraw = false
    endedLines = []
    guard !isSameArea else { return }

    var buffer = closes ? "" : cursor.hide(on: output)
    // Back to the area's first line; when text is printed, the area is cleared first, as the
    // text may wrap over more rows than the area had.
    var isCleared = !wasOpen
    if wasOpen {
      buffer += "\r" + (openRows > 1 ? "\u{1B}[\(openRows - 1)A" : "")
      if !printed.isEmpty {
        buffer += "\u{1B}[J"
        isCleared = true
      }
    }
    var rows = 0
    for line in ended {
      buffer += line + "\u{1B}[K\n"
      rows += 1
    }
    for line in printed {
      buffer += line + "\n"
      rows += 1
    }
    if closes {
      for line in wasOpen || !ended.isEmpty ? area : [] {
        buffer += line + "\u{1B}[K\n"
        rows += 1
      }
      if !isCleared && rows < openRows {
        buffer += "\u{1B}[J"
      }
      openRows = 0
      lastArea = []
      cursor.show(on: output, after: buffer)
      return
    }
    buffer += area.joined(separator: "\u{1B}[K\n") + "\u{1B}[K"
    if !isCleared && rows + area.count < openRows {
      buffer += "\u{1B}[J"
    }
    openRows = area.count
    lastArea = area
    output.write(buffer)
  }

  /// The final lines of the runs that ended, and the lines of the area.
  ///
  /// The area holds the bars of the members at `bars` (as many as fit in `rows`, then
  /// `… 6 more`), then the summary, fitted to `columns`. A `final` summary shows the exact
  /// progress in its bar.
  private func lines(
    bars: [Int], final: Bool, columns: Int, rows: Int
  ) -> (
    ended: [String], area: [String]
  ) {
    let summaryLine = self.summaryLine(final: final)
    let summaryRows = summaryLine == nil ? 0 : 1
    var shown = bars
    var hidden = 0
    if bars.count + summaryRows > rows {
      shown = Array(bars.prefix(max(rows - 1 - summaryRows, 0)))
      hidden = bars.count - shown.count
    }
    let barLines = shown.map { position in
      let entry = entries[position]
      return entry.run!.liveLine(entry.latest, unit: unit ?? entry.latest.unit)
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

    var area = barLines.map { fitted(aligned($0, labelWidth: width), columns: columns)[0] }
    if hidden > 0 && rows > summaryRows {
      let ellipsis = output.capabilities.supportsUnicode ? "…" : "..."
      area.append(clipped("\(ellipsis) \(hidden) more", columns: columns))
    }
    if let summaryLine {
      area.append(fittedSummary(aligned(summaryLine, labelWidth: width), columns: columns))
    }
    let ended = endedLines.flatMap { line in
      let labelWidth = min(max(width, TerminalFormat.columns(line.label)), labelCap)
      return fitted(aligned(line, labelWidth: labelWidth), columns: columns)
    }
    return (ended, area)
  }

  /// `line` with its label padded or cut to `labelWidth` columns and the shared room after the
  /// bar, at least its own.
  private func aligned(_ line: ProgressLine, labelWidth: Int) -> ProgressLine {
    var line = line
    if labelWidth > 0 {
      let ellipsis = output.capabilities.supportsUnicode ? "…" : "..."
      let label = TerminalFormat.truncated(line.label, toColumns: labelWidth, ellipsis: ellipsis)
      line.label = label + String(repeating: " ", count: labelWidth - TerminalFormat.columns(label))
    }
    line.reserved = reserved.merged(with: line)
    return line
  }

  /// The summary line fitted to `columns`: when its counts per phase do not fit whole, the rate
  /// and the time left give way to them.
  private func fittedSummary(_ line: ProgressLine, columns: Int) -> String {
    let text = fitted(line, columns: columns)[0]
    guard let counts = line.message, line.rate != nil || line.eta != nil,
      !text.contains(counts)
    else { return text }
    var shorter = line
    shorter.rate = nil
    shorter.eta = nil
    shorter.reserved.rate = 0
    shorter.reserved.eta = 0
    return fitted(shorter, columns: columns)[0]
  }

  /// The rows a line takes at `columns`, each at most `columns - 1` wide.
  ///
  /// A line takes one row, or two for a final line whose status goes on a row of its own (cut
  /// with `…` when it is longer than a row). At widths too small for the bar, the rows are cut.
  private func fitted(_ line: ProgressLine, columns: Int) -> [String] {
    let room = max(columns - 1, 0)
    let capabilities = output.capabilities
    var line = line
    if let status = line.status, TerminalFormat.columns(status.text) > room {
      let ellipsis = capabilities.supportsUnicode ? "…" : "..."
      line.status = status.cut(toColumns: room, ellipsis: ellipsis)
    }
    // Colour adds escape sequences but no columns: the layout is measured without it.
    let plain = line.rendered(width: columns, unicode: capabilities.supportsUnicode, color: false)
    let colored =
      capabilities.supportsColor && line.status != nil
      ? line.rendered(width: columns, unicode: capabilities.supportsUnicode, color: true) : plain
    var rows = [
      TerminalFormat.columns(plain.line) <= room
        ? colored.line : clipped(plain.line, columns: columns)
    ]
    if let overflow = plain.overflow {
      rows.append(
        TerminalFormat.columns(overflow) <= room
          ? colored.overflow ?? overflow : clipped(overflow, columns: columns))
    }
    return rows
  }

  /// `text` cut to `columns - 1` columns, with no ellipsis.
  private func clipped(_ text: String, columns: Int) -> String {
    TerminalFormat.truncated(text, toColumns: max(columns - 1, 0), ellipsis: "")
  }

  /// The summary line, when the renderer has one and the group has members, as of a frame that
  /// counted them.
  private func summaryLine(final: Bool) -> ProgressLine? {
    guard let summaryLabel, !entries.isEmpty, summary.counts.total > 0 else { return nil }
    let unit = self.unit ?? summary.unit
    let counts = summaryCounts(unit: unit)
    var line = ProgressLine(label: summaryLabel, counts: counts.text)
    line.barFraction = final ? summary.fractionCompleted : summary.displayedProgress
    line.percentFraction = summary.fractionCompleted
    line.rate = summary.throughput.map { unit.format(throughput: $0) }
    line.eta = summary.estimatedTimeRemaining.map { "ETA " + TerminalFormat.remaining($0) }
    line.isPaused = summary.counts.paused > 0 && summary.counts.running == 0
    line.message = summary.counts.description
    line.prefersWholeMessage = true
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

  /// `Total: 54%  2.2 GB / 4.1 GB  1 finished, 1 failed`, when the group stops being active.
  private func writePlainSummary() {
    guard hadActivity, isQuiet, let summaryLabel, !entries.isEmpty else { return }
    hadActivity = false
    let parts = [
      TerminalFormat.percent(summary.fractionCompleted) + "%",
      summaryCounts(unit: unit ?? summary.unit).text,
      summary.counts.description,
    ]
    let text = parts.compactMap { $0 }.joined(separator: "  ")
    output.write((summaryLabel.isEmpty ? text : summaryLabel + ": " + text) + "\n")
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

extension ProgressLine.Status {
  /// The status with its text cut to `width` columns.
  fileprivate func cut(toColumns width: Int, ellipsis: String) -> ProgressLine.Status {
    let text = TerminalFormat.truncated(self.text, toColumns: width, ellipsis: ellipsis)
    switch self {
    case .success: return .success(text)
    case .failure: return .failure(text)
    case .note: return .note(text)
    }
  }
}
