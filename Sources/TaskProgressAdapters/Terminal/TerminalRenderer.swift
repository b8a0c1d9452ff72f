public import TaskProgress

/// Draws a runner's progress on a terminal, or as plain lines where there is none.
///
/// Attach it to a `TaskRunner`. On an interactive terminal it redraws one line in place: a bar,
/// the percentage, the counts, the rate, the time left and the status text the work reported
/// last. Anywhere else (a pipe, a file, CI) it writes plain lines, with no carriage return and no
/// escape sequence.
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
