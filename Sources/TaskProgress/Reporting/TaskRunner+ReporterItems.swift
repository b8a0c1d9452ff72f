extension TaskRunner.Reporter {
  /// Performs `perform` on the items, up to `maxConcurrency` at once, each with a reporter of its
  /// own that stands for the item's weight in this reporter's progress: how a stage of a run does
  /// its items concurrently, without writing the task group.
  ///
  /// This reporter's total becomes the sum of the weights. Each item's reporter is a child
  /// assigned the item's weight and started with no total, so the item reports in its own units
  /// and moves its share as it goes; when `perform` returns, the item counts as complete.
  /// `weight` is called once per item, before the first starts; negative weights count as 0.
  /// Items start as in a run's `over:maxConcurrency:` (values below 1 mean 1): none while the run
  /// is paused, none after it was cancelled or an item failed; the first error cancels the items
  /// in flight and is thrown.
  ///
  /// ```swift
  /// runner.start { reporter in
  ///   reporter.report(totalCount: 100)
  ///   let scan = reporter.subprogress(assigningCount: 10).start(totalCount: 1)
  ///   let files = try await scanFolder()
  ///   scan.complete(count: 1)
  ///   let hashing = reporter.subprogress(assigningCount: 90).start(totalCount: nil)
  ///   try await hashing.forEach(files, maxConcurrency: 4, weight: \.size) { file, reporter in
  ///     try await hash(file, reporter: reporter)
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - items: The items.
  ///   - maxConcurrency: The most items performed at once.
  ///   - weight: What an item counts for, such as its size in bytes.
  ///   - perform: The work on one item, with the item's own reporter.
  /// - Throws: The first error an item threw, or `CancellationError` when the run or the calling
  ///   task was cancelled.
  public func forEach<C: Collection & Sendable>(
    _ items: C,
    maxConcurrency: Int = 1,
    weight: @escaping @Sendable (C.Element) -> Int = { _ in 1 },
    perform: @escaping @concurrent @Sendable (C.Element, TaskRunner.Reporter) async throws -> Void
  ) async throws where C.Element: Sendable {
    let reporter = self
    try await TaskRunner.forEachWeightedItem(
      of: items, maxConcurrency: maxConcurrency, weight: weight, reporter: reporter
    ) { item, weight in
      try await TaskRunner.performWeightedItem(item, weight: weight, reporter: reporter, perform)
    }
  }
}
