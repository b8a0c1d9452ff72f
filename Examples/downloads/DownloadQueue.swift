import ExampleSupport
import TaskProgress

/// The queue: a ``TaskRunner`` per file, all in one ``TaskRunnerGroup`` weighted by size, run
/// `--jobs` at a time.
///
/// Every file joins the group when the queue is made, so that the total counts the files still
/// waiting. A run of the queue starts the first `jobs` downloads, and as each one ends, finished
/// or failed, the next waiting file starts in its place, at once: the queue hears of the end
/// from the runner's observer, in the same turn of the main actor, so that no frame of the group
/// sees one download fewer under way, and the group stays active from the first download to the
/// last. ``cancelAll()`` cancels the downloads under way, and the waiting ones never start.
@MainActor
final class DownloadQueue {
  /// How a run of the queue ended: how many downloads finished, failed, were cancelled or never
  /// started.
  struct Outcome: Equatable {
    var finished = 0
    var failed = 0
    var cancelled = 0
    var notStarted = 0
    /// Whether ``DownloadQueue/cancelAll()`` ended the run.
    var wasCancelled = false

    /// `0` when every download finished, `1` when one failed, `130` when the run was cancelled.
    var status: ExitStatus {
      if wasCancelled || cancelled > 0 { return .interrupted }
      return failed > 0 ? .failed : .finished
    }

    /// `8 finished`, `6 finished, 1 failed, 1 cancelled, 3 not started`.
    var description: String {
      let parts = [
        (finished, "finished"), (failed, "failed"), (cancelled, "cancelled"),
        (notStarted, "not started"),
      ]
      return parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }
  }

  let options: Options
  let files: [DownloadFile]
  /// The group of the downloads, the one the renderers draw.
  let group = TaskRunnerGroup(weighting: .units, unit: .bytes)
  private let runners: [TaskRunner]
  private var tokens: [ObservationToken] = []
  /// The index of the next file to start.
  private var nextIndex = 0
  /// Whether a run of the queue is under way, until the group's summary shows its end.
  private(set) var isActive = false
  private var wasCancelled = false
  /// The counts the group's summary shows once it has caught up with the ended run.
  private var expectedCounts = TaskRunnerGroup.PhaseCounts()
  /// Whether the run waits for the group to settle with the downloads as they ended.
  private var isCatchingUp = false
  private var catchUpToken: ObservationToken?
  private var waiters: [CheckedContinuation<Outcome, Never>] = []

  /// Called when a run of the queue has ended and the group has settled.
  var onEnd: (@MainActor (Outcome) -> Void)?

  init(options: Options) {
    self.options = options
    files = DownloadFile.queue(count: options.count, seed: options.seed, failAt: options.failAt)
    runners = files.map { _ in TaskRunner() }
    for (file, runner) in zip(files, runners) {
      runner.unit = .bytes
      do {
        try group.add(runner, label: file.name, weight: Double(file.size))
      } catch {
        preconditionFailure("a file's size is a valid weight: \(error)")
      }
      tokens.append(
        runner.observe { [weak self] state in
          if state.phase.isTerminal { self?.downloadEnded() }
        })
    }
  }

  /// The bytes of every file together.
  var totalSize: Int {
    files.reduce(0) { $0 + $1.size }
  }

  /// Starts a run of the queue, unless one is under way: every download back to idle, then the
  /// first `--jobs` of them.
  ///
  /// - Returns: Whether a run started.
  @discardableResult
  func start() -> Bool {
    guard !isActive else { return false }
    for runner in runners {
      runner.reset()
    }
    nextIndex = 0
    wasCancelled = false
    isActive = true
    for _ in 0..<min(options.jobs, files.count) {
      startNext()
    }
    return true
  }

  /// Cancels the run of the queue: the downloads under way are cancelled at once, and the
  /// waiting ones never start.
  func cancelAll() {
    // A run whose downloads have all ended, and that only waits for the group's sums, is over.
    guard isActive, nextIndex < files.count || runners.contains(where: \.isActive) else {
      return
    }
    wasCancelled = true
    group.cancelAll()
  }

  /// Waits for the run under way, if any, to end, and returns how it ended; with no run under
  /// way, how the last one ended.
  func waitForEnd() async -> Outcome {
    guard isActive else { return outcome }
    return await withCheckedContinuation { waiters.append($0) }
  }

  /// One line for standard error naming the first download that failed, if one did.
  ///
  /// ```
  /// download 3 of 8 (dataset-3.csv.gz) failed after 17.5 MB / 47.4 MB: the connection was ...
  /// ```
  func failureMessage() -> String? {
    let failures = zip(files, runners).compactMap { file, runner in
      runner.state.error.map { (file, $0) }
    }
    guard let (file, error) = failures.first else { return nil }
    let reason = String(describing: error).map { $0.isNewline ? " " : $0 }
    var place = ""
    if case .connectionReset(let received) = error as? DownloadError {
      place = " after \(ProgressUnit.bytes.format(completed: received, of: file.size))"
    }
    let others = failures.count > 1 ? " (and \(failures.count - 1) more)" : ""
    return "download \(file.number) of \(files.count) (\(file.name)) failed\(place)\(others): "
      + String(reason)
  }

  /// Starts the next waiting download, if one waits and the run was not cancelled.
  private func startNext() {
    guard !wasCancelled, nextIndex < files.count else { return }
    let (file, runner) = (files[nextIndex], runners[nextIndex])
    nextIndex += 1
    let speed = options.speed
    runner.start { reporter in
      try await file.transfer(speed: speed, reporter: reporter)
    }
  }

  /// A download ended: the next one starts in its place; after the last one, the run ends.
  private func downloadEnded() {
    // Once every download has ended, the run only waits for the group to settle.
    guard isActive, expectedCounts.total == 0 else { return }
    startNext()
    guard !runners.contains(where: \.isActive) else { return }
    // Every download has ended, or the waiting ones will never start: the run ends once the
    // group has settled with every download as it is now (at once when none waits; a moment
    // later when the cancelled queue left some waiting), maybe already. Its renderers draw the
    // end of the run on that frame, after its observers: the run ends after the frame, so that
    // what the end prints comes below.
    expectedCounts = TaskRunnerGroup.PhaseCounts()
    for runner in runners {
      expectedCounts[runner.state.phase] += 1
    }
    isCatchingUp = true
    let token = group.observe { [weak self] summary in
      guard let self, isCatchingUp, summary.isSettled, summary.counts == expectedCounts else {
        return
      }
      isCatchingUp = false
      catchUpToken?.cancel()
      catchUpToken = nil
      Task { self.end() }
    }
    if isCatchingUp {
      catchUpToken = token
    } else {
      token.cancel()
    }
  }

  /// The phases of the downloads as they are now, and how the run ended.
  private var outcome: Outcome {
    var outcome = Outcome(wasCancelled: wasCancelled)
    for runner in runners {
      switch runner.state.phase {
      case .finished: outcome.finished += 1
      case .failed: outcome.failed += 1
      case .cancelled: outcome.cancelled += 1
      case .idle, .running, .paused: outcome.notStarted += 1
      }
    }
    return outcome
  }

  private func end() {
    guard isActive else { return }
    isActive = false
    expectedCounts = TaskRunnerGroup.PhaseCounts()
    let outcome = outcome
    onEnd?(outcome)
    let waiting = waiters
    waiters = []
    for waiter in waiting {
      waiter.resume(returning: outcome)
    }
  }
}
