extension TaskRunner {
  /// The handle an operation uses to report its progress: the analogue of the
  /// `AsyncStream.Continuation` in the hand-written pattern.
  ///
  /// Call it from any thread or task, as often as you like. A report is one or two atomic
  /// operations on the reporter's own words: no lock, no allocation, no actor hop, no buffer
  /// that grows. The runner reads the latest value at most once per update interval, so a loop
  /// that reports a million times a second costs the main actor no more than one that reports
  /// sixty times.
  public struct Reporter: Sendable {
    /// The reporter's progress: the run's root, a started child, or a standalone root.
    @usableFromInline let node: ProgressNode
    /// For a started child: ends it when the last copy of this reporter goes away.
    let lifetime: ChildLifetime?

    /// The reporter of a run's root or of a started child.
    ///
    /// - Parameters:
    ///   - node: The root or the child.
    ///   - endingChildOnRelease: For a child, whether this reporter's copies end it when the
    ///     last goes away.
    init(node: ProgressNode, endingChildOnRelease: Bool = true) {
      self.node = node
      self.lifetime = node.isChild && endingChildOnRelease ? ChildLifetime(node) : nil
    }

    /// Creates a standalone reporter that belongs to no runner: for unit tests and previews of
    /// code that takes a reporter or a subprogress.
    ///
    /// Read what the code reported with ``progress``: the same value a runner would show,
    /// children included. A standalone reporter is never cancelled, and its checkpoints only
    /// give other tasks a turn.
    ///
    /// ```swift
    /// import TaskProgress
    /// import Testing
    ///
    /// @Test func hashingTenFilesCountsTen() async throws {
    ///   let reporter = TaskRunner.Reporter(totalCount: 10)
    ///   try await hashFiles(files, subprogress: reporter.subprogress(assigningCount: 10))
    ///   #expect(reporter.progress == RunProgress(completed: 10, of: 10))
    /// }
    /// ```
    ///
    /// - Parameter totalCount: The total, as if reported with ``report(totalCount:)``; `nil`
    ///   leaves it to be given later or taken from the counts assigned to subprogresses.
    public init(totalCount: Int? = nil) {
      self.init(node: ProgressNode(signals: RunSignals(updateInterval: nil)))
      if let totalCount {
        report(totalCount: totalCount)
      }
    }

    /// Reports the fraction of the work that is done.
    ///
    /// A fraction replaces counts: the reporter shows this fraction, and not its children's,
    /// until it reports counts again.
    ///
    /// - Parameter fractionCompleted: A value in `0...1`; values outside are clamped, and NaN
    ///   or an infinity is ignored.
    @inlinable
    public func report(fractionCompleted: Double) {
      guard fractionCompleted.isFinite else { return }
      // Adding 0 turns -0.0 into +0.0, so that equal fractions store equal words.
      let fraction = min(max(fractionCompleted, 0), 1) + 0
      node.report(
        total: ProgressWord.fractionMode, count: ProgressWord.payload(fraction: fraction))
      if fraction == 1 && node.isChild {
        node.finishIfComplete()
      }
    }

    /// Reports that `completed` of `total` units of work are done.
    ///
    /// The count replaces the reporter's completed count, including what ``complete(count:)``
    /// and finished children added to it. `completed` is clamped to `0...total`; a `total` of
    /// zero or less means the work is complete. Counts below 2^61 (2.3 × 10^18) and totals below
    /// 2^62 cost a load and a store whatever their size; larger ones take a lock.
    @inlinable
    public func report(completed: Int, of total: Int) {
      let total = max(total, 0)
      let completed = min(max(completed, 0), total)
      let base = node.words.base(for: completed)
      if let totalPayload = ProgressWord.payload(total: total),
        let countPayload = ProgressWord.payload(base: base)
      {
        node.report(total: totalPayload, count: countPayload)
      } else {
        node.storeWide(base: base, total: total)
      }
      if completed >= total && node.isChild {
        node.finishIfComplete()
      }
    }

    /// Sets the total and keeps the completed count: how a reporter with stages gives its size
    /// before it hands out subprogresses.
    ///
    /// ```swift
    /// runner.start { reporter in
    ///   reporter.report(totalCount: 100)
    ///   try await download(subprogress: reporter.subprogress(assigningCount: 70))
    ///   try await parse(subprogress: reporter.subprogress(assigningCount: 30))
    /// }
    /// ```
    ///
    /// - Parameter totalCount: The total; `nil` makes the reporter indeterminate, keeping its
    ///   count. A total of zero or less means the work is complete.
    public func report(totalCount: Int?) {
      node.setTotal(totalCount)
    }

    /// Adds `count` completed units: safe from many tasks at once, each call one atomic add.
    ///
    /// Workers that share a reporter call it as each finishes a unit, and the count never goes
    /// back, whatever order they finish in. Negative counts count as 0. The count is exact up to
    /// `Int.max`, and a larger one reads as `Int.max`.
    ///
    /// ```swift
    /// runner.start { reporter in
    ///   reporter.report(completed: 0, of: files.count)
    ///   try await withThrowingTaskGroup(of: Void.self) { group in
    ///     for file in files {
    ///       group.addTask {
    ///         try await hash(file)
    ///         reporter.complete(count: 1)
    ///       }
    ///     }
    ///     try await group.waitForAll()
    ///   }
    /// }
    /// ```
    @inlinable
    public func complete(count: Int) {
      let added = node.add(max(count, 0))
      if node.isChild && node.words.mayHaveCompleted(added: added) {
        node.finishIfComplete()
      }
    }

    /// Hands `count` of this reporter's units to a callee, which starts it with its own total.
    ///
    /// The callee's fraction, times `count`, shows in this reporter's fraction while the callee
    /// works; when the callee finishes, or its reporter is released, or the subprogress is
    /// dropped without being started, `count` is added to this reporter's completed count, once.
    /// While this reporter was given no total, the counts assigned to its subprogresses are its
    /// total, so that `root.subprogress(assigningCount: 1)` shows the callee's progress. Negative
    /// counts count as 0.
    ///
    /// ```swift
    /// runner.start { reporter in
    ///   try await download(url, subprogress: reporter.subprogress(assigningCount: 1))
    /// }
    /// ```
    public func subprogress(assigningCount count: Int) -> Subprogress {
      let count = max(count, 0)
      node.assign(count)
      return Subprogress(parent: node, assigned: count)
    }

    /// This reporter's progress now, computed from its counts and its unfinished children, as the
    /// runner computes the run's state.
    ///
    /// Reading walks the reporter's children; read it in tests, with a standalone reporter, rather
    /// than in a hot loop.
    public var progress: RunProgress {
      pollSources()
      return node.readAnyway().withMessage(node.signals.messages.read().text)
    }

    /// Reports that the work is under way but its size is unknown.
    ///
    /// A view shows indeterminate progress as a busy indicator rather than a bar; the state's
    /// ``RunState/fractionCompleted`` is `nil` until the next determinate report. An
    /// indeterminate reporter hides its children, and as a child it adds 0 to its parent's
    /// fraction.
    ///
    /// - Parameter completed: The units done so far, if the work counts them; negative counts
    ///   become 0. The count replaces the completed count, as ``report(completed:of:)`` does.
    @inlinable
    public func reportIndeterminate(completed: Int? = nil) {
      guard let completed else {
        node.report(total: ProgressWord.indeterminateMode, count: 0)
        return
      }
      let base = node.words.base(for: max(completed, 0))
      if let count = ProgressWord.payload(base: base) {
        node.report(total: ProgressWord.indeterminateCountingMode, count: count)
      } else {
        node.storeWide(base: base, total: nil)
      }
    }

    /// Whether the run this reporter belongs to was cancelled or replaced.
    ///
    /// Check it in synchronous loops that have no `await` to notice cancellation; async code
    /// can equally use `Task.isCancelled` or `try Task.checkCancellation()`.
    @inlinable
    public var isCancelled: Bool {
      node.signals.isCancelled
    }

    /// Throws `CancellationError` if the run this reporter belongs to was cancelled: the check of
    /// ``checkpoint()`` without its turn for other tasks, for the item loops.
    @usableFromInline
    func checkCancellation() throws(CancellationError) {
      if isCancelled { throw CancellationError() }
    }

    /// Throws `CancellationError` if the run was cancelled, waits while the run is paused, and
    /// gives other tasks a turn when they need one.
    ///
    /// Call it between steps of work that does not suspend by itself, instead of sprinkling
    /// `try Task.checkCancellation()` and `await Task.yield()` through the loop:
    ///
    /// ```swift
    /// runner.start { reporter in
    ///   for (index, row) in rows.enumerated() {
    ///     try await reporter.checkpoint()
    ///     crunch(row)  // synchronous, CPU-bound
    ///     reporter.report(completed: index + 1, of: rows.count)
    ///   }
    /// }
    /// ```
    public func checkpoint() async throws(CancellationError) {
      try checkCancellation()
      try await waitIfPaused()
      if node.signals.shouldYield() {
        await Task.yield()
        try checkCancellation()
      }
    }

    /// Waits while the run is paused; throws if the run or the calling task is cancelled then.
    @inlinable
    func waitIfPaused() async throws(CancellationError) {
      // A loop: a resume and a new pause in one turn of the main actor wake the waiter paused.
      while node.signals.isPaused {
        await node.signals.waitWhilePaused()
        if isCancelled || Task.isCancelled { throw CancellationError() }
      }
    }

    /// Sets the status text a view shows beside the bar: the item or the stage under way.
    ///
    /// The run's state carries the latest message any of its reporters set, in
    /// ``RunProgress/message``, and like counts it reaches observers at the next frame: a loop
    /// may set it on every step. `nil` clears the text.
    ///
    /// ```swift
    /// runner.start { reporter in
    ///   for (index, file) in files.enumerated() {
    ///     reporter.report(message: "Hashing \(file.name)")
    ///     try await hash(file)
    ///     reporter.report(completed: index + 1, of: files.count)
    ///   }
    /// }
    /// ```
    ///
    /// - Parameter message: The text, or `nil` for none.
    @inlinable
    public func report(message: String?) {
      node.signals.messages.post(message)
    }
  }
}
