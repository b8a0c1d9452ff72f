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
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var cancelledEarly: Set<Int> = []
  }

  private let state = Locked(State())

  /// Opens the latch and resumes everyone waiting.
  package func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Whether the latch is open.
  package var isOpen: Bool { state.withLock { $0.isOpen } }

  /// Suspends until the latch opens or the task is cancelled.
  package func wait() async {
    let id = state.withLock { state in
      state.lastID += 1
      return state.lastID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let resumeNow = state.withLock { state in
          if state.isOpen || state.cancelledEarly.remove(id) != nil { return true }
          state.waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        guard let waiter = state.waiters.removeValue(forKey: id) else {
          state.cancelledEarly.insert(id)
          return nil as CheckedContinuation<Void, Never>?
        }
        return waiter
      }
      waiter?.resume()
    }
  }

  /// Suspends until the latch opens, for at most `limit`; returns whether it opened.
  ///
  /// Past `limit`, or when the task is cancelled first, it records an issue that says what it
  /// waited for: `what`, such as "the operation to start".
  @discardableResult
  package func wait(
    for what: @autoclosure () -> String, within limit: Duration = waitLimit,
    isolation: isolated (any Actor)? = #isolation, sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Bool {
    if isOpen { return true }
    _ = await withDeadline(waitingFor: what(), within: limit, sourceLocation: sourceLocation) {
      await self.wait()
      return self.isOpen ? true : nil
    }
    return isOpen
  }
}
