import TaskProgress

/// One run as a terminal renderer draws it: what it keeps between updates, and the lines it
/// makes of them, on a terminal and as plain text.
///
/// ``TerminalRenderer`` keeps one for its runner's run; ``TerminalGroupRenderer`` keeps one for
/// each member with a run under way, so that a group's bars and plain lines read exactly as a
/// single runner's do.
struct RunLines {
  /// How long the moving block of an indeterminate bar takes to go there and back.
  static let indeterminatePeriod: Duration = .seconds(2)

  /// The text before the bar, or before each plain line; empty for none.
  let label: String
  /// When the run began, on the runner's clock.
  let start: Duration
  var progress: RunProgress = .zero
  /// Whether the run is paused, as of the last state taken in.
  var isPaused = false
  /// Whether the run has shown a message: from then on the line keeps room for one.
  var hasShownMessage = false
  /// The last 10% step a plain line was written for.
  var lastPlainStep = 0
  /// The highest fraction since the plain lines last started over.
  var highestPlainFraction = 0.0
  /// The room kept after the bar, and the unit and the kind of progress it was reckoned for: it
  /// changes only with them, and reckoning it formats sample counts and rates.
  private var reservation: (unit: ProgressUnit, kind: Kind, room: ProgressLine.Reservation)?

  /// What the room kept after the bar depends on, besides the unit.
  private struct Kind: Equatable {
    var isDeterminate: Bool
    var counts: ProgressMeasure?
    var total: Int?
    var rate: ProgressMeasure?

    init(_ progress: RunProgress) {
      isDeterminate = progress.fractionCompleted != nil
      let counts = ProgressMeasure.counts(of: progress)
      self.counts = counts?.measure
      total = counts?.total
      rate = ProgressMeasure.rate(of: progress)
    }
  }

  init(label: String, start: Duration) {
    self.label = label
    self.start = start
  }

  /// Takes in a state change of the run, whose counts are shown in `unit`; returns whether the
  /// run paused or resumed with it.
  @MainActor mutating func take(_ progress: RunProgress, isPaused: Bool, unit: ProgressUnit) -> Bool
  {
    let pauseChanged = self.isPaused != isPaused
    self.progress = progress
    self.isPaused = isPaused
    if progress.message != nil {
      hasShownMessage = true
    }
    let kind = Kind(progress)
    if reservation?.unit != unit || reservation?.kind != kind {
      reservation = (unit, kind, RunLines.reservation(for: progress, kind: kind, unit: unit))
    }
    return pauseChanged
  }

  /// The last reservations made, by any run, the latest last: the next run of a queue most
  /// likely goes through the same kinds of progress, in the same unit (a run of a queue starts
  /// with no counts, then counts).
  @MainActor private static var recentReservations:
    [(unit: ProgressUnit, kind: Kind, room: ProgressLine.Reservation)] = []

  /// The room a run's line keeps for its parts: a recent one when the unit and the kind of
  /// progress are the same (it depends on nothing else), else made afresh, formatting counts and
  /// rates to measure them.
  @MainActor private static func reservation(
    for progress: RunProgress, kind: Kind, unit: ProgressUnit
  ) -> ProgressLine.Reservation {
    if let recent = recentReservations.last(where: { $0.kind == kind && $0.unit == unit }) {
      return recent.room
    }
    let room = ProgressLine.Reservation.forRun(progress, unit: unit)
    if recentReservations.count == 4 {
      recentReservations.removeFirst()
    }
    recentReservations.append((unit, kind, room))
    return room
  }

  // MARK: - On a terminal

  /// The room the line keeps after the bar for the whole run.
  func reservation(unit: ProgressUnit) -> ProgressLine.Reservation {
    var reserved =
      reservation.flatMap { $0.unit == unit && $0.kind == Kind(progress) ? $0.room : nil }
      ?? ProgressLine.Reservation.forRun(progress, unit: unit)
    reserved.message = hasShownMessage
    return reserved
  }

  /// The line of the run under way, as of `update`, a frame or a state change of the runner.
  func liveLine(_ update: ProgressUpdate, unit: ProgressUnit) -> ProgressLine {
    var line = ProgressLine(
      label: label, counts: RunLines.countsText(progress, finished: false, unit: unit))
    line.reserved = reservation(unit: unit)
    line.message = progress.message
    line.isPaused = isPaused
    if progress.isIndeterminate {
      line.indeterminatePosition = bouncing(update.time - start)
    } else {
      // The bar glides with the animation; the percentage is the reported one, like the counts.
      line.barFraction = update.displayedProgress
      line.percentFraction = progress.fractionCompleted
      line.percentCounts = RunLines.percentCounts(progress)
      line.eta = update.estimatedTimeRemaining.map { "ETA " + TerminalFormat.remaining($0) }
    }
    line.rate = update.throughput.map { unit.format(throughput: $0, of: progress) }
    return line
  }

  /// The last line of the run, as of `update`, the state change that ended it: a full bar and
  /// `done in 2.1s`, or the bar where the work was and `failed after …: reason` or
  /// `cancelled after …`.
  func finalLine(_ update: ProgressUpdate, unit: ProgressUnit) -> ProgressLine {
    let elapsed = TerminalFormat.elapsed(update.time - start)
    let lastFraction = progress.fractionCompleted
    let finished = update.state.phase == .finished
    let status: ProgressLine.Status
    switch update.state {
    case .failed(let error):
      status = .failure("failed after \(elapsed): " + RunLines.oneLine(error))
    case .cancelled: status = .note("cancelled after \(elapsed)")
    default: status = .success("done in \(elapsed)")
    }
    var line = ProgressLine(
      label: label, counts: RunLines.countsText(progress, finished: finished, unit: unit),
      status: status)
    line.reserved = reservation(unit: unit)
    // A finished bar is full; any other ends where the work was, and indeterminate work
    // claims no percentage even then.
    line.barFraction = finished ? 1 : lastFraction
    line.percentFraction = finished ? 1 : lastFraction
    line.percentCounts = finished ? nil : RunLines.percentCounts(progress)
    line.indeterminatePosition = bouncing(update.time - start)
    return line
  }

  /// A triangle wave in `0...1`: where the block of an indeterminate bar is after `elapsed`.
  private func bouncing(_ elapsed: Duration) -> Double {
    // An update timed before the run began (a test's own) stands at the start.
    let elapsed = max(elapsed, .zero)
    let phase = (elapsed / RunLines.indeterminatePeriod).truncatingRemainder(dividingBy: 1)
    return phase < 0.5 ? phase * 2 : 2 - phase * 2
  }

  // MARK: - Plain lines

  /// The plain lines of a state change the run took in: `Importing: started` when it `began`,
  /// where it paused or resumed when it did, and the new 10% step it reached, if any.
  mutating func plainLines(began: Bool, pauseChanged: Bool, unit: ProgressUnit) -> [String] {
    var lines = began ? [prefixed("started")] : []
    if pauseChanged {
      lines.append(plainPause(unit: unit))
    }
    if let step = plainStep(unit: unit) {
      lines.append(step)
    }
    return lines
  }

  /// `52%  26/50  Hashing b.jpg` when the progress reached a new 10% step, with `paused` after
  /// the counts while the run is paused (work not yet at a checkpoint goes on reporting); `nil`
  /// when it did not.
  ///
  /// Progress that goes back by more than a step, as a queue's retry that starts over does, is
  /// written at once, its message with it (`0%  retry 2 of 3`), and its steps again from there.
  private mutating func plainStep(unit: ProgressUnit) -> String? {
    guard let fraction = progress.fractionCompleted else { return nil }
    let step = Int((fraction * 10).rounded(.down))
    if fraction < highestPlainFraction - 0.1 {
      highestPlainFraction = fraction
    } else {
      highestPlainFraction = max(highestPlainFraction, fraction)
      guard step > lastPlainStep else { return nil }
    }
    lastPlainStep = step
    let counts = RunLines.countsText(progress, finished: false, unit: unit).map { "  " + $0 } ?? ""
    let percent = TerminalFormat.percent(progress) ?? TerminalFormat.percent(fraction)
    let message = progress.message.map { "  " + TerminalFormat.singleLine($0) } ?? ""
    let paused = isPaused ? "  paused" : ""
    return prefixed(percent + "%" + counts + paused + message)
  }

  /// `paused at 52%  26/50`, or `resumed at …`, as the run is now.
  private func plainPause(unit: ProgressUnit) -> String {
    let position = [
      TerminalFormat.percent(progress).map { $0 + "%" },
      RunLines.countsText(progress, finished: false, unit: unit),
    ].compactMap { $0 }.joined(separator: "  ")
    let at = position.isEmpty ? "" : " at " + position
    return prefixed((isPaused ? "paused" : "resumed") + at)
  }

  /// `finished in 4.1s  100/100`, `failed after 0.6s at 40% 20/50: reason` or
  /// `cancelled after …`, as of `update`, the state change that ended the run.
  func plainEnd(_ update: ProgressUpdate, unit: ProgressUnit) -> String {
    let elapsed = TerminalFormat.elapsed(update.time - start)
    let counts = RunLines.countsText(
      progress, finished: update.state.phase == .finished, unit: unit)
    let position = [TerminalFormat.percent(progress).map { $0 + "%" }, counts]
      .compactMap { $0 }.joined(separator: " ")
    let at = position.isEmpty ? "" : " at " + position
    let text =
      switch update.state {
      case .failed(let error): "failed after \(elapsed)\(at): " + RunLines.oneLine(error)
      case .cancelled: "cancelled after \(elapsed)\(at)"
      default: "finished in \(elapsed)" + (counts.map { "  " + $0 } ?? "")
      }
    return prefixed(text)
  }

  /// `label: text`, or `text` without a label.
  private func prefixed(_ text: String) -> String {
    label.isEmpty ? text : label + ": " + text
  }

  // MARK: - Text

  /// The counts a percentage is computed from, exactly, when the work counts and its fraction
  /// is theirs; `nil` when unfinished children take the fraction beyond them, which the
  /// percentage then shows, as the bar does.
  static func percentCounts(_ progress: RunProgress) -> ProgressLine.Counts? {
    guard progress.fractionIsTheCounts, let completed = progress.completedCount,
      let total = progress.totalCount
    else {
      return nil
    }
    return ProgressLine.Counts(completed: completed, total: total)
  }

  /// The counts beside the bar as text: `26/50` items, `1.2 GB / 3.4 GB` or `3/24 files`.
  ///
  /// Without a total: `26`, `1.2 GB` or `3 files`. Bytes show in `unit`'s multiples when it is
  /// a byte unit, else in decimal ones.
  static func countsText(_ progress: RunProgress, finished: Bool, unit: ProgressUnit) -> String? {
    guard let counts = ProgressMeasure.counts(of: progress, finished: finished) else { return nil }
    let unit = counts.measure.unit(given: unit)
    let text =
      counts.total.map { unit.format(completed: counts.completed, of: $0) }
      ?? unit.format(counts.completed)
    return counts.measure == .files ? text + " files" : text
  }

  /// An error's description on one line.
  static func oneLine(_ error: any Error) -> String {
    TerminalFormat.singleLine(String(describing: error))
  }
}
