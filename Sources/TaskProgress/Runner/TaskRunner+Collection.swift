extension TaskRunner {
  /// Starts performing `perform` on each item, off the main actor, unless a run is active, and
  /// reports how many items are done as each one ends.
  ///
  /// By default the items are performed in order, one at a time, and the run reports `i / count`
  /// after each. Cancellation is checked before each item, and a paused run (``pause()``) waits
  /// there until it resumes. An empty collection finishes at once (the hand-written
  /// `for index in 1...count` loop traps on it). A loop whose items never suspend still yields to
  /// other tasks every few milliseconds, so you never call `Task.yield()` yourself.
  ///
  /// ```swift
  /// runner.start(over: objects) { object in
  ///   try await object.someTask()
  /// }
  /// ```
  ///
  /// With a `maxConcurrency` above 1, up to that many items are in flight at once. They start in
  /// the collection's order and end in any order; each is performed once. The first error an item
  /// throws fails the run and cancels the items still in flight (which then ending with
  /// `CancellationError` leaves the run `.failed`), and no item starts after a failure or a
  /// cancel. A paused run starts no item until it resumes; the items in flight go on.
  ///
  /// With a `weight`, each item counts for its weight in the run's progress, a 1 GB file as a
  /// million 1 KB ones: the run's total is the sum of the weights, and an item's weight joins the
  /// completed count when `perform` returns. `weight` is called once per item, before the first
  /// one starts; negative weights count as 0. When every weight is 0, the run shows complete from
  /// the start, as a total of 0 does.
  ///
  /// ```swift
  /// runner.start(over: files, maxConcurrency: 4, weight: \.size) { file in
  ///   try await upload(file)
  /// }
  /// ```
  ///
  /// To give each item a reporter of its own, so that the progress within items shows too,
  /// run ``Reporter/forEach(_:maxConcurrency:weight:perform:)`` in an operation:
  /// `runner.start { try await $0.forEach(files, maxConcurrency: 4) { file, reporter in ... } }`.
  ///
  /// - Parameters:
  ///   - priority: The priority of the run's task; `nil` for the default.
  ///   - items: The items.
  ///   - maxConcurrency: The most items performed at once; values below 1 mean 1.
  ///   - weight: What an item counts for, such as its size in bytes; `nil` counts each item as 1.
  ///   - perform: The work on one item.
  /// - Returns: `true` if the run started, `false` if a run was already active.
  @inlinable
  @discardableResult
  public func start<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    maxConcurrency: Int = 1,
    weight: (@Sendable (C.Element) -> Int)? = nil,
    perform: @escaping @concurrent @Sendable (C.Element) async throws -> Void
  ) -> Bool where C.Element: Sendable {
    start(priority: priority) { reporter in
      try await TaskRunner.forEachItem(
        of: items, maxConcurrency: maxConcurrency, weight: weight, reporter: reporter, perform)
    }
  }

  /// Performs `perform` on each item like ``start(priority:over:maxConcurrency:weight:perform:)``
  /// and waits for the run to end.
  ///
  /// - Returns: The terminal state of the run this call started, or, if a run was already
  ///   active, the current state at once.
  @inlinable
  @discardableResult
  public func run<C: Collection & Sendable>(
    priority: TaskPriority? = nil,
    over items: C,
    maxConcurrency: Int = 1,
    weight: (@Sendable (C.Element) -> Int)? = nil,
    perform: @escaping @concurrent @Sendable (C.Element) async throws -> Void
  ) async -> RunState where C.Element: Sendable {
    await run(priority: priority) { reporter in
      try await TaskRunner.forEachItem(
        of: items, maxConcurrency: maxConcurrency, weight: weight, reporter: reporter, perform)
    }
  }

  /// The loop behind `start(over:)`: one item at a time, several at once, or weighted.
  @inlinable
  nonisolated static func forEachItem<C: Collection & Sendable>(
    of items: C,
    maxConcurrency: Int,
    weight: (@Sendable (C.Element) -> Int)?,
    reporter: Reporter,
    _ perform: @escaping @concurrent @Sendable (C.Element) async throws -> Void
  ) async throws where C.Element: Sendable {
    if let weight {
      try await forEachWeightedItem(
        of: items, maxConcurrency: maxConcurrency, weight: weight, reporter: reporter
      ) { item, weight in
        try await perform(item)
        reporter.complete(count: weight)
      }
    } else if maxConcurrency > 1 {
      let total = items.count
      var completed = 0
      try await forEachItemConcurrently(
        of: items, maxConcurrency: maxConcurrency, reporter: reporter
      ) {
        try await perform($0)
      } itemEnded: {
        completed += 1
        reporter.report(completed: completed, of: total)
      }
    } else {
      try await forEachItemInOrder(of: items, reporter: reporter, perform)
    }
  }

  /// The loop of one item at a time: inlinable, so that it is specialised for the caller's
  /// collection, and checking the run's cancellation flag (one relaxed load) between items.
  @inlinable
  nonisolated static func forEachItemInOrder<C: Collection>(
    of items: C,
    reporter: Reporter,
    _ perform: @concurrent @Sendable (C.Element) async throws -> Void
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

  /// A task group that keeps up to `maxConcurrency` items in flight, in the collection's order,
  /// and starts none once the run is cancelled; calls `itemEnded` as each one ends.
  ///
  /// The first error leaves the group, which cancels the items in flight and waits for them, so
  /// the run fails with that error, whatever they then throw.
  @inlinable
  nonisolated static func forEachItemConcurrently<C: Collection & Sendable>(
    of items: C,
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

  /// Performs one weighted item with a child reporter of its own, assigned its weight, and
  /// completes the child when `perform` returns, even if the item kept a copy of its reporter.
  @inlinable
  nonisolated static func performWeightedItem<Element>(
    _ item: Element, weight: Int, reporter: Reporter,
    _ perform: @concurrent @Sendable (Element, Reporter) async throws -> Void
  ) async throws {
    let child = reporter.subprogress(assigningCount: weight).start(totalCount: nil)
    try await perform(item, child)
    child.report(fractionCompleted: 1)
  }

  /// The loop behind a weighted `start(over:)` and ``Reporter/forEach(_:maxConcurrency:weight:perform:)``:
  /// reports the sum of the weights as the total, then performs the items with their weights.
  @inlinable
  nonisolated static func forEachWeightedItem<C: Collection & Sendable>(
    of items: C,
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
    try await forEachItemConcurrently(
      of: weighted, maxConcurrency: maxConcurrency, reporter: reporter
    ) { try await perform($0.item, $0.weight) }
  }
}

/// An item of a weighted loop, with its weight, computed once.
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
