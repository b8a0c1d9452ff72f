import TaskProgress

/// What the log keeps of one run, a runner's or a group member's, between its lines.
struct RunLog: Identifiable {
  /// The label written in every line; empty for none.
  let label: String
  /// The group member's label, for a member's runs.
  let member: String?
  /// The group member's identity, for a member's runs.
  let id: TaskRunnerGroup.Member.ID?
  private var runStart: Duration?
  /// The last line written: when, in which phase, and with what progress.
  private var lastLine: (time: Duration, phase: RunPhase, progress: RunProgress?)?
  /// The last progress of the current run, logged or not: where a run that ends got to.
  private var lastProgress: RunProgress?

  init(label: String, member: String?, id: TaskRunnerGroup.Member.ID?) {
    self.label = label
    self.member = member
    self.id = id
  }

  /// The line `update` calls for, if any: a state change worth a line, the run's start and end
  /// always.
  mutating func line(
    for update: ProgressUpdate, at wallClock: () -> Duration
  ) -> LogLine? {
    guard update.reason == .stateChanged else { return nil }
    let state = update.state
    guard lastLine != nil || state.phase != .idle else { return nil }  // attached while idle
    let progress = state.progress
    if state.phase.isActive && !(lastLine?.phase.isActive ?? false) {
      runStart = update.time
    }
    if let progress {
      lastProgress = progress
    }
    if let lastLine, lastLine.phase == state.phase, state.phase.isActive, let progress,
      !isWorthALine(progress, since: lastLine.progress, elapsed: update.time - lastLine.time)
    {
      return nil
    }
    // A run that ended is logged where it got to: the last progress it reported.
    let position = state.phase.isTerminal ? lastProgress : progress
    let fraction =
      switch state.phase {
      case .failed, .cancelled: position?.fractionCompleted ?? 0
      case .idle, .running, .paused, .finished: state.fractionCompleted
      }
    let line = LogLine(
      time: wallClock(), label: label, member: member, phase: state.phase, fraction: fraction,
      completed: position?.completedCountForDisplay, total: position?.totalCount, unit: update.unit,
      bytes: (position?.completedByteCount, position?.totalByteCount),
      files: (position?.completedFileCount, position?.totalFileCount),
      throughput: update.throughput,
      throughputUnit: position.map(update.unit.rateUnit(of:)),
      eta: update.estimatedTimeRemaining,
      elapsed: state.phase == .idle ? nil : runStart.map { update.time - $0 },
      message: position?.message, error: state.error.map { String(describing: $0) })
    lastLine = (update.time, state.phase, progress)
    if state.phase.isTerminal {
      runStart = nil
      lastProgress = nil
    }
    return line
  }

  private func isWorthALine(
    _ progress: RunProgress, since last: RunProgress?, elapsed: Duration
  ) -> Bool {
    guard let last else { return true }
    if let total = progress.totalCount, total > 0, total == last.totalCount,
      let completed = progress.completedCount, let lastCompleted = last.completedCount
    {
      // In whole counts, so that 28/100 to 29/100 is a step (0.29 - 0.28 is 0.00999…).
      let moved = (completed - lastCompleted).magnitude.multipliedReportingOverflow(by: 100)
      if moved.overflow || moved.partialValue >= total.magnitude { return true }
    }
    // Also in fractions, which count unfinished children beyond the counts.
    if let fraction = progress.fractionCompleted, let lastFraction = last.fractionCompleted {
      if abs(fraction - lastFraction) >= LogFileRenderer.fractionStep * (1 - 1e-9) { return true }
    } else if progress.isIndeterminate != last.isIndeterminate {
      return true
    }
    return progress != last && elapsed >= LogFileRenderer.timeStep
  }

}
