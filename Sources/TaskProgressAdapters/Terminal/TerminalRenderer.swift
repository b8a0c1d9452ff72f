public import TaskProgress

/// Draws a runner's progress on a terminal, or as plain lines where there is none.
///
/// ```swift
/// let runner = TaskRunner()
/// runner.attach(TerminalRenderer(label: "Importing"))
/// await runner.run(over: files) { file in try await importFile(file) }
/// ```
///
/// On an interactive terminal the bar redraws in place, at most 20 times a second (transitions are
/// drawn at once), with eighth-block characters for sub-cell precision (`#` where the locale is not
/// UTF-8), the percentage, `completed/total` when the work counts, the runner's
/// ``TaskRunner/throughput`` and ``TaskRunner/estimatedTimeRemaining`` once it has them, and the
/// status text the work reported last (``RunProgress/message``). Counts and the rate are formatted
/// in the runner's ``/TaskProgress/TaskRunner/unit``, or in the unit the renderer was created with. The line is
/// fitted to the terminal's width and never wraps: a message too long for its room is cut with
/// `…`, and the other parts give way to the bar when they must. A paused run shows `paused` in
/// place of the rate and the time left.
///
/// It draws the runner's animated ``TaskRunner/displayedProgress`` and ends with the exact final
/// state: a full bar when the run finished, the reason in one line when it failed. The percentage
/// beside the bar is the reported value, so that it always agrees with the counts. The width
/// follows the terminal as it is resized, the cursor is hidden while the bar is drawn and shown
/// again when the run ends, when the renderer is detached or its runner goes away, and when
/// ``restoreTerminal()`` is called. On a ``TerminalStream`` with `restoresTerminalOnSignals` (the
/// default) it is also shown when the process exits, and when `SIGINT`, `SIGTERM` or `SIGHUP` ends
/// the process. Colour marks finished and failed lines where allowed (not with `NO_COLOR` or
/// `TERM=dumb`).
///
/// ```
/// Heavy task ▕█████▏    ▏  52%  26/50  24.8 it/s  ETA 0:01  Hashing IMG_0042.jpg
/// Heavy task ▕█████▏    ▏  52%  26/50  paused  Hashing IMG_0042.jpg
/// Copying ▕███████▍             ▏  35%  1.2 GB / 3.4 GB  12.3 MB/s  ETA 2:59
/// ```
///
/// Anywhere else (a pipe, a file, CI) it writes plain lines, with no carriage return and no escape
/// sequence: one per transition and at most one per 10% of progress, however many reports there
/// are, with the message when there is one.
///
/// ```
/// Importing: started
/// Importing: 10%  10/100  Reading photo-0010.jpg
/// Importing: paused at 14%  14/100
/// Importing: resumed at 14%  14/100
/// ...
/// Importing: 100%  100/100  Reading photo-0100.jpg
/// Importing: finished in 4.1s  100/100
/// ```
///
/// A message never breaks the line: newlines, escape characters and the other control
/// characters in it are written as spaces.
@MainActor
public final class TerminalRenderer: ProgressRenderer {
  /// The longest the interactive bar waits between two redraws: 20 per second, as indicatif.
  public static let redrawInterval: Duration = .milliseconds(50)
  /// How long the moving block of an indeterminate bar takes to go there and back.
  static let indeterminatePeriod: Duration = .seconds(2)

  /// The text before the bar, or before each plain line.
  public let label: String
  /// The unit counts and rates are shown in, or `nil` to show them in the runner's
  /// ``/TaskProgress/TaskRunner/unit``.
  public let unit: ProgressUnit?
  private let output: any TerminalOutput
  private let restoresTerminalOnSignals: Bool

  /// The running part of the run being drawn, if one is.
  private var run: Run?
  /// The last interactive line written, while the bar is open (no newline yet).
  private var openLine: String?
  private var lastDraw: Duration?
  private var isCursorHidden = false

  private struct Run {
    var start: Duration
    var progress: RunProgress = .zero
    /// Whether the run is paused, as of the last state drawn.
    var isPaused = false
    /// Whether the run has shown a message: from then on the line keeps room for one.
    var hasShownMessage = false
    /// The last 10% step a plain line was written for.
    var lastPlainStep = 0
  }

  /// Creates a renderer.
  ///
  /// - Parameters:
  ///   - label: The text before the bar; empty for none.
  ///   - unit: The unit counts and rates are shown in, such as
  ///     ``/TaskProgress/ProgressUnit/bytes``; `nil`, the default, for the runner's
  ///     ``/TaskProgress/TaskRunner/unit``.
  ///   - output: Where to draw: standard output by default.
  ///   - restoresTerminalOnSignals: Whether to show the cursor again when `SIGINT`, `SIGTERM` or
  ///     `SIGHUP` ends the process while a bar is drawn. Only signals left at their default
  ///     disposition are handled; a program with its own handlers calls ``restoreTerminal()``.
  public init(
    label: String = "",
    unit: ProgressUnit? = nil,
    output: any TerminalOutput = TerminalStream.standardOutput,
    restoresTerminalOnSignals: Bool = true
  ) {
    self.label = label.filter { !$0.isNewline }
    self.unit = unit
    self.output = output
    self.restoresTerminalOnSignals = restoresTerminalOnSignals
  }

  /// A renderer on standard output, as swift-log's `StreamLogHandler.standardOutput(label:)`.
  public static func standardOutput(label: String = "") -> TerminalRenderer {
    TerminalRenderer(label: label, output: TerminalStream.standardOutput)
  }

  /// Draws one update from the runner.
  public func render(_ update: ProgressUpdate) {
    switch (update.reason, update.state) {
    case (.stateChanged, .running(let progress)), (.stateChanged, .paused(let progress)):
      if run == nil {
        begin(at: update.time)
      }
      let isPaused = update.state.phase == .paused
      let pauseChanged = run?.isPaused != isPaused
      run?.progress = progress
      run?.isPaused = isPaused
      if progress.message != nil {
        run?.hasShownMessage = true
      }
      if output.capabilities.isInteractive {
        // A pause or a resume is drawn at once, like any transition.
        drawBar(update, force: pauseChanged)
      } else {
        if pauseChanged {
          writePlainPause(progress, isPaused: isPaused, unit: unit(of: update))
        }
        writePlainStep(progress, isPaused: isPaused, unit: unit(of: update))
      }
    case (.frame, .running), (.frame, .paused):
      if output.capabilities.isInteractive {
        drawBar(update, force: false)
      }
    case (.stateChanged, .finished), (.stateChanged, .failed), (.stateChanged, .cancelled):
      finish(update)
    case (.stateChanged, .idle), (.frame, _):
      break
    }
  }

  /// Ends a bar left open by a runner that went away, or by a detach in the middle of a run.
  public func didDetach() {
    restoreTerminal()
    run = nil
  }

  /// Ends a bar in progress on its own line and shows the cursor again.
  ///
  /// The renderer does this by itself when a run ends, when it is detached, and when its runner
  /// goes away. Call it when the program stops drawing for another reason, such as a signal it
  /// handles itself.
  public func restoreTerminal() {
    if openLine != nil {
      output.write("\n")
      openLine = nil
    }
    showCursor()
  }

  // MARK: - Runs

  private func begin(at time: Duration) {
    run = Run(start: time)
    lastDraw = nil
    if !output.capabilities.isInteractive {
      output.write(prefixed("started") + "\n")
    }
  }

  private func finish(_ update: ProgressUpdate) {
    guard let run else { return }
    let unit = unit(of: update)
    let elapsed = TerminalFormat.elapsed(update.time - run.start)
    let lastFraction = run.progress.fractionCompleted
    let finished = update.state.phase == .finished
    let counts = countsText(run.progress, finished: finished, unit: unit)
    if output.capabilities.isInteractive {
      let status: ProgressLine.Status
      switch update.state {
      case .failed(let error): status = .failure("failed after \(elapsed): " + oneLine(error))
      case .cancelled: status = .note("cancelled after \(elapsed)")
      default: status = .success("done in \(elapsed)")
      }
      var line = ProgressLine(label: label, counts: counts, status: status)
      line.reserved = reservation(run, unit: unit)
      // A finished bar is full; any other ends where the work was, and indeterminate work
      // claims no percentage even then.
      line.barFraction = finished ? 1 : lastFraction
      line.percentFraction = finished ? 1 : lastFraction
      line.percentCounts = finished ? nil : percentCounts(run.progress)
      line.indeterminatePosition = bouncing(update.time - run.start)
      write(line, force: true, time: update.time)
      output.write("\n")
      openLine = nil
      showCursor()
    } else {
      let position = [TerminalFormat.percent(run.progress).map { $0 + "%" }, counts]
        .compactMap { $0 }.joined(separator: " ")
      let at = position.isEmpty ? "" : " at " + position
      let text =
        switch update.state {
        case .failed(let error): "failed after \(elapsed)\(at): " + oneLine(error)
        case .cancelled: "cancelled after \(elapsed)\(at)"
        default: "finished in \(elapsed)" + (counts.map { "  " + $0 } ?? "")
        }
      output.write(prefixed(text) + "\n")
    }
    self.run = nil
  }

  /// The unit an update's counts and rate are shown in.
  private func unit(of update: ProgressUpdate) -> ProgressUnit {
    unit ?? update.unit
  }

  /// The room the line keeps after the bar for the whole run.
  private func reservation(_ run: Run, unit: ProgressUnit) -> ProgressLine.Reservation {
    var reserved = ProgressLine.Reservation.forRun(run.progress, unit: unit)
    reserved.message = run.hasShownMessage
    return reserved
  }

  // MARK: - Interactive drawing

  private func drawBar(_ update: ProgressUpdate, force: Bool) {
    guard let run else { return }
    if let lastDraw, !force, update.time - lastDraw < TerminalRenderer.redrawInterval {
      return
    }
    let unit = unit(of: update)
    var line = ProgressLine(
      label: label, counts: countsText(run.progress, finished: false, unit: unit))
    line.reserved = reservation(run, unit: unit)
    line.message = run.progress.message
    line.isPaused = run.isPaused
    if run.progress.isIndeterminate {
      line.indeterminatePosition = bouncing(update.time - run.start)
    } else {
      // The bar glides with the animation; the percentage is the reported one, like the counts.
      line.barFraction = update.displayedProgress
      line.percentFraction = run.progress.fractionCompleted
      line.percentCounts = percentCounts(run.progress)
      line.eta = update.estimatedTimeRemaining.map { "ETA " + TerminalFormat.remaining($0) }
    }
    line.rate = update.throughput.map { unit.format(throughput: $0) }
    write(line, force: force, time: update.time)
  }

  private func write(_ line: ProgressLine, force: Bool, time: Duration) {
    let capabilities = output.capabilities
    let (text, overflow) = line.rendered(
      width: output.columns, unicode: capabilities.supportsUnicode,
      color: capabilities.supportsColor)
    guard force || text != openLine else { return }
    hideCursor()
    if capabilities.supportsEscapeSequences {
      output.write("\r" + text + "\u{1B}[K")
    } else {
      // A dumb terminal: blank out what the last line left behind, without escape sequences.
      let leftover = max(
        TerminalFormat.columns(openLine ?? "") - TerminalFormat.columns(text), 0)
      output.write("\r" + text + String(repeating: " ", count: leftover))
    }
    if let overflow {
      output.write("\n" + overflow)
    }
    openLine = text
    lastDraw = time
  }

  private func hideCursor() {
    guard !isCursorHidden, output.capabilities.supportsEscapeSequences else { return }
    output.write("\u{1B}[?25l")
    isCursorHidden = true
    if restoresTerminalOnSignals, let stream = output as? TerminalStream {
      TerminalSignalGuard.acquire(fileDescriptor: stream.fileDescriptor)
    }
  }

  private func showCursor() {
    guard isCursorHidden else { return }
    output.write("\u{1B}[?25h")
    isCursorHidden = false
    if restoresTerminalOnSignals, output is TerminalStream {
      TerminalSignalGuard.release()
    }
  }

  /// A triangle wave in `0...1`: where the block of an indeterminate bar is after `elapsed`.
  private func bouncing(_ elapsed: Duration) -> Double {
    // An update timed before the run began (a test's own) stands at the start.
    let elapsed = max(elapsed, .zero)
    let phase = (elapsed / TerminalRenderer.indeterminatePeriod).truncatingRemainder(dividingBy: 1)
    return phase < 0.5 ? phase * 2 : 2 - phase * 2
  }

  // MARK: - Plain lines

  /// `52%  26/50  Hashing b.jpg`, with `paused` after the counts while the run is paused (work
  /// not yet at a checkpoint goes on reporting).
  private func writePlainStep(_ progress: RunProgress, isPaused: Bool, unit: ProgressUnit) {
    guard var run, let fraction = progress.fractionCompleted else { return }
    let step = Int((fraction * 10).rounded(.down))
    guard step > run.lastPlainStep else { return }
    run.lastPlainStep = step
    self.run = run
    let counts = countsText(progress, finished: false, unit: unit).map { "  " + $0 } ?? ""
    let percent = TerminalFormat.percent(progress) ?? TerminalFormat.percent(fraction)
    let message = progress.message.map { "  " + TerminalFormat.singleLine($0) } ?? ""
    let paused = isPaused ? "  paused" : ""
    output.write(prefixed(percent + "%" + counts + paused + message) + "\n")
  }

  /// `paused at 52%  26/50`, or `resumed at …`.
  private func writePlainPause(_ progress: RunProgress, isPaused: Bool, unit: ProgressUnit) {
    let position = [
      TerminalFormat.percent(progress).map { $0 + "%" },
      countsText(progress, finished: false, unit: unit),
    ].compactMap { $0 }.joined(separator: "  ")
    let at = position.isEmpty ? "" : " at " + position
    output.write(prefixed((isPaused ? "paused" : "resumed") + at) + "\n")
  }

  private func prefixed(_ text: String) -> String {
    label.isEmpty ? text : label + ": " + text
  }

  // MARK: - Text

  /// The counts a percentage is computed from, exactly, when the work counts.
  private func percentCounts(_ progress: RunProgress) -> ProgressLine.Counts? {
    guard let completed = progress.completedCount, let total = progress.totalCount else {
      return nil
    }
    return ProgressLine.Counts(completed: completed, total: total)
  }

  /// `26/50` items or `1.2 GB / 3.4 GB`, `26` or `1.2 GB` without a total.
  private func countsText(_ progress: RunProgress, finished: Bool, unit: ProgressUnit) -> String? {
    guard let completed = progress.completedCount else { return nil }
    guard let total = progress.totalCount else { return unit.format(completed) }
    return unit.format(completed: finished ? total : completed, of: total)
  }

  /// An error's description on one line.
  private func oneLine(_ error: any Error) -> String {
    TerminalFormat.singleLine(String(describing: error))
  }
}
