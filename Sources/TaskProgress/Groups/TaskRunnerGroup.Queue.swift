extension TaskRunnerGroup {
  /// A queue that runs its items in runners of a group, a few at a time; started by
  /// ``TaskRunnerGroup/start(_:maxConcurrency:label:weight:onFailure:retries:retryDelay:perform:)``
  /// and found with ``TaskRunnerGroup/queue(of:)``.
  ///
  /// Each item has a runner of its own, a member of the group from the moment the item is
  /// queued. Items are known by their index, in the order they were queued, appended ones last.
  /// The queue is under way until every item has ended, or until it is cancelled and the items
  /// under way have ended; it takes no more items then.
  @MainActor
  public final class Queue<Item: Sendable> {
    private weak var group: TaskRunnerGroup?
    private var machine: QueueStateMachine
    private var items: [Item] = []
    /// The runner of each item, by index.
    public private(set) var runners: [TaskRunner] = []
    /// The items under way, by index.
    private var running: Set<Int> = []
    private let label: (Item) -> String
    /// The caller's weights; `nil` for the default, which depends on the group's unit.
    private let weight: ((Item) -> Double)?
    private let retry: QueueRetry
    private let perform: @Sendable (Item, TaskRunner.Reporter) async throws -> Void
    /// The callers of ``wait()``.
    private var waiters: [CheckedContinuation<[RunState], Never>] = []

    init(
      group: TaskRunnerGroup, maxConcurrency: Int, label: @escaping (Item) -> String,
      weight: ((Item) -> Double)?, onFailure: FailurePolicy, retry: QueueRetry,
      perform: @escaping @Sendable (Item, TaskRunner.Reporter) async throws -> Void
    ) {
      self.group = group
      self.machine = QueueStateMachine(
        count: 0, maxConcurrency: maxConcurrency, stopsOnFailure: onFailure == .stop)
      self.label = label
      self.weight = weight
      self.retry = retry
      self.perform = perform
    }

    /// The number of items queued, appended ones included.
    public var count: Int {
      items.count
    }

    /// Whether the queue is over: every item has its final state, and the queue takes no more
    /// items.
    ///
    /// Until then an item runs, or waits to start and the queue was not cancelled.
    public var isOver: Bool {
      machine.outcomes != nil
    }

    /// The most items under way at once.
    public var maxConcurrency: Int {
      machine.maxConcurrency
    }

    /// How many items the queue has started; the others wait, or ended `.cancelled` without
    /// a run.
    public private(set) var startedCount = 0

    /// Whether the queue was cancelled, or stopped at a failure.
    ///
    /// A queue is cancelled by ``cancel()``, by the group's ``TaskRunnerGroup/cancelAll()``, by
    /// the cancellation of the task awaiting ``wait()`` or `run`, or, under
    /// ``TaskRunnerGroup/FailurePolicy/stop``, by its first failure. It starts nothing more;
    /// the items it never started end `.cancelled`.
    ///
    /// A tool tells a cancelled queue from one whose items all ran, whatever their outcomes:
    ///
    /// ```swift
    /// let group = TaskRunnerGroup()
    /// group.start(files, maxConcurrency: 3) { file, reporter in
    ///   try await download(file, reporter: reporter)
    /// }
    /// if let queue = group.queue(of: ImportFile.self) {
    ///   _ = await queue.wait()
    ///   print(queue.isCancelled ? "Cancelled" : "\(queue.failures.count) failed")
    /// }
    /// ```
    public var isCancelled: Bool {
      machine.isStopped
    }

    /// An item that failed: its place in the queue, the item, and the error its last attempt
    /// threw.
    public struct Failure: Sendable {
      /// The item's index, in the order it was queued.
      public let index: Int
      /// The item.
      public let item: Item
      /// The error its work threw, the last time it was tried.
      public let error: any Error
    }

    /// The items that failed so far, in the items' order, each with its error: what a tool
    /// names at the end.
    ///
    /// ```swift
    /// let group = TaskRunnerGroup()
    /// group.start(files, maxConcurrency: 3, label: \.name) { file, reporter in
    ///   try await download(file, reporter: reporter)
    /// }
    /// let queue = group.queue(of: ImportFile.self)
    /// _ = await queue?.wait()
    /// for failure in queue?.failures ?? [] {
    ///   print("\(failure.item.name): \(failure.error)")
    /// }
    /// ```
    public var failures: [Failure] {
      machine.items.indices.compactMap { index in
        guard case .ended(let outcome) = machine.items[index], let error = outcome.error else {
          return nil
        }
        return Failure(index: index, item: items[index], error: error)
      }
    }

    /// Queues `newItems` after the others, in their order; the first start at once if there is
    /// room.
    ///
    /// - Returns: `true` if they were queued, `false` if the queue is over or cancelled, in
    ///   which case nothing changed.
    @discardableResult
    public func append(contentsOf newItems: some Sequence<Item>) -> Bool {
      let newItems = Array(newItems)
      // The caller's closures before any change, in case they act on the queue.
      let labels = newItems.map(label)
      // A weight that is not a finite number of 0 or more is left to the group's weighting.
      let given = weight.map { weight in
        newItems.map { item -> Double? in
          let weight = weight(item)
          return weight.isFinite && weight >= 0 ? weight : nil
        }
      }
      guard let group, machine.append(count: newItems.count) != nil else { return false }
      // By default an item weighs 1 in a group that counts items, and in one that counts bytes
      // what the group's weighting says, its run's total: weights of 1 there would sum up to a
      // count of items shown as bytes, `21.0 kB / 21.0 kB` for 21,017 files of 244 MB.
      let weights =
        given ?? Array(repeating: group.unit.isBytes ? nil : 1, count: newItems.count)
      items.append(contentsOf: newItems)
      var members: [Member] = []
      members.reserveCapacity(newItems.count)
      for (label, weight) in zip(labels, weights) {
        // No animation: a queue's runners come and go by the thousand, and each that eased
        // its bar after its run ended would cost a frame on every frame until it settled, a
        // cost that grew with the rate of items (a queue of 100,000 no-op items took 250 µs an
        // item, 10,000 took 134).
        let runner = TaskRunner(
          animation: .instant, updateInterval: group.updateInterval, clock: group.clock)
        runner.unit = group.unit
        runners.append(runner)
        members.append(
          Member(
            runner: runner, label: label, weight: weight))
      }
      group.insertWaiting(members)
      startWhatFits()
      group.sumUpIfNeeded()
      return true
    }

    /// Takes the waiting item at `index` out of the queue and its runner out of the group: it
    /// never starts, and its outcome is `.cancelled`.
    ///
    /// - Returns: `true` if the item was waiting; `false` if it started or ended, or if there
    ///   is no such item, in which case nothing changed.
    @discardableResult
    public func remove(at index: Int) -> Bool {
      guard machine.remove(index) else { return false }
      group?.remove(runners[index])
      runners[index].cancelUnstarted()
      finishIfOver()
      group?.sumUpIfNeeded()
      return true
    }

    /// Pauses the queue's runs under way and starts no item until ``resume()``; the group's
    /// counts say so when this returns.
    ///
    /// ``TaskRunnerGroup/pauseAll()`` does this and pauses the group's other runs too.
    public func pause() {
      machine.pause()
      for index in running.sorted() {
        runners[index].pause()
      }
      group?.sumUpIfNeeded()
    }

    /// Resumes the queue's paused runs and starts items in the free places.
    ///
    /// ``TaskRunnerGroup/resumeAll()`` does this and resumes the group's other runs too.
    public func resume() {
      for index in running.sorted() {
        runners[index].resume()
      }
      machine.resume()
      startWhatFits()
      group?.sumUpIfNeeded()
    }

    /// Cancels the queue's runs under way and starts no other: the items never started end
    /// `.cancelled`, their runners too.
    ///
    /// ``TaskRunnerGroup/cancelAll()`` does this and cancels the group's other runs too.
    public func cancel() {
      guard let stop = machine.cancel() else { return }
      carryOut(stop)
      group?.sumUpIfNeeded()
    }

    /// Waits for the queue to end; returns each item's final state, in the items' order:
    /// `.finished`, `.failed(error)` or `.cancelled`.
    ///
    /// Cancelling the task that awaits this cancels the queue. It returns once every item has
    /// its final state, and the group's ``TaskRunnerGroup/counts`` and sums say so.
    public func wait() async -> [RunState] {
      if let outcomes = machine.outcomes { return outcomes }
      return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          if let outcomes = machine.outcomes {
            continuation.resume(returning: outcomes)
            return
          }
          waiters.append(continuation)
          if Task.isCancelled {
            cancel()
          }
        }
      } onCancel: {
        Task { @MainActor [weak self] in self?.cancel() }
      }
    }

    /// Queues the first items, joins the group as its queue under way, and starts what fits;
    /// or, when `cancelled`, starts nothing and ends every item cancelled.
    func begin(with items: [Item], cancelled: Bool = false) {
      group?.queue = self
      if cancelled {
        machine.pause()
      }
      append(contentsOf: items)
      if cancelled {
        cancel()
      }
      finishIfOver()
    }

    /// Starts waiting items while there is room.
    private func startWhatFits() {
      while let index = machine.startNext() {
        start(index)
      }
    }

    /// Starts the item at `index`, which the machine counts as under way.
    private func start(_ index: Int) {
      startedCount += 1
      running.insert(index)
      let (item, perform, retry) = (items[index], perform, retry)
      let runner = runners[index]
      // The runner calls back once its observers, the group first, heard of the end.
      let onEnd: @MainActor (RunState) -> Void = { [weak self] in self?.itemEnded(index, as: $0) }
      let started = runner.start(onEnd: onEnd) { reporter in
        try await retry.attempt(item, reporter: reporter, perform)
      }
      if !started {
        // A run that someone else started on the item's runner stands for the item.
        var token: ObservationToken?
        token = runner.observe { [weak self] state in
          guard state.phase.isTerminal, token != nil else { return }
          token?.cancel()
          token = nil
          self?.itemEnded(index, as: state)
        }
      }
    }

    private func itemEnded(_ index: Int, as outcome: RunState) {
      running.remove(index)
      switch machine.itemEnded(index, as: outcome) {
      case .startNext: startWhatFits()
      case .stop(let stop): carryOut(stop)
      case nil: break
      }
      finishIfOver()
    }

    /// Shows the items that will never start as cancelled, then cancels the runs under way.
    private func carryOut(_ stop: QueueStateMachine.Stop) {
      for index in stop.unstarted {
        runners[index].cancelUnstarted()
      }
      for index in stop.running {
        runners[index].cancel()
      }
      finishIfOver()
    }

    /// Once nothing is under way and nothing will start: brings the group's sums up to date, and
    /// answers the callers of ``wait()``.
    private func finishIfOver() {
      guard let final = machine.finishIfOver() else { return }
      group?.sumUpIfNeeded()
      let waiting = waiters
      waiters = []
      for waiter in waiting {
        waiter.resume(returning: final)
      }
    }
  }
}

extension TaskRunnerGroup.Queue: QueueControl {}
