extension RunState: CustomStringConvertible {
  /// A short form for logs and test failures, such as `running(42%)` or `failed(timeout)`.
  public var description: String {
    switch self {
    case .idle: "idle"
    case .running(let progress): "running(\(progress))"
    case .paused(let progress): "paused(\(progress))"
    case .finished: "finished"
    case .failed(let error): "failed(\(error))"
    case .cancelled: "cancelled"
    }
  }
}

extension RunState: CustomDebugStringConvertible {
  /// The state with its payload in full: every digit of a fraction, the error as `String(reflecting:)`.
  public var debugDescription: String {
    switch self {
    case .idle, .finished, .cancelled: description
    case .running(let progress): "running(\(progress.debugDescription))"
    case .paused(let progress): "paused(\(progress.debugDescription))"
    case .failed(let error): "failed(\(String(reflecting: error)))"
    }
  }
}
