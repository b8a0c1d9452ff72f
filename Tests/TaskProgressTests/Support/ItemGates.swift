import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// The work of a queue's items, each held until the test ends it, finished or failed: the test
/// decides when and how every item ends.
final class ItemGates: Sendable {
  private struct State {
    /// How each item is to end, once the test said so.
    var endings: [Int: Bool] = [:]
    /// The items waiting for the test, by index: resumed with whether they fail, or `nil` when
    /// cancelled.
    var waiters: [Int: CheckedContinuation<Bool?, Never>] = [:]
    /// The items whose task was cancelled before they waited.
    var cancelled: Set<Int> = []
    /// How many times each item's work began.
    var starts: [Int: Int] = [:]
  }

  private let state = Locked(State())

  /// The work of item `index`: counts its start, then holds until ``end(_:failing:)`` or a
  /// cancellation.
  func perform(_ index: Int) async throws {
    state.withLock { $0.starts[index, default: 0] += 1 }
    let failing = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
        let ready: Bool?? = state.withLock { state in
          if let failing = state.endings[index] { return .some(failing) }
          if state.cancelled.contains(index) { return .some(nil) }
          state.waiters[index] = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        state.cancelled.insert(index)
        return state.waiters.removeValue(forKey: index)
      }
      waiter?.resume(returning: nil)
    }
    switch failing {
    case nil: throw CancellationError()
    case true?: throw TestError(message: "item \(index) failed")
    case false?: return
    }
  }

  /// Lets item `index` end: finished, or failed with `TestError`.
  func end(_ index: Int, failing: Bool = false) {
    let waiter = state.withLock { state in
      state.endings[index] = failing
      return state.waiters.removeValue(forKey: index)
    }
    waiter?.resume(returning: failing)
  }

  /// How many times item `index`'s work began.
  func starts(_ index: Int) -> Int {
    state.withLock { $0.starts[index] ?? 0 }
  }

  /// Whether item `index`'s task was cancelled while its work held.
  func wasCancelled(_ index: Int) -> Bool {
    state.withLock { $0.cancelled.contains(index) }
  }

  /// Whether item `index`'s work is waiting for the test.
  func isWaiting(_ index: Int) -> Bool {
    state.withLock { $0.waiters[index] != nil }
  }
}
