import ExampleSupport
import TaskProgress

/// The queue: the files, run `--jobs` at a time by a ``TaskRunnerGroup`` weighted by size.
///
/// The group does the queueing: every file joins it when a run starts, so that the total counts
/// the files still waiting; each ended download makes room for the next at once; and
/// ``cancelAll()`` cancels the downloads under way while the waiting ones never start.
@MainActor
final class DownloadQueue {
  /// How a run of the queue ended: how many downloads finished, failed, were cancelled or never
  /// started.
  struct Outcome: Equatable {
    var finished = 0
    var failed = 0
    var cancelled = 0
    var notStarted = 0
    /// Whether the run was cancelled: by ``DownloadQueue/cancelAll()`` or the group's.
    var wasCancelled = false

    /// `0` when every download finished, `1` when one failed, `130` when the run was cancelled.
    var status: ExitStatus {
      if wasCancelled || cancelled > 0 { return .interrupted }
      return failed > 0 ? .failed : .finished
    }

    /// `8 finished`, `6 finished, 1 failed, 4 cancelled (3 never started)`: the downloads never
    /// started are counted as cancelled, as the group's counts on the screen above count them.
    var description: String {
      let allCancelled = cancelled + notStarted
      let never = notStarted > 0 ? " (\(notStarted) never started)" : ""
      let parts = [
        (finished, "finished"), (failed, "failed"), (allCancelled, "cancelled" + never),
      ]
      return parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }
  }

  let options: Options
  let files: [DownloadFile]
  /// The group of the downloads, the one the renderers draw.
  let group = TaskRunnerGroup(weighting: .units, unit: .bytes)
  /// The run under way or the last one.
  private var queue: TaskRunnerGroup.Queue<DownloadFile>?
  /// The end of the run under way or of the last one: what ``waitForEnd()`` awaits.
  private var ending: Task<Outcome, Never>?
  /// Whether a run of the queue is under way, until its end is told.
  private(set) var isActive = false

  /// Called when a run of the queue has ended and the group has settled.
  var onEnd: (@MainActor (Outcome) -> Void)?

  init(options: Options) {
    self.options = options
    files = DownloadFile.queue(count: options.count, seed: options.seed, failAt: options.failAt)
  }

  /// The bytes of every file together.
  var totalSize: Int {
    files.reduce(0) { $0 + $1.size }
  }

  /// Starts a run of the queue, unless one is under way: the last run's downloads leave the
  /// group, and every file joins it again.
  ///
  /// - Returns: Whether a run started.
  @discardableResult
  func start() -> Bool {
    guard !isActive else { return false }
    group.removeEnded()
    let speed = options.speed
    guard
      group.start(
        files, maxConcurrency: options.jobs, label: \.name, weight: { Double($0.size) },
        perform: { file, reporter in try await file.transfer(speed: speed, reporter: reporter) }),
      let queue = group.queue(of: DownloadFile.self)
    else { return false }
    self.queue = queue
    isActive = true
    // The queue ends once the group has settled and its renderers drew that, so that what the
    // end prints comes below.
    ending = Task {
      let outcome = Outcome(await queue.wait(), of: queue)
      isActive = false
      onEnd?(outcome)
      return outcome
    }
    return true
  }

  /// Cancels the run of the queue: the downloads under way are cancelled at once, and the
  /// waiting ones never start.
  func cancelAll() {
    queue?.cancel()
  }

  /// Waits for the run under way, if any, to end, and returns how it ended; with no run under
  /// way, how the last one ended.
  func waitForEnd() async -> Outcome {
    await ending?.value ?? Outcome()
  }

  /// One line for standard error naming the first download that failed, if one did.
  ///
  /// ```
  /// download 3 of 8 (dataset-3.csv.gz) failed after 17.5 MB / 47.4 MB: the connection was ...
  /// ```
  func failureMessage() -> String? {
    guard let failures = queue?.failures, let first = failures.first else { return nil }
    let file = first.item
    var place = ""
    if case .connectionReset(let received) = first.error as? DownloadError {
      place = " after \(ProgressUnit.bytes.format(completed: received, of: file.size))"
    }
    let others = failures.count > 1 ? " (and \(failures.count - 1) more)" : ""
    let reason = String(describing: first.error).map { $0.isNewline ? " " : $0 }
    return "download \(file.number) of \(files.count) (\(file.name)) failed\(place)\(others): "
      + String(reason)
  }
}

extension DownloadQueue.Outcome {
  /// How the downloads of `queue` ended, `states` being their final states.
  @MainActor
  init(_ states: [RunState], of queue: TaskRunnerGroup.Queue<DownloadFile>) {
    notStarted = states.count - queue.startedCount
    for state in states {
      switch state.phase {
      case .finished: finished += 1
      case .failed: failed += 1
      default: cancelled += 1
      }
    }
    cancelled -= notStarted
    wasCancelled = queue.isCancelled
  }
}
