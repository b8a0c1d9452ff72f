extension RunState: Equatable {
  /// Whether two states have the same phase and payload.
  ///
  /// Progress values compare by value. Two errors are equal when they have the same type and
  /// either that type is `Equatable` and `==` says so, or it is not and their
  /// `String(reflecting:)` descriptions match. So `.failed(MyError.timeout)` equals itself, and
  /// two `CancellationError()` values are equal.
  public static func == (lhs: RunState, rhs: RunState) -> Bool {
    switch (lhs, rhs) {
    case (.idle, .idle), (.finished, .finished), (.cancelled, .cancelled):
      true
    case (.running(let lhs), .running(let rhs)), (.paused(let lhs), .paused(let rhs)):
      lhs == rhs
    case (.failed(let lhs), .failed(let rhs)):
      errorsAreEqual(lhs, rhs)
    case (.idle, _), (.running, _), (.paused, _), (.finished, _), (.failed, _), (.cancelled, _):
      false
    }
  }
}

/// Compares two errors by type, then by `==` where the type is `Equatable`, else by description.
func errorsAreEqual(_ lhs: any Error, _ rhs: any Error) -> Bool {
  guard type(of: lhs) == type(of: rhs) else { return false }
  if let lhs = lhs as? any Equatable {
    return isEqual(lhs, rhs)
  }
  return String(reflecting: lhs) == String(reflecting: rhs)
}

private func isEqual<Value: Equatable>(_ lhs: Value, _ rhs: Any) -> Bool {
  (rhs as? Value) == lhs
}
