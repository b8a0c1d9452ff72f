/// The identity of one run of a ``TaskRunner``.
///
/// A run's task carries its identity into every event it causes, so that a report, result or
/// error from a run that was cancelled or replaced is recognised as stale and dropped.
struct RunID: Hashable, Sendable, CustomStringConvertible {
  let rawValue: UInt64

  var description: String { "run \(rawValue)" }
}

/// The transition rules of ``TaskRunner``, as a plain value that tests drive without a main actor.
///
/// Every event goes through ``handle(_:)``, which updates the state and returns the one action
/// the runner must carry out: launch a task, cancel one, publish a state. The runner owns no
/// rule of its own; every (phase, event) pair has its outcome written once, in `handle`.
struct RunStateMachine: Sendable {
  /// Something that happened to the runner.
  enum Event: Sendable {
    /// `start` was called.
    case start
    /// The reporter of a run delivered this progress, drained from its mailbox.
    case report(RunProgress, RunID)
    /// The operation of a run returned.
    case operationReturned(RunID)
    /// The operation of a run threw this error.
    case operationThrew(any Error, RunID)
    /// `cancel()` was called.
    case cancel
    /// `reset()` was called.
    case reset
  }

  /// What the runner must carry out after an event.
  enum Action: Hashable, Sendable {
    /// Nothing changed.
    case none
    /// `start` was refused because a run is active; nothing changed.
    case rejectStart
    /// A new run began and the state is `.running(.zero)`: launch its operation, publish the state.
    case launch(RunID)
    /// The active run reported a new progress: publish the state.
    case publishProgress
    /// The operation ended its run (finished, failed or cancelled): publish the terminal state.
    case endRun(RunID)
    /// The active run was cancelled: cancel its task, publish `.cancelled`.
    case cancelRun(RunID)
    /// The active run was cancelled and the runner reset: cancel its task, publish `.cancelled`,
    /// then `.idle`.
    case cancelRunAndReset(RunID)
    /// A finished, failed or cancelled runner went back to idle: publish `.idle`.
    case publishReset
  }

  private enum State: Sendable {
    /// Nothing has run yet, or the runner was reset.
    case idle
    /// The run with this identity is active and last reported this progress.
    case running(RunID, RunProgress)
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
    case .running(_, let progress): .running(progress)
    case .finished: .finished
    case .failed(let error): .failed(error)
    case .cancelled: .cancelled
    }
  }

  /// The identity of the active run, or `nil` when nothing runs.
  var activeRun: RunID? {
    if case .running(let run, _) = current { run } else { nil }
  }

  /// Applies an event and returns the action that carries it out.
  mutating func handle(_ event: Event) -> Action {
    switch (current, event) {
    case (.running, .start):
      return .rejectStart
    case (.idle, .start), (.finished, .start), (.failed, .start), (.cancelled, .start):
      lastRunNumber += 1
      let run = RunID(rawValue: lastRunNumber)
      current = .running(run, .zero)
      return .launch(run)

    case (.running(let active, let progress), .report(let reported, let run)):
      guard run == active, reported != progress else { return .none }
      current = .running(active, reported)
      return .publishProgress
    case (.idle, .report), (.finished, .report), (.failed, .report), (.cancelled, .report):
      return .none

    case (.running(let active, _), .operationReturned(let run)):
      guard run == active else { return .none }
      current = .finished
      return .endRun(run)
    case (.idle, .operationReturned), (.finished, .operationReturned),
      (.failed, .operationReturned), (.cancelled, .operationReturned):
      return .none

    case (.running(let active, _), .operationThrew(let error, let run)):
      guard run == active else { return .none }
      current = error is CancellationError ? .cancelled : .failed(error)
      return .endRun(run)
    case (.idle, .operationThrew), (.finished, .operationThrew), (.failed, .operationThrew),
      (.cancelled, .operationThrew):
      return .none

    case (.running(let active, _), .cancel):
      current = .cancelled
      return .cancelRun(active)
    case (.idle, .cancel), (.finished, .cancel), (.failed, .cancel), (.cancelled, .cancel):
      return .none

    case (.running(let active, _), .reset):
      current = .idle
      return .cancelRunAndReset(active)
    case (.idle, .reset):
      return .none
    case (.finished, .reset), (.failed, .reset), (.cancelled, .reset):
      current = .idle
      return .publishReset
    }
  }
}
