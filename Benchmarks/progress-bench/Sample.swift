import TaskProgress

/// One measurement of one case at one size: what a child process prints as one JSON line.
struct Sample: Codable, Sendable {
  /// The case measured.
  var benchCase: BenchCase
  /// The number of reports (or items).
  var n: Int
  /// The number of tasks that reported concurrently.
  var tasks = 1
  /// The timed portion, in nanoseconds: the reporting loop for (b), (c), (d) and (f); the whole
  /// pipeline until the observer (or the seed's model) shows the end for (a) and (e).
  var wallNanoseconds: Double = 0
  /// The timed portion divided by the number of reports.
  var nanosecondsPerReport: Double = 0
  /// Reports per second, in total over all reporting tasks.
  var reportsPerSecond: Double = 0
  /// From the start of the run until the observer saw it end, in nanoseconds.
  var endToEndNanoseconds: Double?
  /// Calls of the observer on the main actor during the run (for (a): main-actor tasks run).
  var deliveries: Int?
  /// The most deliveries the contract allows: one per update interval of the run, plus the
  /// transitions.
  var deliveryBound: Int?
  /// Frames the runner scheduled on its clock: each one is a main-actor job.
  var frames: Int?
  /// From the last report (for (a): the last `yield`) until the observer saw the end.
  var latencyNanoseconds: Double?
  /// The longest time between two deliveries during the run: how stale the observer's view got.
  var longestGapNanoseconds: Double?
  /// How the run ended, as the observer saw it.
  var terminalState: String?
  /// The child's peak resident set size (`VmHWM`), in bytes.
  var peakRSSBytes = 0
  /// What only the seed's pipeline measures.
  var seed: SeedDetails?
  /// What only the idle case measures.
  var idle: IdleDetails?

  init(benchCase: BenchCase, n: Int) {
    self.benchCase = benchCase
    self.n = n
  }

  /// Sets the timed portion and the rates derived from it.
  mutating func setTimed(wallNanoseconds: Double) {
    self.wallNanoseconds = wallNanoseconds
    guard n > 0, wallNanoseconds > 0 else { return }
    nanosecondsPerReport = wallNanoseconds / Double(n)
    reportsPerSecond = Double(n) / (wallNanoseconds / 1e9)
  }

  /// Sets what a runner's run delivered: deliveries, their bound, frames and latency.
  @MainActor
  mutating func recordRun(start: Int64, tally: DeliveryTally, lastReportAt: Int64, frames: Int) {
    let endedAt = tally.endedAt ?? nowNanoseconds()
    let endToEnd = Double(endedAt - start)
    endToEndNanoseconds = endToEnd
    deliveries = tally.deliveries
    let intervals = (endToEnd / Cases.updateInterval.nanoseconds).rounded(.up)
    deliveryBound = Int(intervals) + Cases.transitions
    self.frames = frames
    latencyNanoseconds = Double(endedAt - lastReportAt)
    longestGapNanoseconds = Double(tally.longestGap)
    terminalState = tally.terminalState?.description ?? "none"
  }

  /// Whether the run ended as it should: `.finished`, seen by the observer.
  var finished: Bool {
    terminalState == nil || terminalState == RunState.finished.description
  }
}

/// What the seed's pipeline measures beyond the common fields.
struct SeedDetails: Codable, Sendable {
  /// The main-actor tasks that had run when the bar first showed 100 %.
  var deliveriesWhenFull: Int
  /// The value the view showed once every queued main-actor task had run; below 1 means the
  /// tasks ran out of order.
  var finalProgress: Double
}

/// What the idle case measures: a runner's wake-ups, with the default animation.
struct IdleDetails: Codable, Sendable {
  /// How long each idle window lasted.
  var idleSeconds: Double
  /// Wake-ups while the new runner sat idle before its first run (expected 0).
  var wakeUpsBeforeAnyRun: Int
  /// How long the run of known length took, in nanoseconds.
  var runNanoseconds: Double
  /// Frames scheduled during that run.
  var framesDuringRun: Int
  /// One frame per update interval of the run.
  var expectedFramesDuringRun: Int
  /// Observer calls during the run.
  var deliveriesDuringRun: Int
  /// From the end of the run until the bar stopped moving, in nanoseconds.
  var settleNanoseconds: Double
  /// Frames scheduled while the bar settled.
  var framesWhileSettling: Int
  /// Frames scheduled while idle after the bar settled (expected 0).
  var sleepsWhileIdle: Int
  /// Wake-ups while idle after the bar settled (expected 0).
  var wakeUpsWhileIdle: Int
}
