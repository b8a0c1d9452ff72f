import TaskProgress
package import Testing

/// A one-shot signal between an operation and a test.
///
/// `open()` from anywhere; `wait()` until it is open. A waiter whose task is cancelled stops
/// waiting, so a cancelled operation never hangs. A test waits with
/// ``wait(for:within:isolation:sourceLocation:)``, which gives up after a few seconds with an issue that
/// says what never happened; an operation that holds until the test lets it go, or until it is
/// cancelled, waits with ``wait()``.
package final class Latch: Sendable {
  /// Creates a closed latch.
  package init() {}

  private struct State {
    var isOpen = false
    var lastID = 0
    /// Each waiter, resumed with `true` when the latch opens, `false` when it stops waiting
    /// first (cancelled, or past its limit).
    var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    /// Waiters that stopped before they stored their continuation.
    var stoppedEarly: Set<Int> = []
  }

  private let state = Locked(State())

  /// Opens the latch and resumes everyone waiting.
  package func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume(returning: true) }
  }

  /// Whether the latch is open.
  package var isOpen: Bool { state.withLock { $0.isOpen } }

  /// Suspends until the latch opens or the task is cancelled.
  package func wait() async {
    _ = await wait(id: makeID())
  }

  /// Suspends until the latch opens, for at most `limit`; returns whether it opened.
  ///
  /// Past `limit`, or when the task is cancelled first, it records an issue that says what it
  /// waited for: `what`, such as "the operation to start". The ``Watchdog`` keeps the limit, not
  /// a task or a timer of its own: a test may wait on thousands of latches.
  @discardableResult
  package func wait(
    for what: @autoclosure () -> String, within limit: Duration = waitLimit,
    isolation: isolated (any Actor)? = #isolation, sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Bool {
    if isOpen { return true }
    let id = makeID()
    let deadline = Watchdog.shared.schedule(after: limit) { [self] in stop(id) }
    let opened = await wait(id: id)
    Watchdog.shared.withdraw(deadline)
    if !opened {
      recordTimeout(waitingFor: what(), after: limit, sourceLocation: sourceLocation)
    }
    return opened
  }

  private func makeID() -> Int {
    state.withLock { state in
      state.lastID += 1
      return state.lastID
    }
  }

  /// Suspends waiter `id` until the latch opens (`true`), or the task is cancelled or
  /// ``stop(_:)`` stops it (`false`).
  private func wait(id: Int) async -> Bool {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let outcome: Bool? = state.withLock { state in
          if state.isOpen { return true }
          if state.stoppedEarly.remove(id) != nil { return false }
          state.waiters[id] = continuation
          return nil
        }
        if let outcome { continuation.resume(returning: outcome) }
      }
    } onCancel: {
      stop(id)
    }
  }

  /// Stops waiter `id` unless the latch opened first.
  private func stop(_ id: Int) {
    let waiter = state.withLock { state in
      guard let waiter = state.waiters.removeValue(forKey: id) else {
        if !state.isOpen { state.stoppedEarly.insert(id) }
        return nil as CheckedContinuation<Bool, Never>?
      }
      return waiter
    }
    waiter?.resume(returning: false)
  }
}
