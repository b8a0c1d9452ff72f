/// One thing the benchmark measures; each runs in its own child process so that its peak memory
/// is its own.
///
/// The order of the cases is the order in which each round runs them.
enum BenchCase: String, CaseIterable, Codable, Sendable {
  /// A child that measures nothing: the peak memory every child starts from.
  case empty
  /// (a) The blog's pipeline: an unbounded `AsyncStream`, one main-actor `Task` per value.
  case seed
  /// (b) `Foundation.Progress`, `completedUnitCount += 1` per item.
  case foundationProgress = "foundation-progress"
  /// (c) A raw `Atomic<Int>` store per item: the floor for any reporting.
  case atomic
  /// (d) `TaskRunner.Reporter.report(completed:of:)` in a tight loop inside a run.
  case reporter
  /// (e) `TaskRunner.run(over:perform:)` on no-op async items, until the observer sees the end.
  case runOver = "run-over"
  /// (e') The work of (e) written by hand inside `run { reporter in ... }`: what (e) would cost
  /// without the collection loop of `run(over:)`, for reference.
  case handLoop = "hand-loop"
  /// (f) (d) split over two concurrent tasks.
  case reporterX2 = "reporter-x2"
  /// (f) (d) split over eight concurrent tasks.
  case reporterX8 = "reporter-x8"
  /// (g) Eight tasks report in tight loops for half a second, more tasks than the cooperative
  /// pool has threads, and never suspend: the frames, which need a pool thread to wake, wait.
  case saturated
  /// (g') (g) with `try await reporter.checkpoint()` every 4,096 reports: the frames come again.
  case saturatedCheckpoints = "saturated-checkpoints"
  /// A runner's wake-ups before, during and after a run.
  case idle

  /// The short tag the table and the targets use, such as `d` or `f8`.
  var tag: String {
    switch self {
    case .seed: "a"
    case .foundationProgress: "b"
    case .atomic: "c"
    case .reporter: "d"
    case .runOver: "e"
    case .handLoop: "e'"
    case .reporterX2: "f2"
    case .reporterX8: "f8"
    case .saturated: "g"
    case .saturatedCheckpoints: "g'"
    case .idle: "idle"
    case .empty: "empty"
    }
  }

  /// What the case measures, in a few words.
  var title: String {
    switch self {
    case .seed: "seed: AsyncStream + Task per value"
    case .foundationProgress: "Foundation.Progress += 1"
    case .atomic: "Atomic<Int>.store (floor)"
    case .reporter: "Reporter.report, 1 task"
    case .runOver: "run(over:) no-op items"
    case .handLoop: "run {} hand-written loop"
    case .reporterX2: "Reporter.report, 2 tasks"
    case .reporterX8: "Reporter.report, 8 tasks"
    case .saturated: "Reporter.report, 8 tasks for 0.5 s"
    case .saturatedCheckpoints: "(g) with a checkpoint every 4,096"
    case .idle: "idle runner wake-ups"
    case .empty: "empty child (baseline RSS)"
    }
  }

  /// How many tasks report concurrently.
  var reportingTasks: Int {
    switch self {
    case .reporterX2: 2
    case .reporterX8, .saturated, .saturatedCheckpoints: 8
    case .seed, .foundationProgress, .atomic, .reporter, .runOver, .handLoop, .idle, .empty: 1
    }
  }

  /// How many times a child measures the case, keeping the median.
  ///
  /// The tight loops take milliseconds, so one preemption on a shared machine could decide a
  /// row; they repeat. The cases that take seconds, or count rather than time, run once.
  var repetitionsPerChild: Int {
    switch self {
    case .foundationProgress, .atomic, .reporter, .reporterX2, .reporterX8: 5
    case .seed, .runOver, .handLoop, .saturated, .saturatedCheckpoints, .idle, .empty: 1
    }
  }

  /// Whether the case runs at each size N; `idle` and `empty` run once per round.
  var scalesWithN: Bool {
    switch self {
    case .saturated, .saturatedCheckpoints, .idle, .empty: false
    case .seed, .foundationProgress, .atomic, .reporter, .runOver, .handLoop, .reporterX2,
      .reporterX8:
      true
    }
  }

  /// Whether the case runs a `TaskRunner`, so its deliveries, latency and memory are checked.
  var usesRunner: Bool {
    switch self {
    case .reporter, .runOver, .handLoop, .reporterX2, .reporterX8, .saturated,
      .saturatedCheckpoints:
      true
    case .seed, .foundationProgress, .atomic, .idle, .empty: false
    }
  }
}
