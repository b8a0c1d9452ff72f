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
/// progress read from it last, whether it is paused, its timing, and the callers of `run` waiting
/// for it. Each event is a method that updates
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
    /// Whether the run is paused: the flag its reporters read at checkpoints, kept in one place.
    ///
    /// ``RunStateMachine/pause(at:)`` sets it, ``RunStateMachine/resume(at:)`` and the end of the
    /// operation clear it; a cancel or a reset leaves it, and wakes the tasks waiting at
    /// checkpoints through the cancelled flag instead.
    var isPaused: Bool { root.signals.isPaused }
    /// The version of the run's status text that ``progress`` shows.
    var messageVersion: UInt64 = 0
    /// How long the run has been active, and how fast it goes.
    var timing: RunTiming

    /// Cancels the operation's task and tells its reporters, waking those waiting while paused.
    func cancel() {
      root.signals.cancel()
      task.cancel()
    }

    /// The public state of the run: running or paused, with its progress.
    var state: RunState {
      isPaused ? .paused(progress) : .running(progress)
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
    /// The run's timing after its last report, when the operation ended it: what the estimate
    /// of that last report comes from.
    var timing: RunTiming? = nil
    /// What the run's reporters mirrored, to let go of once the states are published: cancelled
    /// when the run was cancelled or failed, so that the work behind them stops too.
    let sources: ProgressSources
    /// Whether the sources are cancelled, rather than only let go of.
    var cancelsSources: Bool {
      outcome.phase != .finished
    }
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
    /// A run is active: running or paused.
    case active(ActiveRun)
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
    case .active(let run): run.state
    case .finished: .finished
    case .failed(let error): .failed(error)
    case .cancelled: .cancelled
    }
  }

  /// The active run, or `nil` when nothing runs.
  var activeRun: ActiveRun? {
    if case .active(let run) = current { run } else { nil }
  }

  /// Starts a run unless one is active (running or paused).
  ///
  /// - Parameters:
  ///   - waiter: A caller of `run` to answer when the run ends.
  ///   - now: The time on the runner's clock, when the run's active time begins.
  ///   - launch: Makes the run's root reporter and starts its task, given the run's identity.
  /// - Returns: The new run's identity, or `nil` when a run is active and nothing changed.
  mutating func start(
    waiter: CheckedContinuation<RunState, Never>? = nil,
    at now: Duration = .zero,
    launch: (RunID) -> (task: Task<Void, Never>, root: ProgressNode)
  ) -> RunID? {
    if case .active = current { return nil }
    lastRunNumber += 1
    let id = RunID(rawValue: lastRunNumber)
    let (task, root) = launch(id)
    current = .active(
      ActiveRun(
        id: id, task: task, root: root, progress: .zero, waiters: waiter.map { [$0] } ?? [],
        timing: RunTiming(startedAt: now)))
    return id
  }

  /// Reads the active run's reporters and status text; returns the run's state if it changed.
  ///
  /// - Parameters:
  ///   - final: Whether the operation ended, so that its reporters are read even if a writer
  ///     still races the reading (a consistent reading is skipped for a frame otherwise).
  ///   - now: The time on the runner's clock, for the run's rate.
  /// - Returns: The state the runner now shows, running or paused with the new progress, or
  ///   `nil` when it did not change.
  mutating func drainReports(final: Bool = false, at now: Duration = .zero) -> RunState? {
    guard case .active(var run) = current else { return nil }
    run.root.signals.markDrained()
    let counts = final ? run.root.readAnyway() : run.root.read()
    let text = run.root.signals.messages.read(ifChangedSince: run.messageVersion)
    guard counts != nil || text != nil else { return nil }
    if let text {
      run.messageVersion = text.version
    }
    let progress = (counts ?? run.progress)
      .withMessage(text.map(\.text) ?? run.progress.message)
      .keepingFraction(of: run.progress)
    run.timing.record(progress, at: now)
    guard progress != run.progress else {
      current = .active(run)
      return nil
    }
    run.progress = progress
    current = .active(run)
    return run.state
  }

  /// Pauses the running run.
  ///
  /// - Parameter now: The time on the runner's clock, from which the run's rate stops counting.
  /// - Returns: The paused state, or `nil` when no run is running (none, or paused already).
  mutating func pause(at now: Duration = .zero) -> RunState? {
    guard case .active(var run) = current, !run.isPaused else { return nil }
    run.timing.pause(at: now)
    run.root.signals.setPaused(true)
    current = .active(run)
    return run.state
  }

  /// Resumes the paused run.
  ///
  /// - Parameter now: The time on the runner's clock, from which the run's rate counts again.
  /// - Returns: The running state, or `nil` when no run is paused.
  mutating func resume(at now: Duration = .zero) -> RunState? {
    guard case .active(var run) = current, run.isPaused else { return nil }
    run.timing.resume(at: now)
    run.root.signals.setPaused(false)
    current = .active(run)
    return run.state
  }

  /// The active run's speed and time remaining at `now`, or `nil` when no run is active.
  func estimate(at now: Duration) -> RunTiming.Estimate? {
    activeRun.map { $0.timing.estimate(for: $0.progress, at: now) }
  }

  /// The operation of `run` returned (`.success`) or threw.
  ///
  /// The last report the operation made before it ended is drained first, so that observers see
  /// how far it got before they see how it ended.
  mutating func operationEnded(
    _ run: RunID, with result: Result<Void, any Error>, at now: Duration = .zero
  ) -> RunEnd? {
    guard let active = activeRun, active.id == run else { return nil }
    var states: [RunState] = []
    // The sources' last values first, then the reporters' last reports. A source cancelled at
    // the last moment cancels the run, as it would a frame earlier.
    let sourceCancelled = active.root.signals.sources.finalPoll()
    if let state = drainReports(final: true, at: now) {
      states.append(state)
    }
    let timing = activeRun?.timing
    // Tasks of the run still waiting at a checkpoint go on, to find the run over.
    active.root.signals.setPaused(false)
    switch result {
    case _ where sourceCancelled:
      current = .cancelled
    case .success:
      current = .finished
    case .failure(let error):
      current = error is CancellationError ? .cancelled : .failed(error)
    }
    states.append(state)
    return RunEnd(
      cancelling: nil, states: states, waiters: active.waiters, outcome: state, timing: timing,
      sources: active.root.signals.sources)
  }

  /// Cancels the active run, or only `run` when given and still active.
  mutating func cancel(ifActive run: RunID? = nil) -> RunEnd? {
    guard let active = activeRun, run == nil || run == active.id else { return nil }
    current = .cancelled
    return RunEnd(
      cancelling: active, states: [.cancelled], waiters: active.waiters, outcome: .cancelled,
      sources: active.root.signals.sources)
  }

  /// Returns to idle, cancelling the active run first.
  mutating func reset() -> ResetAction? {
    switch current {
    case .idle:
      return nil
    case .active(let active):
      current = .idle
      return .endRunAndPublishIdle(
        RunEnd(
          cancelling: active, states: [.cancelled, .idle], waiters: active.waiters,
          outcome: .cancelled, sources: active.root.signals.sources))
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
    return RunProgress(fractionCompleted: old, completed: completed, of: total, message: message)
  }
}
