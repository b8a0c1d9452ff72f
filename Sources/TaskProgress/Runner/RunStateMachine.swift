import Synchronization

/// The identity of one run of a ``TaskRunner``.
///
/// A run's task carries its identity into every event it causes, so that a result or error from
/// a run that was cancelled or replaced is recognised as stale and dropped.
struct RunID: Hashable, Sendable, CustomStringConvertible {
  let rawValue: UInt64

  var description: String { "run \(rawValue)" }
}

/// The transition rules of ``TaskRunner``, as a plain value that tests drive without a main actor.
///
/// The machine owns everything a run has: its identity, its task, the root of its reporters, the
/// progress read from it last, and the callers of `run` waiting for it. Each event is a method that updates
/// the state and returns an action of its own, or `nil` when the event changes nothing; the
/// runner only carries the action out (cancel a task, publish states, answer waiters).
struct RunStateMachine: Sendable {
  /// A run in progress.
  struct ActiveRun: Sendable {
    let id: RunID
    /// The task that performs the operation.
    let task: Task<Void, Never>
    /// The run's own reporter, the root of its children.
    let root: ProgressNode
    /// The progress read last, which the state shows.
    var progress: RunProgress
    /// The callers of `run` waiting for this run to end.
    var waiters: [CheckedContinuation<RunState, Never>]

    /// Cancels the operation's task and tells its reporters.
    func cancel() {
      root.signals.cancelled.store(true, ordering: .relaxed)
      task.cancel()
    }
  }

  /// What the runner carries out when a run ends.
  struct RunEnd: Sendable {
    /// The run, when the runner ended it and must cancel its task.
    let cancelling: ActiveRun?
    /// The states to publish, in order.
    let states: [RunState]
    /// The callers of `run` waiting for the run, to answer with ``outcome``.
    let waiters: [CheckedContinuation<RunState, Never>]
    /// How the run ended: `.finished`, `.failed` or `.cancelled`.
    let outcome: RunState
  }

  /// What the runner carries out after `reset()`.
  enum ResetAction: Sendable {
    /// A finished, failed or cancelled runner went back to idle: publish `.idle`.
    case publishIdle
    /// The active run was cancelled and the runner went back to idle: carry out the end, whose
    /// states are `.cancelled` then `.idle`.
    case endRunAndPublishIdle(RunEnd)
  }

  private enum State: Sendable {
    /// Nothing has run yet, or the runner was reset.
    case idle
    /// A run is active.
    case running(ActiveRun)
    /// The last run's operation returned.
    case finished
    /// The last run's operation threw this error.
    case failed(any Error)
    /// The last run was cancelled, by the runner or by its operation throwing `CancellationError`.
    case cancelled
  }

  private var current: State = .idle
  private var lastRunNumber: UInt64 = 0

  /// The public form of the current state.
  var state: RunState {
    switch current {
    case .idle: .idle
    case .running(let run): .running(run.progress)
    case .finished: .finished
    case .failed(let error): .failed(error)
    case .cancelled: .cancelled
    }
  }

  /// The active run, or `nil` when nothing runs.
  var activeRun: ActiveRun? {
    if case .running(let run) = current { run } else { nil }
  }

  /// Starts a run unless one is active.
  ///
  /// - Parameters:
  ///   - waiter: A caller of `run` to answer when the run ends.
  ///   - launch: Makes the run's root reporter and starts its task, given the run's identity.
  /// - Returns: The new run's identity, or `nil` when a run is active and nothing changed.
  mutating func start(
    waiter: CheckedContinuation<RunState, Never>? = nil,
    launch: (RunID) -> (task: Task<Void, Never>, root: ProgressNode)
  ) -> RunID? {
    if case .running = current { return nil }
    lastRunNumber += 1
    let id = RunID(rawValue: lastRunNumber)
    let (task, root) = launch(id)
    current = .running(
      ActiveRun(id: id, task: task, root: root, progress: .zero, waiters: waiter.map { [$0] } ?? [])
    )
    return id
  }

  /// Reads the active run's reporters; returns their progress if that is new.
  ///
  /// - Parameter final: Whether the operation ended, so that its reporters are read even if a
  ///   writer still races the reading (a consistent reading is skipped for a frame otherwise).
  /// - Returns: The progress the state now shows, or `nil` when it did not change.
  mutating func drainReports(final: Bool = false) -> RunProgress? {
    guard case .running(var run) = current else { return nil }
    run.root.signals.markDrained()
    guard var progress = final ? run.root.readAnyway() : run.root.read() else { return nil }
    progress = progress.keepingFraction(of: run.progress)
    guard progress != run.progress else { return nil }
    run.progress = progress
    current = .running(run)
    return progress
  }

  /// The operation of `run` returned (`.success`) or threw.
  ///
  /// The last report the operation made before it ended is drained first, so that observers see
  /// how far it got before they see how it ended.
  mutating func operationEnded(_ run: RunID, with result: Result<Void, any Error>) -> RunEnd? {
    guard let active = activeRun, active.id == run else { return nil }
    var states: [RunState] = []
    if let progress = drainReports(final: true) {
      states.append(.running(progress))
    }
    switch result {
    case .success:
      current = .finished
    case .failure(let error):
      current = error is CancellationError ? .cancelled : .failed(error)
    }
    states.append(state)
    return RunEnd(cancelling: nil, states: states, waiters: active.waiters, outcome: state)
  }

  /// Cancels the active run, or only `run` when given and still active.
  mutating func cancel(ifActive run: RunID? = nil) -> RunEnd? {
    guard let active = activeRun, run == nil || run == active.id else { return nil }
    current = .cancelled
    return RunEnd(
      cancelling: active, states: [.cancelled], waiters: active.waiters, outcome: .cancelled)
  }

  /// Returns to idle, cancelling the active run first.
  mutating func reset() -> ResetAction? {
    switch current {
    case .idle:
      return nil
    case .running(let active):
      current = .idle
      return .endRunAndPublishIdle(
        RunEnd(
          cancelling: active, states: [.cancelled, .idle], waiters: active.waiters,
          outcome: .cancelled))
    case .finished, .failed, .cancelled:
      current = .idle
      return .publishIdle
    }
  }
}

extension RunProgress {
  /// This progress, with `previous`'s fraction where this one is below it by rounding only.
  ///
  /// A run's fraction sums its children's shares in floating point, and a child that finishes
  /// moves its share from the sum into the integer count: the same value, rounded another way,
  /// can come out one unit in the last place lower. While reports only add, the fraction must
  /// not go back, so a drop of less than a billionth with the same total keeps the old fraction.
  func keepingFraction(of previous: RunProgress) -> RunProgress {
    guard let fraction = fractionCompleted, let old = previous.fractionCompleted,
      let completed = completedCount, let total = totalCount, total == previous.totalCount,
      completed >= previous.completedCount ?? 0, fraction < old, old - fraction < 1e-9
    else { return self }
    return RunProgress(fractionCompleted: old, completed: completed, of: total)
  }
}
