import Dispatch
package import TaskProgress
package import Testing

/// How long a test waits for anything before it calls the wait a failure: 10 seconds, and 2
/// minutes under ThreadSanitizer, whose suites have four times the time limit
/// (``TestScale/timeLimit(minutes:)``, at least 4 minutes).
///
/// What tests wait for takes microseconds on a quiet machine, and on a loaded one (every suite in
/// parallel on two cores, beside a CPU hog on each, as `Scripts/stress-tests.sh` runs them) a
/// task may wait seconds for its turn on the main actor or the pool: a run of ten frames once took
/// more than 5. The sanitizer makes every job several times slower still: with a hog on each
/// core, the whole suite took 115 to 182 s, and a main-actor task that was only to take its first
/// state waited more than 60 s for its turns. Both limits are well
/// under the suites' time limits, so that the issue recorded names what never happened, and the
/// test goes on to its own assertions, instead of ending at its time limit with no word of where
/// it stood. A test that can see a bug without waiting for it to time out does so: a
/// `checkpoint()` that does not wait while paused is an issue the moment it returns.
package let waitLimit: Duration = TestScale.isSanitized ? .seconds(120) : .seconds(10)

/// Polls `condition` until it holds, for at most `limit`; returns whether it held.
///
/// Between two tries the task sleeps, 1 ms at first and twice as long each time up to 20 ms,
/// so that a wait gives the main actor and the pool's threads to the work it waits for instead
/// of spinning on them. Past `limit`, or when the test's task is cancelled, it records an issue
/// that says what it waited for.
///
/// `what` says what the wait is for, as the issue says it: "1 task to wait at a checkpoint".
/// `condition` is read on the caller's actor, as many times as it takes. Use it for facts that
/// nothing announces, such as the number of tasks waiting at a paused run's checkpoints; wait
/// for an event with ``Latch/wait(for:within:isolation:sourceLocation:)``.
@discardableResult
package func waitUntil(
  _ what: @autoclosure () -> String,
  within limit: Duration = waitLimit,
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now + limit
  var pause = Duration.milliseconds(1)
  while !condition(), clock.now < deadline, !Task.isCancelled {
    // A bounded poll: the sleep ends at the deadline at the latest.
    try? await clock.sleep(until: min(clock.now + pause, deadline))
    pause = min(pause * 2, .milliseconds(20))
  }
  if condition() { return true }
  recordTimeout(waitingFor: what(), after: limit, sourceLocation: sourceLocation)
  return false
}

/// Records that a wait for `what` ended unfulfilled: at its limit, or because the test's task
/// was cancelled (at the test's time limit) first.
package func recordTimeout(
  waitingFor what: String, after limit: Duration, sourceLocation: SourceLocation
) {
  if Task.isCancelled {
    Issue.record("cancelled while waiting for \(what)", sourceLocation: sourceLocation)
  } else {
    Issue.record(
      "timed out after \(describe(limit)) waiting for \(what)", sourceLocation: sourceLocation)
  }
}

/// A duration as a short figure: "5 s", "250 ms".
private func describe(_ duration: Duration) -> String {
  let milliseconds = duration / .milliseconds(1)
  if milliseconds >= 1_000, milliseconds.truncatingRemainder(dividingBy: 1_000) == 0 {
    return "\(Int(milliseconds / 1_000)) s"
  }
  return "\(Int(milliseconds.rounded())) ms"
}

/// Runs `wait` in a task of its own for at most `limit`; returns what it returned, or `nil`
/// past `limit`, when it records an issue that says what it waited for.
///
/// `wait` must end when its task is cancelled, as ``Latch/wait()`` and
/// ``StateRecorder/waitForTerminalState()`` do: that is how it is stopped at the limit.
package func withDeadline<Value: Sendable>(
  waitingFor what: @autoclosure () -> String,
  within limit: Duration = waitLimit,
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ wait: @escaping @Sendable () async -> Value?
) async -> Value? {
  let outcome = await withTaskGroup(of: Value?.self) { group in
    group.addTask { await wait() }
    group.addTask {
      let clock = ContinuousClock()
      // Not a sleep that decides a result: the deadline of the wait beside it.
      try? await clock.sleep(until: clock.now + limit)
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
  if outcome == nil {
    recordTimeout(waitingFor: what(), after: limit, sourceLocation: sourceLocation)
  }
  return outcome
}

extension StateRecorder {
  /// Waits until a finished, failed or cancelled state is recorded, as
  /// ``StateRecorder/waitForTerminalState()`` does, for at most `limit`; returns it, or `nil`
  /// past `limit`, when it records an issue.
  @discardableResult
  package func waitForEnd(
    within limit: Duration = waitLimit, sourceLocation: SourceLocation = #_sourceLocation
  ) async -> RunState? {
    await withDeadline(
      waitingFor:
        "the run to end (\(states.count) states so far, the last \(states.last.map { "\($0)" } ?? "none"))",
      within: limit, sourceLocation: sourceLocation
    ) { await self.waitForTerminalState() }
  }
}

/// Waits for each of `tasks` to end and returns their values, in their order; cancelling the
/// task that waits cancels them all, so that nothing they do outlives the test.
///
/// Bound it with ``withDeadline(waitingFor:within:isolation:sourceLocation:_:)``, which cancels
/// the wait, and so the tasks, past its limit.
@discardableResult
package func awaitAll<Value: Sendable>(_ tasks: [Task<Value, Never>]) async -> [Value] {
  await withTaskCancellationHandler {
    var values: [Value] = []
    for task in tasks {
      values.append(await task.value)
    }
    return values
  } onCancel: {
    for task in tasks { task.cancel() }
  }
}

/// Gives other tasks about a millisecond of real time: what a loop that polls or drives a manual
/// clock does between two tries.
///
/// `Task.yield()` in such a loop keeps its thread, the main actor's or one of the pool's, busy
/// with the loop: on a 2-core machine that starves the very work the loop waits for.
package func letOthersRun() async {
  let clock = ContinuousClock()
  // A poll's pause, bounded: it never decides a result.
  try? await clock.sleep(until: clock.now + .milliseconds(1))
}

extension ManualClock {
  /// Advances the clock by `step` at a time, letting other tasks run between two steps, until
  /// `condition` holds, for at most `limit` of real time; returns whether it held.
  ///
  /// Past `limit`, or when the test's task is cancelled first, it records an issue that says
  /// what it waited for.
  @MainActor
  @discardableResult
  package func advance(
    by step: Duration, until what: @autoclosure () -> String, within limit: Duration = waitLimit,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
  ) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while !condition(), clock.now < deadline, !Task.isCancelled {
      advance(by: step)
      await letOthersRun()
    }
    if condition() { return true }
    recordTimeout(waitingFor: what(), after: limit, sourceLocation: sourceLocation)
    return false
  }
}

/// Calls each registered action once its deadline has passed, unless it was withdrawn first:
/// the deadline of waits that happen thousands of times in a test, where a task or a timer per
/// wait would cost more than the wait.
///
/// While any action is registered, a dispatch timer checks the deadlines 20 times a second, so
/// an action runs up to 50 ms late.
package final class Watchdog: Sendable {
  /// The watchdog that every wait shares.
  package static let shared = Watchdog()

  private struct State {
    var lastID = 0
    var actions: [Int: (deadline: ContinuousClock.Instant, action: @Sendable () -> Void)] = [:]
    var isChecking = false
  }

  private let state = Locked(State())

  /// Calls `action` once `limit` has passed, unless ``withdraw(_:)`` withdraws it first;
  /// returns the id to withdraw it with.
  package func schedule(after limit: Duration, _ action: @escaping @Sendable () -> Void) -> Int {
    let deadline = ContinuousClock.now + limit
    let (id, startsChecking) = state.withLock { state in
      state.lastID += 1
      state.actions[state.lastID] = (deadline, action)
      defer { state.isChecking = true }
      return (state.lastID, !state.isChecking)
    }
    if startsChecking { checkLater() }
    return id
  }

  /// Withdraws an action that has not run.
  package func withdraw(_ id: Int) {
    _ = state.withLock { $0.actions.removeValue(forKey: id) }
  }

  private func checkLater() {
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in
      let now = ContinuousClock.now
      let (due, goesOn) = state.withLock { state in
        let due = state.actions.filter { $0.value.deadline <= now }
        for id in due.keys { state.actions[id] = nil }
        state.isChecking = !state.actions.isEmpty
        return (due.values.map(\.action), state.isChecking)
      }
      for action in due { action() }
      if goesOn { checkLater() }
    }
  }
}
