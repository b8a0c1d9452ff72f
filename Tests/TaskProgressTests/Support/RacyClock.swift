@testable import TaskProgress

/// A clock with ContinuousClock's race made reproducible: a sleeper whose timer has fired
/// (`fire(advancing:)`) resumes normally even if its task is cancelled before it runs, while a
/// sleeper cancelled before its timer fires throws.
final class RacyClock: Clock, Sendable {
  typealias Instant = ManualClock.Instant

  private struct State {
    var now = Instant()
    var pending: [Int: CheckedContinuation<Void, any Error>] = [:]
    var lastID = 0
  }

  private let state = Locked(State())

  var now: Instant { state.withLock { $0.now } }
  var minimumResolution: Duration { .zero }
  /// The sleepers waiting for the timer.
  var pendingCount: Int { state.withLock { $0.pending.count } }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let id = state.withLock { state in
      state.lastID += 1
      return state.lastID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        state.withLock { $0.pending[id] = continuation }
      }
    } onCancel: {
      state.withLock { $0.pending.removeValue(forKey: id) }?.resume(throwing: CancellationError())
    }
  }

  /// The timer fires: time moves by `step` and every sleeper is resumed (its job is enqueued).
  func fire(advancing step: Duration) {
    let sleepers = state.withLock { state in
      state.now = state.now.advanced(by: step)
      defer { state.pending = [:] }
      return Array(state.pending.values)
    }
    for sleeper in sleepers { sleeper.resume() }
  }
}
