extension TaskRunnerGroup {
  /// What a group's queue does when an item fails.
  public enum FailurePolicy: Hashable, Sendable {
    /// The other items go on: one failed download leaves the rest to finish.
    case `continue`
    /// The queue stops: the items under way are cancelled and no other starts, as after
    /// ``TaskRunnerGroup/cancelAll()``.
    case stop
  }

  /// Runs `perform` on each of `items`, at most `maxConcurrency` at once, each in a runner of its
  /// own that joins the group; returns at once.
  ///
  /// Every item joins the group when this is called, as a waiting member, so that the group's
  /// total and counts are right from the first frame: `3 running, 5 waiting`. As an item ends,
  /// the next waiting one starts in its place, in the same turn of the main actor. The items'
  /// runners show their progress as each frame reads it, without animation (`.instant`), so
  /// that thousands of items a second cost no frames once they ended.
  ///
  /// ```swift
  /// let group = TaskRunnerGroup(unit: .bytes)
  /// group.start(files, maxConcurrency: 3, label: \.name, weight: { Double($0.size) }) {
  ///   file, reporter in
  ///   try await download(file, reporter: reporter)
  /// }
  /// ```
  ///
  /// ``pauseAll()`` pauses the runs under way and starts no item until ``resumeAll()``;
  /// ``cancelAll()`` cancels them and starts no other: the items never started end
  /// `.cancelled`, their runners too. No item runs twice. One queue runs on a group at a time;
  /// to add items to it while it is under way, or to wait for its end, take it with
  /// ``queue(of:)``.
  ///
  /// - Parameters:
  ///   - items: The items, run in their order.
  ///   - maxConcurrency: The most items under way at once; values below 1 mean 1. A paused run
  ///     keeps its place.
  ///   - label: The member's label for an item: `String(describing:)` by default.
  ///   - weight: The member's weight for an item, such as its size in bytes. By default, in a
  ///     group that counts items, 1, so that each item counts the same and the total is known
  ///     from the start (`5/12`); in a group that counts bytes (``unit``), as ``weighting`` says:
  ///     with ``Weighting/units``, the bytes its run reports as its total, so that the group's
  ///     counts are bytes too. A weight that is negative or not a finite number counts as
  ///     ``weighting`` says.
  ///   - onFailure: Whether a failure stops the queue; by default the other items go on.
  ///   - retries: How many times an item that throws is performed again before it fails; 0 by
  ///     default. A `CancellationError` is never retried.
  ///   - retryDelay: How long the item waits, on the group's clock, before each retry. Its
  ///     member shows `retry 1 of 3` as its status message meanwhile, and while it tries again.
  ///   - perform: The work for one item, off the main actor, with its run's reporter; the same
  ///     reporter for every attempt.
  /// - Returns: `true` if the queue started, `false` if a queue was under way on the group, in
  ///   which case nothing changed and `perform` is never called.
  @discardableResult
  public func start<C: Collection & Sendable>(
    _ items: C, maxConcurrency: Int,
    label: @escaping (C.Element) -> String = { String(describing: $0) },
    weight: ((C.Element) -> Double)? = nil,
    onFailure: FailurePolicy = .continue,
    retries: Int = 0,
    retryDelay: Duration = .seconds(1),
    perform: @escaping @Sendable (C.Element, TaskRunner.Reporter) async throws -> Void
  ) -> Bool where C.Element: Sendable {
    startQueue(
      items, maxConcurrency: maxConcurrency, label: label, weight: weight, onFailure: onFailure,
      retries: retries, retryDelay: retryDelay, cancelled: false, perform: perform) != nil
  }

  /// Runs `perform` on each of `items`, at most `maxConcurrency` at once, as
  /// ``start(_:maxConcurrency:label:weight:onFailure:retries:retryDelay:perform:)`` does, and
  /// waits for the queue to end.
  ///
  /// ```swift
  /// let group = TaskRunnerGroup()
  /// let outcomes = await group.run(files, maxConcurrency: 4) { file, _ in
  ///   try await importFile(file)
  /// }
  /// print("\(outcomes.filter { $0.phase == .failed }.count) failed")
  /// ```
  ///
  /// Cancelling the task that awaits this cancels the queue, as ``cancelAll()`` does, for the
  /// queue's items only. It returns once every item has its final state, and the group's
  /// ``counts`` and sums say so.
  ///
  /// - Returns: Each item's final state, in the items' order: `.finished`, `.failed(error)` or
  ///   `.cancelled` (an item never started included). If a queue was under way on the group,
  ///   this starts nothing and returns `.cancelled` for every item at once.
  public func run<C: Collection & Sendable>(
    _ items: C, maxConcurrency: Int,
    label: @escaping (C.Element) -> String = { String(describing: $0) },
    weight: ((C.Element) -> Double)? = nil,
    onFailure: FailurePolicy = .continue,
    retries: Int = 0,
    retryDelay: Duration = .seconds(1),
    perform: @escaping @Sendable (C.Element, TaskRunner.Reporter) async throws -> Void
  ) async -> [RunState] where C.Element: Sendable {
    guard
      let queue = startQueue(
        items, maxConcurrency: maxConcurrency, label: label, weight: weight,
        onFailure: onFailure, retries: retries, retryDelay: retryDelay,
        cancelled: Task.isCancelled, perform: perform)
    else { return items.map { _ in .cancelled } }
    let outcomes = await queue.wait()
    // Its caller has what it holds: the group keeps none of it.
    if self.queue === queue {
      self.queue = nil
    }
    return outcomes
  }

  /// The latest queue started on the group by
  /// ``start(_:maxConcurrency:label:weight:onFailure:retries:retryDelay:perform:)``, under way
  /// or over, when its items are of type `Item`: to append items to it, take waiting ones out,
  /// wait for its end, or read its failures.
  ///
  /// ```swift
  /// let group = TaskRunnerGroup()
  /// group.start(files, maxConcurrency: 3, label: \.name) { file, reporter in
  ///   try await download(file, reporter: reporter)
  /// }
  /// let queue = group.queue(of: ImportFile.self)
  /// queue?.append(contentsOf: files)
  /// let outcomes = await queue?.wait() ?? []
  /// print(outcomes.map(\.phase))
  /// ```
  ///
  /// The group keeps its latest queue, and the queue its items and their runners, until
  /// another queue starts; a group released while its queue is under way releases the queue's
  /// runners, which cancels their runs.
  ///
  /// - Returns: The queue, or `nil` when no queue started on the group or its items are not
  ///   `Item`s.
  public func queue<Item>(of itemType: Item.Type) -> Queue<Item>? {
    queue as? Queue<Item>
  }

  /// Starts a queue; a `cancelled` one starts no item, and every item ends cancelled.
  private func startQueue<C: Collection & Sendable>(
    _ items: C, maxConcurrency: Int, label: @escaping (C.Element) -> String,
    weight: ((C.Element) -> Double)?, onFailure: FailurePolicy, retries: Int,
    retryDelay: Duration, cancelled: Bool,
    perform: @escaping @Sendable (C.Element, TaskRunner.Reporter) async throws -> Void
  ) -> Queue<C.Element>? where C.Element: Sendable {
    guard queueUnderWay == nil else { return nil }
    let queue = Queue(
      group: self, maxConcurrency: maxConcurrency, label: label, weight: weight,
      onFailure: onFailure,
      retry: QueueRetry(count: retries, delay: retryDelay, clock: clock), perform: perform)
    queue.begin(with: Array(items), cancelled: cancelled)
    return queue
  }
}

/// What a group asks of its queue under way.
@MainActor
protocol QueueControl: AnyObject {
  /// Pauses the queue's runs under way and starts no item until ``resume()``.
  func pause()
  /// Resumes the queue's paused runs and starts items again.
  func resume()
  /// Cancels the queue's runs under way; the items not started end `.cancelled`.
  func cancel()
  /// Whether every item of the queue has its final state.
  var isOver: Bool { get }
}

/// How an item that throws is tried again.
struct QueueRetry: Sendable {
  /// How many times, 0 or more.
  let count: Int
  /// The wait before each retry.
  let delay: Duration
  /// The clock the wait is on: the group's.
  let clock: any Clock<Duration>

  init(count: Int, delay: Duration, clock: any Clock<Duration>) {
    self.count = max(count, 0)
    self.delay = max(delay, .zero)
    self.clock = clock
  }

  /// Tries `item`, and again after each failure but a cancellation, while retries are left.
  @concurrent
  func attempt<Item: Sendable>(
    _ item: Item, reporter: TaskRunner.Reporter,
    _ perform: @Sendable (Item, TaskRunner.Reporter) async throws -> Void
  ) async throws {
    var attempt = 0
    while true {
      do {
        try await perform(item, reporter)
        return
      } catch {
        guard attempt < count, !(error is CancellationError), !reporter.isCancelled else {
          throw error
        }
        attempt += 1
        reporter.report(message: "retry \(attempt) of \(count)")
        if delay > .zero {
          try await clock.sleep(for: delay)
        }
        try await reporter.checkpoint()
      }
    }
  }
}
