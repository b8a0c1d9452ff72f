/// The phase of a ``TaskRunner``: the kind of its ``RunState`` without the payload.
///
/// Use phases where the progress value or the error does not matter, for example to enable a
/// button while nothing runs, or to assert the shape of a run in a test:
///
/// <!-- snippet: skip (a SwiftUI fragment) -->
/// ```swift
/// Button("Perform a Heavy Task") { runner.start(operation) }
///   .disabled(runner.state.phase.isActive)
/// ```
public enum RunPhase: Hashable, Sendable, CaseIterable {
  /// Nothing has run yet, or the runner was reset.
  case idle
  /// An operation is running.
  case running
  /// An operation is running but was asked to wait, with ``TaskRunner/pause()``, at its next
  /// checkpoint or between items.
  case paused
  /// The last operation returned normally.
  case finished
  /// The last operation threw an error other than `CancellationError`.
  case failed
  /// The last run was cancelled, by ``TaskRunner/cancel()`` or by throwing `CancellationError`.
  case cancelled

  /// Whether a run that reached this phase is over: finished, failed or cancelled.
  public var isTerminal: Bool {
    switch self {
    case .finished, .failed, .cancelled: true
    case .idle, .running, .paused: false
    }
  }

  /// Whether a run is under way in this phase: running or paused.
  ///
  /// ``TaskRunner/start(priority:_:)`` starts nothing while it is.
  public var isActive: Bool {
    self == .running || self == .paused
  }
}

extension RunPhase: CustomStringConvertible {
  /// The name of the phase, as it is spelled in code.
  public var description: String {
    switch self {
    case .idle: "idle"
    case .running: "running"
    case .paused: "paused"
    case .finished: "finished"
    case .failed: "failed"
    case .cancelled: "cancelled"
    }
  }
}
