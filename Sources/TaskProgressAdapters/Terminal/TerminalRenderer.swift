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

  /// The text before the bar, or before each plain line.
  public let label: String
  /// The unit counts and rates are shown in, or `nil` to show them in the runner's
  /// ``/TaskProgress/TaskRunner/unit``.
  public let unit: ProgressUnit?
  private let output: any TerminalOutput

  /// The run being drawn, if one is.
  private var run: RunLines?
  /// The last interactive line written, while the bar is open (no newline yet).
  private var openLine: String?
  private var lastDraw: Duration?
  private var cursor: CursorVisibility

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
    self.label = TerminalFormat.singleLine(label)
    self.unit = unit
    self.output = output
    self.cursor = CursorVisibility(restoresOnSignals: restoresTerminalOnSignals)
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
      let pauseChanged = run?.take(progress, isPaused: isPaused, unit: unit(of: update)) ?? false
      if output.capabilities.isInteractive {
        // A pause or a resume is drawn at once, like any transition.
        drawBar(update, force: pauseChanged)
      } else {
        if pauseChanged, let run {
          output.write(run.plainPause(unit: unit(of: update)) + "\n")
        }
        if let step = run?.plainStep(unit: unit(of: update)) {
          output.write(step + "\n")
        }
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
    cursor.show(on: output)
  }

  // MARK: - Runs

  private func begin(at time: Duration) {
    run = RunLines(label: label, start: time)
    lastDraw = nil
    if let run, !output.capabilities.isInteractive {
      output.write(run.plainStart + "\n")
    }
  }

  private func finish(_ update: ProgressUpdate) {
    guard let run else { return }
    if output.capabilities.isInteractive {
      write(run.finalLine(update, unit: unit(of: update)), force: true, time: update.time)
      output.write("\n")
      openLine = nil
      cursor.show(on: output)
    } else {
      output.write(run.plainEnd(update, unit: unit(of: update)) + "\n")
    }
    self.run = nil
  }

  /// The unit an update's counts and rate are shown in.
  private func unit(of update: ProgressUpdate) -> ProgressUnit {
    unit ?? update.unit
  }

  // MARK: - Interactive drawing

  private func drawBar(_ update: ProgressUpdate, force: Bool) {
    guard let run else { return }
    if let lastDraw, !force,
      !TerminalFormat.isRedrawDue(after: update.time - lastDraw, interval: Self.redrawInterval)
    {
      return
    }
    write(run.liveLine(update, unit: unit(of: update)), force: force, time: update.time)
  }

  private func write(_ line: ProgressLine, force: Bool, time: Duration) {
    let capabilities = output.capabilities
    let (text, overflow) = line.rendered(
      width: output.columns, unicode: capabilities.supportsUnicode,
      color: capabilities.supportsColor)
    guard force || text != openLine else { return }
    let hide = cursor.hide(on: output)
    if !hide.isEmpty {
      output.write(hide)
    }
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
}
