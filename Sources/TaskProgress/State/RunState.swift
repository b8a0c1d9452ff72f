/// The state of a ``TaskRunner``: idle, running with a progress, or how the last run ended.
///
/// ```
/// idle ──start──▶ running(progress) ──returns──▶ finished
///                   │        ▲       ──throws───▶ failed(error)
///             pause │        │ resume──cancel───▶ cancelled
///                   ▼        │
///                 paused(progress)   ends as running does
/// ```
///
/// Reports change the progress of the running and paused states. A new run starts from any
/// state but running and paused.
///
/// States compare equal when their phases and payloads are equal; see
/// ``RunState/==(_:_:)`` for how two errors compare.
public enum RunState: Sendable {
  /// Nothing has run yet, or the runner was reset.
  case idle
  /// An operation is running; the payload is the latest progress it reported.
  case running(RunProgress)
  /// An operation is running but was asked to wait at its next checkpoint; the payload is the
  /// latest progress it reported, which goes on changing while work not yet at a checkpoint
  /// reports.
  case paused(RunProgress)
  /// The last operation returned normally.
  case finished
  /// The last operation threw this error.
  case failed(any Error)
  /// The last run was cancelled.
  case cancelled

  /// The phase of this state, without its payload.
  public var phase: RunPhase {
    switch self {
    case .idle: .idle
    case .running: .running
    case .paused: .paused
    case .finished: .finished
    case .failed: .failed
    case .cancelled: .cancelled
    }
  }

  /// The fraction a progress view shows for this state.
  ///
  /// `0` when idle, failed or cancelled, `1` when finished, and the reported fraction while
  /// running or paused: `nil` when the work is indeterminate.
  public var fractionCompleted: Double? {
    switch self {
    case .idle, .failed, .cancelled: 0
    case .running(let progress), .paused(let progress): progress.fractionCompleted
    case .finished: 1
    }
  }

  /// The progress reported by a running or paused operation, or `nil` in every other phase.
  public var progress: RunProgress? {
    switch self {
    case .running(let progress), .paused(let progress): progress
    case .idle, .finished, .failed, .cancelled: nil
    }
  }

  /// The error a failed operation threw, or `nil` in every other phase.
  public var error: (any Error)? {
    if case .failed(let error) = self { error } else { nil }
  }
}
