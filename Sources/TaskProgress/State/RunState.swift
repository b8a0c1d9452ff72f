/// The state of a ``TaskRunner``: idle, running with a progress, or how the last run ended.
///
/// ```
/// idle ──start──▶ running(progress) ──returns──▶ finished
///                  │  ▲                ──throws──▶  failed(error)
///                  │  └ report         ──cancel──▶  cancelled
///                  └──────────────────────────────────┘ start again from any of them
/// ```
///
/// States compare equal when their phases and payloads are equal; see
/// ``RunState/==(_:_:)`` for how two errors compare.
public enum RunState: Sendable {
  /// Nothing has run yet, or the runner was reset.
  case idle
  /// An operation is running; the payload is the latest progress it reported.
  case running(RunProgress)
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
    case .finished: .finished
    case .failed: .failed
    case .cancelled: .cancelled
    }
  }

  /// The fraction a progress view shows for this state.
  ///
  /// `0` when idle, failed or cancelled, `1` when finished, and the reported fraction while
  /// running: `nil` when the running work is indeterminate.
  public var fractionCompleted: Double? {
    switch self {
    case .idle, .failed, .cancelled: 0
    case .running(let progress): progress.fractionCompleted
    case .finished: 1
    }
  }

  /// The progress reported by a running operation, or `nil` in every other phase.
  public var progress: RunProgress? {
    if case .running(let progress) = self { progress } else { nil }
  }

  /// The error a failed operation threw, or `nil` in every other phase.
  public var error: (any Error)? {
    if case .failed(let error) = self { error } else { nil }
  }
}
