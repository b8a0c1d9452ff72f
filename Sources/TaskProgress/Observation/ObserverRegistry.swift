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
  private final class Entry {
    let flag: CancellationFlag
    let callback: @MainActor (Event) -> Void
    var lastSeen: UInt64

    init(flag: CancellationFlag, callback: @escaping @MainActor (Event) -> Void, lastSeen: UInt64) {
      self.flag = flag
      self.callback = callback
      self.lastSeen = lastSeen
    }
  }

  private var entries: [Entry] = []
  private var queue: [(sequence: UInt64, event: Event)] = []
  private var lastSequence: UInt64 = 0
  private var isDelivering = false

  /// The number of live observers.
  var count: Int {
    entries.count { !$0.flag.isCancelled }
  }

  /// Registers an observer and calls it at once with `initial`, before returning its token.
  func add(
    initial: Event, _ callback: @escaping @MainActor (Event) -> Void
  ) -> ObservationToken {
    prune()
    let flag = CancellationFlag()
    let entry = Entry(flag: flag, callback: callback, lastSeen: lastSequence)
    entries.append(entry)
    let token = ObservationToken(flag: flag) { [weak self] in
      // Drop the closure soon, wherever the token was cancelled; calls already stop at the flag.
      Task { @MainActor in self?.prune() }
    }
    if isDelivering {
      callback(initial)
    } else {
      isDelivering = true
      callback(initial)
      isDelivering = false
      drain()
    }
    return token
  }

  /// Delivers an event to every observer, now or, when called from a callback, after the round.
  func publish(_ event: Event) {
    publish(contentsOf: [event])
  }

  /// Queues all the events, then delivers them in order, now or after the current round.
  func publish(contentsOf events: [Event]) {
    for event in events {
      lastSequence += 1
      queue.append((lastSequence, event))
    }
    if !isDelivering {
      drain()
    }
  }

  private func drain() {
    isDelivering = true
    var next = 0
    while next < queue.count {
      let (sequence, event) = queue[next]
      next += 1
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
    queue.removeAll(keepingCapacity: true)
    isDelivering = false
    prune()
  }

  private func prune() {
    guard !isDelivering else { return }
    entries.removeAll { $0.flag.isCancelled }
  }
}
