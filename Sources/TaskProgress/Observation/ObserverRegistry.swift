import Synchronization

/// The observers of one runner, and the queue that gives all of them the same sequence of events.
///
/// Events are delivered in rounds: every observer gets an event before any observer gets the
/// next. An event published from inside a callback (an observer that starts, cancels or resets
/// the runner) is queued and delivered after the current round, so no observer sees the sequence
/// out of order and none is called re-entrantly. Each event has a sequence number and each
/// observer remembers the last one it saw, so an observer added mid-round starts from the
/// current state and never sees an older event afterwards.
@MainActor
final class ObserverRegistry<Event> {
  @MainActor
  private final class Entry {
    let flag: CancellationFlag
    let callback: @MainActor (Event) -> Void
    /// Whether the observer wants every event, frames included, or only changes of state.
    let wantsFrames: Bool
    /// Called once when the entry is removed: its token was cancelled or the registry closed.
    var onDetach: (@MainActor () -> Void)?
    var lastSeen: UInt64

    init(
      flag: CancellationFlag, callback: @escaping @MainActor (Event) -> Void, wantsFrames: Bool,
      onDetach: (@MainActor () -> Void)?, lastSeen: UInt64
    ) {
      self.flag = flag
      self.callback = callback
      self.wantsFrames = wantsFrames
      self.onDetach = onDetach
      self.lastSeen = lastSeen
    }

    func detach() {
      let onDetach = self.onDetach
      self.onDetach = nil
      onDetach?()
    }
  }

  private var entries: [Entry] = []
  private var queue: [(sequence: UInt64, event: Event)] = []
  private var lastSequence: UInt64 = 0
  private var isDelivering = false
  /// Set when a token is cancelled, on whatever thread: its entry must go at the next pruning.
  private let cancellations = PendingFlag()
  /// What waits for the round under way to end.
  private var afterRoundActions: [@MainActor () -> Void] = []

  /// Whether no observer is registered, or only cancelled ones: then there is no one to tell.
  var isEmpty: Bool {
    entries.isEmpty
  }

  /// The number of registered observers that want frames, cancelled ones not yet removed among
  /// them.
  private var frameListenerCount = 0

  /// Whether an observer that wants frames is registered: if not, nobody needs one made.
  var hasFrameListeners: Bool {
    frameListenerCount > 0
  }

  /// The number of live observers.
  var count: Int {
    entries.count { !$0.flag.isCancelled }
  }

  /// Registers an observer and calls it at once with `initial`, before returning its token.
  ///
  /// - Parameters:
  ///   - initial: The event the observer gets at once: the current state.
  ///   - cancelsOnRelease: Whether releasing the token ends the registration, or only cancelling it.
  ///   - wantsFrames: Whether the observer wants frames, or only the changes of state, in which
  ///     case the publisher need not make frames for it.
  ///   - onDetach: Called once on the main actor when the registration ends.
  ///   - callback: The observer.
  /// - Returns: The registration's token.
  func add(
    initial: Event, cancelsOnRelease: Bool = true, wantsFrames: Bool = true,
    onDetach: (@MainActor () -> Void)? = nil, _ callback: @escaping @MainActor (Event) -> Void
  ) -> ObservationToken {
    add(
      initialEvents: CollectionOfOne(initial), cancelsOnRelease: cancelsOnRelease,
      wantsFrames: wantsFrames, onDetach: onDetach, callback)
  }

  /// Registers an observer and calls it at once with each of `initialEvents`, in order, before
  /// returning its token.
  func add(
    initialEvents: some Sequence<Event>, cancelsOnRelease: Bool = true, wantsFrames: Bool = true,
    onDetach: (@MainActor () -> Void)? = nil, _ callback: @escaping @MainActor (Event) -> Void
  ) -> ObservationToken {
    // No pruning here: a cancelled entry asks for it itself, and every round of delivery prunes
    // when it ends, so that adding n observers costs O(n), not O(n²).
    let flag = CancellationFlag()
    let entry = Entry(
      flag: flag, callback: callback, wantsFrames: wantsFrames, onDetach: onDetach,
      lastSeen: lastSequence)
    entries.append(entry)
    if wantsFrames {
      frameListenerCount += 1
    }
    let cancellations = self.cancellations
    let token = ObservationToken(flag: flag, cancelsOnRelease: cancelsOnRelease) {
      [weak self] onMainActor in
      // Calls already stop at the flag; the entry goes, and its renderer hears of it, on the
      // main actor: now if the token was cancelled there, else soon.
      cancellations.set()
      if onMainActor {
        MainActor.assumeIsolated { self?.prune() }
      } else {
        Task { @MainActor in self?.prune() }
      }
    }
    let wasDelivering = isDelivering
    isDelivering = true
    for event in initialEvents {
      callback(event)
    }
    isDelivering = wasDelivering
    // Only what the initial events' callbacks published or left to do: an empty round would
    // prune, a walk over every entry.
    if !wasDelivering, !queue.isEmpty || !afterRoundActions.isEmpty {
      deliver(first: nil)
    }
    return token
  }

  /// Delivers an event to every observer, now or, when called from a callback, after the round.
  func publish(_ event: Event) {
    lastSequence += 1
    if isDelivering {
      queue.append((lastSequence, event))
    } else {
      // Outside a round the queue is empty: the event goes straight to the observers.
      deliver(first: (lastSequence, event))
    }
  }

  /// Delivers two events, in order, to every observer, now or, when called from a callback,
  /// after the round; what the first one's observers publish comes after the second.
  ///
  /// Outside a round neither goes through the queue: a run's end publishes its last report and
  /// its outcome, on a runner whose queue, new for a queue's item, would grow for them.
  func publish(_ first: Event, then second: Event) {
    lastSequence += 2
    if isDelivering {
      queue.append((lastSequence - 1, first))
      queue.append((lastSequence, second))
    } else {
      deliver(first: (lastSequence - 1, first), then: (lastSequence, second))
    }
  }

  /// Calls `action` once every observer has had every event published so far: now, or, when
  /// called from a callback, once the round under way has ended.
  func afterRound(_ action: @escaping @MainActor () -> Void) {
    if isDelivering {
      afterRoundActions.append(action)
    } else {
      action()
    }
  }

  /// Ends every registration, telling each renderer it is detached.
  func close() {
    let open = entries
    entries = []
    frameListenerCount = 0
    for entry in open {
      _ = entry.flag.cancel()
      entry.detach()
    }
  }

  /// Delivers `first`, if any, then `second`, if any, then every queued event, in rounds, then
  /// prunes and runs what waited for the rounds to end.
  private func deliver(
    first: (sequence: UInt64, event: Event)?, then second: (sequence: UInt64, event: Event)? = nil
  ) {
    isDelivering = true
    if let first {
      deliverRound(first.event, sequence: first.sequence)
    }
    if let second {
      deliverRound(second.event, sequence: second.sequence)
    }
    var next = 0
    while next < queue.count {
      let (sequence, event) = queue[next]
      next += 1
      deliverRound(event, sequence: sequence)
    }
    if !queue.isEmpty {
      queue.removeAll(keepingCapacity: true)
    }
    isDelivering = false
    prune()
    while !afterRoundActions.isEmpty, !isDelivering {
      afterRoundActions.removeFirst()()
    }
  }

  /// Gives one event to every observer that has not seen it.
  private func deliverRound(_ event: Event, sequence: UInt64) {
    // Observers added during this round are in `entries` already but have seen `sequence`.
    var index = 0
    while index < entries.count {
      let entry = entries[index]
      index += 1
      guard !entry.flag.isCancelled, entry.lastSeen < sequence else { continue }
      entry.lastSeen = sequence
      entry.callback(event)
    }
  }

  /// Removes cancelled entries and tells their renderers, unless a round is being delivered (the
  /// round prunes when it ends) or no entry was cancelled since the last pruning.
  private func prune() {
    guard !isDelivering, cancellations.take() else { return }
    var removed: [Entry] = []
    entries.removeAll { entry in
      guard entry.flag.isCancelled else { return false }
      if entry.wantsFrames {
        frameListenerCount -= 1
      }
      removed.append(entry)
      return true
    }
    for entry in removed {
      entry.detach()
    }
  }
}

/// A flag set from any thread and taken on the main actor: whether a registration ended since the
/// registry last pruned, so that a round of delivery walks its entries only when one must go.
private final class PendingFlag: Sendable {
  private let value = Atomic(false)

  /// Raises the flag.
  func set() {
    value.store(true, ordering: .releasing)
  }

  /// Lowers the flag; returns whether it was raised.
  func take() -> Bool {
    value.load(ordering: .acquiring) && value.exchange(false, ordering: .acquiringAndReleasing)
  }
}
