extension TaskRunner {
  /// Starts performing `perform` on each item in order, off the main actor, unless a run is
  /// active; reports `i / count` after each item.
  ///
  /// Cancellation is checked before each item. An empty collection finishes at once (the
  /// hand-written `for index in 1...count` loop traps on it). A loop whose items never suspend
  /// still yields to other tasks every few milliseconds, so you never call `Task.yield()` yourself.
  ///
  /// ```swift
  /// runner.start(over: objects) { object in
  ///   try await object.someTask()
  /// }
  /// ```
  ///
  /// - Returns: `true` if the run started, `false` if a run was already active.
  @inlinable
  @discardableResult
  public func start<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    perform: @escaping @concurrent @Sendable (C.Element) async throws -> Void
  ) -> Bool where C.Element: Sendable {
    start(priority: priority) { reporter in
      try await TaskRunner.perform(perform, over: items, reporter: reporter)
    }
  }

  /// Performs `perform` on each item like ``start(priority:over:perform:)`` and waits for the
  /// run to end.
  ///
  /// - Returns: The terminal state of the run this call started, or, if a run was already
  ///   active, the current state at once.
  @inlinable
  @discardableResult
  public func run<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    perform: @escaping @concurrent @Sendable (C.Element) async throws -> Void
  ) async -> RunState where C.Element: Sendable {
    await run(priority: priority) { reporter in
      try await TaskRunner.perform(perform, over: items, reporter: reporter)
    }
  }

  /// The loop behind `start(over:)`: inlinable, so that it is specialised for the caller's
  /// collection, and checking the run's cancellation flag (one relaxed load) between items.
  @inlinable
  nonisolated static func perform<C: Collection>(
    _ perform: @concurrent @Sendable (C.Element) async throws -> Void,
    over items: C,
    reporter: Reporter
  ) async throws {
    let total = items.count
    var completed = 0
    var pacer = CooperativePacer()
    for item in items {
      try reporter.checkCancellation()
      try await perform(item)
      completed += 1
      reporter.report(completed: completed, of: total)
      if pacer.countItem() {
        await pacer.yieldIfDue()
      }
    }
  }
}
