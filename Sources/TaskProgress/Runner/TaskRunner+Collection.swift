extension TaskRunner {
  /// Starts performing `perform` on each item in order, off the main actor, unless a run is
  /// active; reports `i / count` after each item.
  ///
  /// Cancellation is checked before each item, and a paused run (``pause()``) waits there until
  /// it resumes. An empty collection finishes at once (the
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
      // Checked here, synchronously: an async call per item costs more than a no-op item.
      if reporter.node.signals.isPaused {
        try await reporter.waitIfPaused()
      }
      try await perform(item)
      completed += 1
      reporter.report(completed: completed, of: total)
      if pacer.countItem() {
        await pacer.yieldIfDue()
      }
    }
  }
}

extension TaskRunner {
  /// Starts performing `perform` on the items, up to `maxConcurrency` at once, off the main
  /// actor, unless a run is active; reports the count of items done as each one ends.
  ///
  /// Items start in the collection's order and end in any order; each is performed once. The
  /// first error an item throws fails the run and cancels the items still in flight (which then
  /// ending with `CancellationError` leaves the run `.failed`), and no item starts after a failure
  /// or a cancel. A paused run (``pause()``) starts no item until it resumes; the items in flight
  /// go on. An empty collection finishes at once. A `maxConcurrency` below 1 means 1, which
  /// is ``start(priority:over:perform:)``.
  ///
  /// ```swift
  /// runner.start(over: files, maxConcurrency: 4) { file in
  ///   try await upload(file)
  /// }
  /// ```
  ///
  /// - Returns: `true` if the run started, `false` if a run was already active.
  @inlinable
  @discardableResult
  public func start<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    maxConcurrency: Int,
    perform: @escaping @concurrent @Sendable (C.Element) async throws -> Void
  ) -> Bool where C.Element: Sendable {
    start(priority: priority) { reporter in
      try await TaskRunner.perform(
        perform, over: items, maxConcurrency: maxConcurrency, reporter: reporter)
    }
  }

  /// Performs `perform` on the items, up to `maxConcurrency` at once, like
  /// ``start(priority:over:maxConcurrency:perform:)-(_,_,_,(C.Element)->Void)``, and waits for the run to end.
  ///
  /// - Returns: The terminal state of the run this call started, or, if a run was already
  ///   active, the current state at once.
  @inlinable
  @discardableResult
  public func run<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    maxConcurrency: Int,
    perform: @escaping @concurrent @Sendable (C.Element) async throws -> Void
  ) async -> RunState where C.Element: Sendable {
    await run(priority: priority) { reporter in
      try await TaskRunner.perform(
        perform, over: items, maxConcurrency: maxConcurrency, reporter: reporter)
    }
  }

  /// The loop behind `start(over:maxConcurrency:)`: up to `maxConcurrency` items in flight, and
  /// the count done reported as each one ends.
  @inlinable
  nonisolated static func perform<C: Collection & Sendable>(
    _ perform: @escaping @concurrent @Sendable (C.Element) async throws -> Void,
    over items: C,
    maxConcurrency: Int,
    reporter: Reporter
  ) async throws where C.Element: Sendable {
    guard maxConcurrency > 1 else {
      try await TaskRunner.perform(perform, over: items, reporter: reporter)
      return
    }
    let total = items.count
    var completed = 0
    try await performConcurrently(over: items, maxConcurrency: maxConcurrency, reporter: reporter) {
      try await perform($0)
    } itemEnded: {
      completed += 1
      reporter.report(completed: completed, of: total)
    }
  }

  /// A task group that keeps up to `maxConcurrency` items in flight, in the collection's order,
  /// and starts none once the run is cancelled; calls `itemEnded` as each one ends.
  ///
  /// The first error leaves the group, which cancels the items in flight and waits for them, so
  /// the run fails with that error, whatever they then throw.
  @inlinable
  nonisolated static func performConcurrently<C: Collection & Sendable>(
    over items: C,
    maxConcurrency: Int,
    reporter: Reporter,
    _ perform: @escaping @Sendable (C.Element) async throws -> Void,
    itemEnded: () -> Void = {}
  ) async throws where C.Element: Sendable {
    let limit = max(maxConcurrency, 1)
    let signals = reporter.node.signals
    // A child task is an item (`true`), or a watch (`false`) that ends when a paused run resumes,
    // so that the loop fills up again even if no item ends meanwhile.
    try await withThrowingTaskGroup(of: Bool.self) { group in
      var pending = items.makeIterator()
      var inFlight = 0
      var watching = false
      /// Starts items until `maxConcurrency` are in flight or every item started, unless the run
      /// was cancelled. While paused, it starts none: with items in flight it leaves a watch and
      /// returns, so that they still end and count; with none, it waits for the run to resume.
      func fill() async throws {
        while inFlight < limit {
          try reporter.checkCancellation()
          try Task.checkCancellation()
          if signals.isPaused {
            guard inFlight > 0 else {
              try await reporter.waitIfPaused()
              continue
            }
            if !watching {
              watching = true
              group.addTask {
                await signals.waitWhilePaused()
                return false
              }
            }
            return
          }
          guard let item = pending.next() else { return }
          group.addTask {
            try await perform(item)
            return true
          }
          inFlight += 1
        }
      }
      try await fill()
      while inFlight > 0 {
        if try await group.next() == true {
          inFlight -= 1
          itemEnded()
        } else {
          watching = false
        }
        try await fill()
      }
      // Every item ended; a watch left waiting for a resume is no longer needed.
      group.cancelAll()
    }
  }
}

extension TaskRunner {
  /// Starts performing `perform` on the items, up to `maxConcurrency` at once, handing each item
  /// a subprogress worth one item, so that the progress within items shows too.
  ///
  /// The run's total is the number of items. Each item's share shows in the run's fraction as the
  /// item reports to its subprogress, and counts as one completed item when the item's child
  /// finishes, when its reporter is released, or, for an item that never starts its subprogress,
  /// when `perform` returns. Items start and fail as for
  /// ``start(priority:over:maxConcurrency:perform:)-(_,_,_,(C.Element)->Void)``.
  ///
  /// ```swift
  /// runner.start(over: urls, maxConcurrency: 4) { url, subprogress in
  ///   try await download(url, subprogress: subprogress)
  /// }
  /// ```
  ///
  /// - Returns: `true` if the run started, `false` if a run was already active.
  @inlinable
  @discardableResult
  public func start<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    maxConcurrency: Int = 1,
    perform: @escaping @concurrent @Sendable (C.Element, consuming Subprogress) async throws -> Void
  ) -> Bool where C.Element: Sendable {
    start(priority: priority) { reporter in
      try await TaskRunner.perform(
        perform, over: items, maxConcurrency: maxConcurrency, reporter: reporter)
    }
  }

  /// Performs `perform` on the items with a subprogress each, like the `start` that hands
  /// each item a subprogress, and waits for the run to end.
  ///
  /// - Returns: The terminal state of the run this call started, or, if a run was already
  ///   active, the current state at once.
  @inlinable
  @discardableResult
  public func run<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    maxConcurrency: Int = 1,
    perform: @escaping @concurrent @Sendable (C.Element, consuming Subprogress) async throws -> Void
  ) async -> RunState where C.Element: Sendable {
    await run(priority: priority) { reporter in
      try await TaskRunner.perform(
        perform, over: items, maxConcurrency: maxConcurrency, reporter: reporter)
    }
  }

  /// The loop behind `start(over:maxConcurrency:)` with a subprogress per item: the run's total
  /// is the item count, and each item's child hands its one unit over as it ends.
  @inlinable
  nonisolated static func perform<C: Collection & Sendable>(
    _ perform:
      @escaping @concurrent @Sendable (C.Element, consuming Subprogress) async throws
      -> Void,
    over items: C,
    maxConcurrency: Int,
    reporter: Reporter
  ) async throws where C.Element: Sendable {
    // The total first, so that shares handed over never move the bar back.
    reporter.report(completed: 0, of: items.count)
    try await performConcurrently(over: items, maxConcurrency: maxConcurrency, reporter: reporter) {
      // Made in the item's task: a subprogress can't be captured, being noncopyable.
      try await perform($0, reporter.subprogress(assigningCount: 1))
    }
  }
}

extension TaskRunner {
  /// Starts performing `perform` on the items, up to `maxConcurrency` at once, where each item
  /// counts for its weight in the run's progress: a 1 GB file as a million 1 KB ones.
  ///
  /// The run's total is the sum of the weights, and an item's weight joins the completed count
  /// when `perform` returns. `weight` is called once per item, before the first one starts;
  /// negative weights count as 0. Items start, end and fail as for
  /// ``start(priority:over:maxConcurrency:perform:)-(_,_,_,(C.Element)->Void)``: at most
  /// `maxConcurrency` at once (values below 1 mean 1), each once, none after a failure or a
  /// cancel, and an empty collection finishes at once. When every weight is 0, the run shows
  /// complete from the start, as a total of 0 does.
  ///
  /// ```swift
  /// runner.start(over: files, maxConcurrency: 4, weight: \.size) { file in
  ///   try await importFile(file)
  /// }
  /// ```
  ///
  /// - Returns: `true` if the run started, `false` if a run was already active.
  @inlinable
  @discardableResult
  public func start<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    maxConcurrency: Int = 1,
    weight: @escaping @Sendable (C.Element) -> Int,
    perform: @escaping @concurrent @Sendable (C.Element) async throws -> Void
  ) -> Bool where C.Element: Sendable {
    start(priority: priority) { reporter in
      try await TaskRunner.perform(
        over: items, maxConcurrency: maxConcurrency, weight: weight, reporter: reporter
      ) { item, weight in
        try await perform(item)
        reporter.complete(count: weight)
      }
    }
  }

  /// Performs `perform` on the weighted items like the `start` with a `weight`, and waits for
  /// the run to end.
  ///
  /// - Returns: The terminal state of the run this call started, or, if a run was already
  ///   active, the current state at once.
  @inlinable
  @discardableResult
  public func run<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    maxConcurrency: Int = 1,
    weight: @escaping @Sendable (C.Element) -> Int,
    perform: @escaping @concurrent @Sendable (C.Element) async throws -> Void
  ) async -> RunState where C.Element: Sendable {
    await run(priority: priority) { reporter in
      try await TaskRunner.perform(
        over: items, maxConcurrency: maxConcurrency, weight: weight, reporter: reporter
      ) { item, weight in
        try await perform(item)
        reporter.complete(count: weight)
      }
    }
  }

  /// Starts performing `perform` on the items, up to `maxConcurrency` at once, handing each item
  /// a reporter of its own whose progress moves the item's weight in the run's progress.
  ///
  /// The run's total is the sum of the weights. Each item's reporter is a child assigned the
  /// item's weight (``Reporter/subprogress(assigningCount:)``) and started with no total: the
  /// item reports its own, in whatever units it likes (`report(completed:of:)`,
  /// `report(fractionCompleted:)`, `complete(count:)`), and the run's fraction moves by the
  /// item's share as it does, not only when the item ends. Until it reports a total, an item adds
  /// nothing to the fraction. When `perform` returns, the item counts as complete, whatever it
  /// reported. `weight` is called once per item, before the first one starts; negative weights
  /// count as 0. Items start, end and fail as for
  /// ``start(priority:over:maxConcurrency:perform:)-(_,_,_,(C.Element)->Void)``.
  ///
  /// ```swift
  /// runner.start(over: files, maxConcurrency: 4, weight: \.size) { file, reporter in
  ///   reporter.report(completed: 0, of: file.size)
  ///   for chunk in file.chunks {
  ///     try await hash(chunk)
  ///     reporter.complete(count: chunk.count)
  ///   }
  /// }
  /// ```
  ///
  /// - Returns: `true` if the run started, `false` if a run was already active.
  @inlinable
  @discardableResult
  public func start<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    maxConcurrency: Int = 1,
    weight: @escaping @Sendable (C.Element) -> Int,
    perform: @escaping @concurrent @Sendable (C.Element, Reporter) async throws -> Void
  ) -> Bool where C.Element: Sendable {
    start(priority: priority) { reporter in
      try await reporter.forEach(
        items, maxConcurrency: maxConcurrency, weight: weight, perform: perform)
    }
  }

  /// Performs `perform` on the weighted items with a reporter each, like the `start` that hands
  /// each item a reporter, and waits for the run to end.
  ///
  /// - Returns: The terminal state of the run this call started, or, if a run was already
  ///   active, the current state at once.
  @inlinable
  @discardableResult
  public func run<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    maxConcurrency: Int = 1,
    weight: @escaping @Sendable (C.Element) -> Int,
    perform: @escaping @concurrent @Sendable (C.Element, Reporter) async throws -> Void
  ) async -> RunState where C.Element: Sendable {
    await run(priority: priority) { reporter in
      try await reporter.forEach(
        items, maxConcurrency: maxConcurrency, weight: weight, perform: perform)
    }
  }

  /// Performs one weighted item with a child reporter of its own, assigned its weight, and
  /// completes the child when `perform` returns, even if the item kept a copy of its reporter.
  @inlinable
  nonisolated static func perform<Element>(
    _ item: Element, weight: Int, reporter: Reporter,
    _ perform: @concurrent @Sendable (Element, Reporter) async throws -> Void
  ) async throws {
    let child = reporter.subprogress(assigningCount: weight).start(totalCount: nil)
    try await perform(item, child)
    child.report(fractionCompleted: 1)
  }

  /// The loop behind the weighted `start(over:)`: reports the sum of the weights as the run's
  /// total, then performs the items concurrently with their weights.
  @inlinable
  nonisolated static func perform<C: Collection & Sendable>(
    over items: C,
    maxConcurrency: Int,
    weight: @Sendable (C.Element) -> Int,
    reporter: Reporter,
    _ perform: @escaping @Sendable (C.Element, Int) async throws -> Void
  ) async throws where C.Element: Sendable {
    var weighted: [WeightedItem<C.Element>] = []
    weighted.reserveCapacity(items.count)
    var total = 0
    for item in items {
      let weight = max(weight(item), 0)
      weighted.append(WeightedItem(item: item, weight: weight))
      let (sum, overflow) = total.addingReportingOverflow(weight)
      total = overflow ? Int.max : sum
    }
    // The total first, so that items ending or reporting never move the bar back.
    reporter.report(completed: 0, of: total)
    try await performConcurrently(
      over: weighted, maxConcurrency: maxConcurrency, reporter: reporter
    ) { try await perform($0.item, $0.weight) }
  }
}

/// An item of a weighted `start(over:)`, with its weight, computed once.
@usableFromInline
struct WeightedItem<Element: Sendable>: Sendable {
  @usableFromInline let item: Element
  @usableFromInline let weight: Int

  @inlinable
  init(item: Element, weight: Int) {
    self.item = item
    self.weight = weight
  }
}
