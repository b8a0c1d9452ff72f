/// How a run that ``TaskRunner/performCatching(priority:_:)`` started ended, or why it never
/// started: one case for each catch arm of ``TaskRunner/perform(priority:_:)``.
///
/// ```swift
/// switch await runner.performCatching({ reporter in try await countLines(reporter) }) {
/// case .finished(let lines): print("\(lines) lines")
/// case .failed(let error): print("failed: \(error)")
/// case .cancelled: print("cancelled")
/// case .alreadyActive: print("an import is under way")
/// }
/// ```
public enum RunOutcome<Value> {
  /// The operation returned this value and the run finished.
  case finished(Value)
  /// The operation threw this error, which is not `CancellationError`, and the run failed.
  case failed(any Error)
  /// The run was cancelled, or the operation threw `CancellationError`.
  case cancelled
  /// Another run was active, in this phase (running or paused): nothing started.
  case alreadyActive(RunPhase)

  /// The value of a finished run; `nil` for every other outcome.
  public var value: Value? {
    guard case .finished(let value) = self else { return nil }
    return value
  }

  /// The value of a finished run, or the error ``TaskRunner/perform(priority:_:)`` throws for
  /// the others, as `Result.get()` does.
  ///
  /// - Throws: The operation's error for `.failed`, `CancellationError` for `.cancelled`, and
  ///   ``TaskRunner/AlreadyActiveError`` for `.alreadyActive`.
  public func get() throws -> Value {
    switch self {
    case .finished(let value): return value
    case .failed(let error): throw error
    case .cancelled: throw CancellationError()
    case .alreadyActive(let phase): throw TaskRunner.AlreadyActiveError(phase: phase)
    }
  }
}

extension RunOutcome: Sendable where Value: Sendable {}
