extension TaskRunner {
  /// Runs `operation` like ``run(priority:_:)`` and returns what it returns, on the caller's
  /// actor: the main actor.
  ///
  /// The run shows in the runner's state as any other: `.running` while the operation works,
  /// then `.finished`, `.failed` or `.cancelled`.
  ///
  /// - Parameters:
  ///   - priority: The priority of the operation's task; `nil` for the default.
  ///   - operation: The work. It receives the run's ``Reporter`` and returns the result.
  /// - Returns: What `operation` returned.
  /// - Throws: What `operation` threw, `CancellationError` if the run was cancelled, or
  ///   ``AlreadyActiveError`` if a run was already active, in which case nothing started and
  ///   `operation` is never called.
  public func perform<Value: Sendable>(
    priority: TaskPriority? = nil,
    _ operation: @escaping @concurrent @Sendable (Reporter) async throws -> Value
  ) async throws -> Value {
    let result = ResultSlot<Value>()
    let end = await run(priority: priority) { reporter in
      result.store(try await operation(reporter))
    }
    switch end {
    case .finished:
      // A run finishes only when its operation returned, after storing its value.
      guard let value = result.value else { throw CancellationError() }
      return value
    case .failed(let error):
      throw error
    case .cancelled:
      throw CancellationError()
    case .idle, .running, .paused:
      throw AlreadyActiveError(phase: end.phase)
    }
  }

  /// The error ``TaskRunner/perform(priority:_:)`` throws when the runner is busy with another
  /// run: nothing started.
  public struct AlreadyActiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The phase of the run that was active: running or paused.
    public let phase: RunPhase

    /// Creates the error for a runner whose active run is in `phase`.
    init(phase: RunPhase) {
      self.phase = phase
    }

    /// What went wrong, naming the runner's phase.
    public var description: String {
      "TaskRunner.perform started nothing: another run is active (\(phase)); "
        + "wait for it to end, or cancel it first"
    }
  }
}

/// Where the operation of ``TaskRunner/perform(priority:_:)`` leaves its value for the caller.
private final class ResultSlot<Value: Sendable>: Sendable {
  private let slot = Locked<Value?>(nil)

  func store(_ value: Value) {
    slot.withLock { $0 = value }
  }

  var value: Value? {
    slot.withLock { $0 }
  }
}
