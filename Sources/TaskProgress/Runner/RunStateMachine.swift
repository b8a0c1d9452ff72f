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
/// progress read from it last, its timing (whether it is paused among it), and the callers of
/// `run` waiting for it. Each event only rewrites the state and returns an action of its own, or
/// `nil` when it changes nothing. The machine starts no task, reads no reporter and resumes no
/// continuation: the runner reads the run's reporters and passes in what it read, and carries
/// out the actions (launch the task, mirror the pause to the reporters, cancel, publish states,
/// answer waiters, let go of sources).
struct RunStateMachine: Sendable {
  /// A run in progress.
  struct ActiveRun: Sendable {
    let id: RunID
    /// The run's own reporter, the root of its children.
    let root: ProgressNode
    /// The task that performs the operation, from ``RunStateMachine/launched(_:for:)`` on.
    var task: Task<Void, Never>?
    /// The progress read last, which the state shows.
    var progress: RunProgress = .zero
    /// The callers of `run` waiting for this run to end.
    var waiters: [CheckedContinuation<RunState, Never>]
    /// Called with the run's outcome once observers heard of its end: how a queue learns
    /// that its item ended, without an observer of its own.
    var onEnd: (@MainActor (RunState) -> Void)? = nil
    /// The version of the run's status text that ``progress`` shows.
    var messageVersion: UInt64 = 0
    /// How long the run has been active, whether it is paused, and how fast it goes.
    var timing: RunTiming

    /// Changes this run in place and returns what `body` returns: how the machine changes its
    /// active run through the optional that holds it, without a copy.
    mutating func modify<Result>(_ body: (inout ActiveRun) -> Result) -> Result {
      body(&self)
    }

    /// The run's speed and time remaining at `now`.
    func estimate(at now: Duration) -> ActiveRate.Estimate {
      timing.estimate(for: progress, at: now)
    }

    /// The public state of the run: running or paused, with its progress.
    var state: RunState {
      timing.isPaused ? .paused(progress) : .running(progress)
    }
  }

  /// What a frame read of the active run's reporters: the inputs of
  /// ``RunStateMachine/reportsRead(_:at:)``.
  struct ReportsRead: Sendable {
    /// The root's progress, or `nil` when writers kept it from a consistent reading.
    var progress: RunProgress?
    /// The status text, when it changed since the version the state shows.
    var message: (version: UInt64, text: String?)?
  }

  /// What the runner carries out after a pause or a resume: the change for the run's reporters,
  /// then the state to publish.
  struct PauseAction: Sendable {
    /// The state to publish.
    let state: RunState
    /// What the run's reporters are told, before the state is published.
    let change: PauseChange
  }

  /// A new value for the reporters' mirror of whether their run is paused
  /// (``RunSignals/isPaused``), which the machine answers with the run's ``RunTiming/isPaused``.
  ///
  /// The runner writes the mirror from these only: at a pause, at a resume, and when an
  /// operation ends its run while paused.
  struct PauseChange: Sendable {
    /// Whether the run's reporters now wait at their checkpoints.
    let isPaused: Bool
    /// The run's reporters, to tell.
    let signals: RunSignals
  }

  /// What the runner carries out when a run ends.
  struct RunEnd: Sendable {
    /// The run that ended.
    let run: ActiveRun
    /// Whether the runner ended it, so that its task and reporters are cancelled, which wakes
    /// the tasks waiting while paused; otherwise its operation ended.
    let cancelsTask: Bool
    /// The states to publish, in order.
    let states: EndStates
    /// How the run ended: `.finished`, `.failed` or `.cancelled`.
    let outcome: RunState
    /// The run's timing after its last report, when the operation ended it: what the estimate
    /// of that last report comes from.
    var timing: RunTiming? = nil
    /// The resume of the run's reporters, when its operation ended it while paused: the tasks
    /// of the run still waiting at a checkpoint go on, to find it over.
    var release: PauseChange? = nil

    /// Whether the sources the run's reporters mirror are cancelled once the states are
    /// published, so that the work behind them stops too; otherwise they are only let go of.
    var cancelsSources: Bool {
      outcome.phase != .finished
    }
  }

  /// The states a run's end publishes, in order: its last report, if any, then its outcome, or
  /// `.cancelled` then `.idle`.
  ///
  /// Two fields, not an array: a run ends once, and an array of its one or two states was an
  /// allocation, and a second one as it grew, for every run.
  struct EndStates: Sendable {
    /// The state published first, when there are two.
    let first: RunState?
    /// The state published last.
    let last: RunState

    /// `first`, when there is one, then `last`.
    init(_ first: RunState?, then last: RunState) {
      self.first = first
      self.last = last
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
    /// A run is active, running or paused: the one in `active`.
    case active
    /// The last run's operation returned.
    case finished
    /// The last run's operation threw this error.
    case failed(any Error)
    /// The last run was cancelled, by the runner or by its operation throwing `CancellationError`.
    case cancelled
  }

  private var current: State = .idle
  /// The active run while `current` is `.active`, otherwise `nil`.
  ///
  /// Beside the state, not in it: a frame changes the run in place through this optional,
  /// where a run kept in the enum would be copied out and back, retaining and releasing all it
  /// holds.
  private var active: ActiveRun?
  private var lastRunNumber: UInt64 = 0
  /// Where the last run that ended got to, until the runner starts again: what the states that
  /// end it carry beside them, `.cancelled` then `.idle` of a reset included.
  private(set) var endedProgress: RunProgress?

  /// The active run's progress, or the last progress of the run that ended; `nil` while idle.
  var lastProgress: RunProgress? {
    switch current {
    case .active: active?.progress
    case .idle: nil
    case .finished, .failed, .cancelled: endedProgress
    }
  }

  /// The public form of the current state.
  var state: RunState {
    switch current {
    case .idle: .idle
    case .active: active?.state ?? .idle
    case .finished: .finished
    case .failed(let error): .failed(error)
    case .cancelled: .cancelled
    }
  }

  /// The active run, or `nil` when nothing runs.
  ///
  /// A copy of the whole run, which retains all it holds: the frames use ``hasActiveRun`` and
  /// ``activeReporters`` instead.
  var activeRun: ActiveRun? {
    active
  }

  /// Whether a run is active, running or paused.
  var hasActiveRun: Bool {
    active != nil
  }

  /// What a frame reads of the active run: its identifier, its root reporter's node and the
  /// version of the status text the run shows; `nil` when nothing runs.
  var activeReporters: (id: RunID, root: ProgressNode, messageVersion: UInt64)? {
    guard let id = active?.id, let root = active?.root, let version = active?.messageVersion
    else { return nil }
    return (id, root, version)
  }

  /// Starts a run unless one is active (running or paused).
  ///
  /// The runner then launches the run's task and hands it over with ``launched(_:for:)``.
  ///
  /// - Parameters:
  ///   - root: The run's root reporter.
  ///   - waiter: A caller of `run` to answer when the run ends.
  ///   - onEnd: Called with the run's outcome once observers heard of its end.
  ///   - now: The time on the runner's clock, when the run's active time begins.
  /// - Returns: The new run's identity, or `nil` when a run is active and nothing changed.
  mutating func start(
    root: ProgressNode, waiter: CheckedContinuation<RunState, Never>? = nil,
    onEnd: (@MainActor (RunState) -> Void)? = nil, at now: Duration
  ) -> RunID? {
    if case .active = current { return nil }
    lastRunNumber += 1
    endedProgress = nil
    let id = RunID(rawValue: lastRunNumber)
    current = .active
    active = ActiveRun(
      id: id, root: root, waiters: waiter.map { [$0] } ?? [], onEnd: onEnd,
      timing: RunTiming(startedAt: now))
    return id
  }

  /// Keeps the task that performs `run`'s operation, if the run is still active.
  mutating func launched(_ task: Task<Void, Never>, for run: RunID) {
    guard active?.id == run else { return }
    active?.task = task
  }

  /// Takes in what a frame read of the active run's reporters and status text.
  ///
  /// - Returns: The state the runner now shows, running or paused with the new progress, or
  ///   `nil` when no run is active or it did not change.
  mutating func reportsRead(_ reading: ReportsRead, at now: Duration) -> RunState? {
    guard reading.progress != nil || reading.message != nil else { return nil }
    return active?.modify { run in
      if let message = reading.message {
        run.messageVersion = message.version
      }
      let progress = (reading.progress ?? run.progress)
        .withMessage(reading.message.map(\.text) ?? run.progress.message)
        .keepingFraction(of: run.progress)
      run.timing.record(progress, at: now)
      let changed = progress != run.progress
      run.progress = progress
      return changed ? run.state : nil
    } ?? nil
  }

  /// Pauses the running run.
  ///
  /// - Parameter now: The time on the runner's clock, from which the run's rate stops counting.
  /// - Returns: The paused state, or `nil` when no run is running (none, or paused already).
  mutating func pause(at now: Duration) -> PauseAction? {
    guard active?.timing.isPaused == false else { return nil }
    return active?.modify { run in
      run.timing.pause(at: now)
      return PauseAction(
        state: run.state, change: PauseChange(isPaused: true, signals: run.root.signals))
    }
  }

  /// Resumes the paused run.
  ///
  /// - Parameter now: The time on the runner's clock, from which the run's rate counts again.
  /// - Returns: The running state, or `nil` when no run is paused.
  mutating func resume(at now: Duration) -> PauseAction? {
    guard active?.timing.isPaused == true else { return nil }
    return active?.modify { run in
      run.timing.resume(at: now)
      return PauseAction(
        state: run.state, change: PauseChange(isPaused: false, signals: run.root.signals))
    }
  }

  /// The active run's speed and time remaining at `now`, or `nil` when no run is active.
  func estimate(at now: Duration) -> ActiveRate.Estimate? {
    active?.estimate(at: now)
  }

  /// The operation of `run` returned (`.success`) or threw.
  ///
  /// - Parameters:
  ///   - run: The run whose operation ended.
  ///   - result: What the operation did.
  ///   - lastReading: The run's reporters read once more, after the operation ended, so that
  ///     observers see how far it got before they see how it ended.
  ///   - sourceCancelled: Whether a source the run mirrors was cancelled at the last moment,
  ///     which cancels the run, as it would a frame earlier.
  ///   - now: The time on the runner's clock.
  /// - Returns: The end to carry out, or `nil` when `run` is not the active run.
  mutating func operationEnded(
    _ run: RunID, with result: Result<Void, any Error>, lastReading: ReportsRead,
    sourceCancelled: Bool = false, at now: Duration
  ) -> RunEnd? {
    guard activeReporters?.id == run else { return nil }
    let lastReport = reportsRead(lastReading, at: now)
    guard let ended = active.take() else { return nil }
    endedProgress = ended.progress
    switch result {
    case _ where sourceCancelled:
      current = .cancelled
    case .success:
      current = .finished
    case .failure(let error):
      current = error is CancellationError ? .cancelled : .failed(error)
    }
    // A run ended while paused lets go of the tasks waiting at its checkpoints; one that was
    // running has none.
    let release =
      ended.timing.isPaused ? PauseChange(isPaused: false, signals: ended.root.signals) : nil
    return RunEnd(
      run: ended, cancelsTask: false, states: EndStates(lastReport, then: state), outcome: state,
      timing: ended.timing, release: release)
  }

  /// Cancels the active run, or only `run` when given and still active.
  mutating func cancel(ifActive run: RunID? = nil) -> RunEnd? {
    guard let id = active?.id, run == nil || run == id, let ended = active.take() else {
      return nil
    }
    endedProgress = ended.progress
    current = .cancelled
    return RunEnd(
      run: ended, cancelsTask: true, states: EndStates(nil, then: .cancelled), outcome: .cancelled)
  }

  /// Ends an idle runner as cancelled without a run: a queue's item that will never start.
  ///
  /// - Returns: Whether the state changed: `false` unless the runner was idle.
  mutating func cancelUnstarted() -> Bool {
    guard case .idle = current else { return false }
    current = .cancelled
    return true
  }

  /// Returns to idle, cancelling the active run first.
  mutating func reset() -> ResetAction? {
    switch current {
    case .idle:
      return nil
    case .active:
      current = .idle
      guard let ended = active.take() else { return .publishIdle }  // unreachable: a run is active
      endedProgress = ended.progress
      return .endRunAndPublishIdle(
        RunEnd(
          run: ended, cancelsTask: true, states: EndStates(.cancelled, then: .idle),
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
    return RunProgress(fractionCompleted: old, completed: completed, of: total, message: message)
      .withAmounts(countedAmounts)
  }
}
