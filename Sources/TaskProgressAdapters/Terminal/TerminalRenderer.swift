public import TaskProgress

/// Draws a runner's progress on a terminal, or as plain lines where there is none.
///
/// Attach it to a `TaskRunner`. It draws on standard error unless told otherwise
/// (`output: .standardOutput`), so that what the program prints stays alone on standard output.
/// On an interactive terminal it redraws one line in place: a bar,
/// the percentage, the counts, the rate, the time left and the status text the work reported
/// last. Anywhere else (a pipe, a file, CI) it writes plain lines, with no carriage return and no
/// escape sequence.
@MainActor
public final class TerminalRenderer: ProgressRenderer {
  /// The longest the interactive bar waits between two redraws: 20 per second, as indicatif.
  static let redrawInterval: Duration = TerminalDrawer.redrawInterval

  /// The text before the bar, or before each plain line.
  public let label: String
  /// The unit counts and rates are shown in, or `nil` to show them in the runner's
  /// ``/TaskProgress/TaskRunner/unit``.
  public let unit: ProgressUnit?
  /// The bar's area, one row, on an interactive terminal.
  private let drawer: TerminalDrawer
  private let plain: PlainWriter
  /// The run being drawn, if one is.
  private var run: RunLines?

  /// Creates a renderer.
  ///
  /// - Parameters:
  ///   - label: The text before the bar; empty for none.
  ///   - unit: The unit counts and rates are shown in, such as
  ///     ``/TaskProgress/ProgressUnit/bytes``; `nil`, the default, for the runner's
  ///     ``/TaskProgress/TaskRunner/unit``.
  ///   - output: Where to draw: standard error by default, so that standard output keeps only
  ///     what the program prints, as indicatif and tqdm do; `.standardOutput`, or an output of
  ///     your own.
  ///   - restoresTerminalOnSignals: Whether to show the cursor again when `SIGINT`, `SIGTERM` or
  ///     `SIGHUP` ends the process while a bar is drawn. Only signals left at their default
  ///     disposition are handled; a program with its own handlers calls ``restoreTerminal()``.
  public init(
    label: String = "",
    unit: ProgressUnit? = nil,
    output: some TerminalOutput = TerminalStream.standardError,
    restoresTerminalOnSignals: Bool = true
  ) {
    self.label = TerminalFormat.singleLine(label)
    self.unit = unit
    self.drawer = TerminalDrawer(output: output, restoresOnSignals: restoresTerminalOnSignals)
    self.plain = PlainWriter(output: output)
  }

  /// Whether the bar is redrawn in place: on any terminal, even one without escape sequences, as
  /// one row needs none.
  private var drawsInPlace: Bool {
    drawer.output.capabilities.redrawing != .never
  }

  /// Draws one update from the runner.
  public func render(_ update: ProgressUpdate) {
    let unit = self.unit ?? update.unit
    switch update.state {
    case .running(let progress), .paused(let progress):
      guard update.reason == .stateChanged else {
        drawBar(update, unit: unit, force: false)
        return
      }
      let began = self.run == nil
      var run = self.run ?? RunLines(label: label, start: update.time)
      let pauseChanged = run.take(progress, isPaused: update.state.phase == .paused, unit: unit)
      if !drawsInPlace {
        plain.write(run.plainLines(began: began, pauseChanged: pauseChanged, unit: unit))
      }
      self.run = run
      // A pause or a resume is drawn at once, like any transition.
      drawBar(update, unit: unit, force: pauseChanged)
    case .finished, .failed, .cancelled:
      guard update.reason == .stateChanged, let run else { return }
      self.run = nil
      guard drawsInPlace else {
        plain.write([run.plainEnd(update, unit: unit)])
        return
      }
      // A status too long for the bar's row goes below it, whole.
      drawer.draw { size in
        let (line, overflow) = rendered(run.finalLine(update, unit: unit), size: size)
        return TerminalDrawer.Lines(
          above: [line], printed: overflow.map { [$0] } ?? [], closes: true)
      }
    case .idle:
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
    drawer.close()
  }

  /// Draws the bar of the run under way as of `update`, when a redraw is due or `force`.
  private func drawBar(_ update: ProgressUpdate, unit: ProgressUnit, force: Bool) {
    guard drawsInPlace, let run else { return }
    drawer.draw(at: update.time, force: force) { size in
      TerminalDrawer.Lines(area: [rendered(run.liveLine(update, unit: unit), size: size).line])
    }
  }

  /// The row a line takes at the terminal's size, and its status whole on a row of its own
  /// when it does not fit after the bar.
  private func rendered(
    _ line: ProgressLine, size: TerminalDrawer.Size
  ) -> (line: String, overflow: String?) {
    line.fitted(
      columns: size.columns, capabilities: drawer.output.capabilities, longStatus: .whole)
  }
}
