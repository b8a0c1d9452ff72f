/// The rules of a group's queue, as a plain value that tests drive without a main actor: which
/// items start, when, and how each one ends.
///
/// The machine knows items by their index, in the order they were queued. Each event rewrites
/// the state and returns what the queue then does: the items to start, or the items to stop. It
/// starts and cancels nothing itself.
struct QueueStateMachine: Sendable {
  /// Where an item is.
  enum Item: Sendable {
    /// Queued, not started.
    case waiting
    /// Started, not ended.
    case running
    /// Ended, with its outcome: `.finished`, `.failed` or `.cancelled`.
    case ended(RunState)
  }

  /// What the queue does to stop: a cancel, or a failure under
  /// ``TaskRunnerGroup/FailurePolicy/stop``.
  struct Stop: Sendable {
    /// The items that were waiting, now ended `.cancelled`: their runners must show it.
    let unstarted: [Int]
    /// The items under way, to cancel; each ends through ``QueueStateMachine/itemEnded(_:as:)``.
    let running: [Int]
  }

  /// What the queue does after an item ended.
  enum ItemEndedAction: Sendable {
    /// Start waiting items in the freed place, with ``QueueStateMachine/startNext()``.
    case startNext
    /// The item failed and the queue stops.
    case stop(Stop)
  }

  /// The items, by index.
  private(set) var items: [Item] = []
  /// No item before this index waits: where the search for the next item to start begins.
  private var nextWaiting = 0
  /// How many items wait.
  private(set) var waitingCount = 0
  /// How many items are under way.
  private(set) var runningCount = 0
  /// The most items under way at once, 1 or more.
  let maxConcurrency: Int
  /// Whether the first failure stops the queue.
  let stopsOnFailure: Bool
  /// Whether the queue is held: it starts nothing until resumed.
  private(set) var isPaused = false
  /// Whether the queue was cancelled, or stopped by a failure: it starts nothing any more.
  private(set) var isStopped = false

  /// A queue of `count` waiting items that starts nothing yet.
  ///
  /// - Parameters:
  ///   - count: The number of items.
  ///   - maxConcurrency: The most items under way at once; values below 1 mean 1.
  ///   - stopsOnFailure: Whether the first failure stops the queue.
  init(count: Int, maxConcurrency: Int, stopsOnFailure: Bool) {
    self.maxConcurrency = max(maxConcurrency, 1)
    self.stopsOnFailure = stopsOnFailure
    items = Array(repeating: .waiting, count: max(count, 0))
    waitingCount = items.count
  }

  /// Whether the queue is over: nothing is under way and nothing will start.
  var isOver: Bool {
    runningCount == 0 && (waitingCount == 0 || isStopped)
  }

  /// The items' outcomes in order, once ``finishIfOver()`` found the queue over; `nil` before.
  private(set) var outcomes: [RunState]?

  /// Ends the queue if it is over, so that it takes no more items.
  ///
  /// - Returns: The items' outcomes in order, the first time it finds the queue over; `nil`
  ///   otherwise.
  mutating func finishIfOver() -> [RunState]? {
    guard outcomes == nil, isOver else { return nil }
    let final = items.map { item in
      if case .ended(let outcome) = item { outcome } else { RunState.cancelled }
    }
    outcomes = final
    return final
  }

  /// The next item to start, under way when this returns; `nil` when there is no room, none
  /// waits, or the queue is held or stopped.
  ///
  /// One at a time, so that what the start of one does to the queue (a pause, a cancel, from an
  /// observer of its runner) holds for the next.
  mutating func startNext() -> Int? {
    guard !isPaused, !isStopped, runningCount < maxConcurrency, waitingCount > 0 else {
      return nil
    }
    while nextWaiting < items.count {
      let index = nextWaiting
      nextWaiting += 1
      if case .waiting = items[index] {
        items[index] = .running
        waitingCount -= 1
        runningCount += 1
        return index
      }
    }
    return nil
  }

  /// Queues `count` more items: the first ones too.
  ///
  /// - Returns: The new items' indices, or `nil` when the queue was stopped or finished and
  ///   takes no more.
  mutating func append(count: Int) -> Range<Int>? {
    guard !isStopped, outcomes == nil else { return nil }
    let added = items.count..<items.count + max(count, 0)
    items.append(contentsOf: repeatElement(.waiting, count: added.count))
    waitingCount += added.count
    return added
  }

  /// Takes a waiting item out of the queue: it never starts and ends `.cancelled`.
  ///
  /// - Returns: Whether it was waiting; `false` for an item started, ended or not in the queue.
  mutating func remove(_ index: Int) -> Bool {
    guard items.indices.contains(index), case .waiting = items[index] else { return false }
    items[index] = .ended(.cancelled)
    waitingCount -= 1
    return true
  }

  /// An item under way ended.
  ///
  /// - Parameters:
  ///   - index: The item.
  ///   - outcome: How it ended: `.finished`, `.failed` or `.cancelled`.
  /// - Returns: What the queue does next, or `nil` when the item was not under way.
  mutating func itemEnded(_ index: Int, as outcome: RunState) -> ItemEndedAction? {
    guard items.indices.contains(index), case .running = items[index] else { return nil }
    items[index] = .ended(outcome)
    runningCount -= 1
    if stopsOnFailure, outcome.phase == .failed, let stop = stop() {
      return .stop(stop)
    }
    return .startNext
  }

  /// Holds the queue: it starts nothing until ``resume()``.
  mutating func pause() {
    isPaused = true
  }

  /// Lets the held queue go on: ``startNext()`` starts items again.
  mutating func resume() {
    isPaused = false
  }

  /// Stops the queue: the waiting items end `.cancelled`, the items under way are to be
  /// cancelled, and nothing starts any more.
  ///
  /// - Returns: What to stop, or `nil` when the queue was stopped already or is over.
  mutating func cancel() -> Stop? {
    guard !isOver else { return nil }
    return stop()
  }

  private mutating func stop() -> Stop? {
    guard !isStopped else { return nil }
    isStopped = true
    var unstarted: [Int] = []
    var running: [Int] = []
    for index in items.indices {
      switch items[index] {
      case .waiting:
        items[index] = .ended(.cancelled)
        unstarted.append(index)
      case .running:
        running.append(index)
      case .ended:
        break
      }
    }
    waitingCount = 0
    return Stop(unstarted: unstarted, running: running)
  }
}
