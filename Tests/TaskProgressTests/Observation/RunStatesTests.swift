import Observation
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// `runner.states`: the runner's states as an asynchronous sequence.
@MainActor
@Suite("Run states", .timeLimit(TestScale.timeLimit(minutes: 2)))
struct RunStatesTests {
  /// Keeps what a consumer task got, for the test to read while the task runs.
  final class Log {
    var states: [RunState] = []
    var hasEnded = false
  }

  /// Iterates `states` on the main actor in a task of its own, logging each state, until the
  /// sequence ends; the task returns everything it got.
  private func consume(
    _ states: some AsyncSequence<RunState, Never> & Sendable, into log: Log
  ) -> Task<[RunState], Never> {
    Task { @MainActor in
      for await state in states {
        log.states.append(state)
      }
      log.hasEnded = true
      return log.states
    }
  }

  /// What a consumer that took nothing while `states` were published finds waiting: each state
  /// appended, except that a progress replaces a waiting progress of the same phase.
  static func coalesced(_ states: [RunState]) -> [RunState] {
    var waiting: [RunState] = []
    for state in states {
      if let last = waiting.last, last.phase == state.phase, state.phase.carriesProgress {
        waiting[waiting.count - 1] = state
      } else {
        waiting.append(state)
      }
    }
    return waiting
  }

  /// Whether `consumed` is what a consumer may get from the `published` states: all of them in
  /// order, except progress states followed by a progress of the same phase, which it may skip.
  static func mayConsume(_ consumed: [RunState], from published: [RunState]) -> Bool {
    var index = 0
    for state in consumed {
      while index < published.count, published[index] != state {
        let skippable =
          published[index].phase.carriesProgress && index + 1 < published.count
          && published[index + 1].phase == published[index].phase
        guard skippable else { return false }
        index += 1
      }
      guard index < published.count else { return false }
      index += 1
    }
    return index == published.count
  }

  // MARK: - Whole sequences

  @Test func aConsumerThatKeepsUpGetsEveryStateOfARunWithReports() async {
    let harness = Harness()
    let runner = harness.runner
    var states = runner.stateSequence.makeAsyncIterator()
    #expect(await states.take(1) == [.idle])
    let reached = (0..<2).map { _ in Latch() }
    let proceed = (0..<2).map { _ in Latch() }
    runner.start { reporter in
      for index in 0..<2 {
        reporter.report(completed: index + 1, of: 3)
        reached[index].open()
        await proceed[index].wait()
      }
      reporter.report(completed: 3, of: 3)  // no frame reads it: it arrives with the end
    }
    #expect(await states.take(1) == [.running(0)])
    for index in 0..<2 {
      await reached[index].wait(for: "report \(index + 1) of the operation")
      harness.clock.advance(by: frame)
      #expect(await states.take(1) == [.running(RunProgress(completed: index + 1, of: 3))])
      proceed[index].open()
    }
    await harness.recorder.waitForEnd()
    #expect(await states.take(2) == [.running(RunProgress(completed: 3, of: 3)), .finished])
    let expected: [RunState] = [
      .idle, .running(0), .running(RunProgress(completed: 1, of: 3)),
      .running(RunProgress(completed: 2, of: 3)), .running(RunProgress(completed: 3, of: 3)),
      .finished,
    ]
    #expect(harness.recorder.states == expected)
  }

  @Test func aResetWhileRunningGivesCancelledThenIdle() async {
    let harness = Harness()
    let runner = harness.runner
    var states = runner.stateSequence.makeAsyncIterator()
    #expect(await states.take(1) == [.idle])
    runner.start { _ in await Latch().wait() }
    #expect(await states.take(1) == [.running(0)])
    runner.reset()
    #expect(await states.take(2) == [.cancelled, .idle])
    #expect(harness.recorder.states == [.idle, .running(0), .cancelled, .idle])
  }

  @Test func aConsumerThatLagsGetsTheLatestProgressOfEachStretchAndEveryTransition() async {
    let clock = ManualClock()
    var runner: TaskRunner? = TaskRunner(animation: .instant, clock: clock)
    let recorder = StateRecorder(observing: runner!)
    var states = runner!.stateSequence.makeAsyncIterator()
    #expect(await states.take(1) == [.idle])  // registered; nothing more is taken until the end

    // A run with three reports, each read by a frame, that finishes.
    let reached = (0..<3).map { _ in Latch() }
    let proceed = (0..<3).map { _ in Latch() }
    runner!.start { reporter in
      for index in 0..<3 {
        reporter.report(fractionCompleted: 0.25 * Double(index + 1))
        reached[index].open()
        await proceed[index].wait()
      }
    }
    for index in 0..<3 {
      await reached[index].wait(for: "report \(index + 1) of the operation")
      clock.advance(by: frame)
      proceed[index].open()
    }
    await recorder.waitForEnd()
    runner!.reset()
    // A run that reports, then is cancelled.
    let reported = Latch()
    runner!.start { reporter in
      reporter.report(completed: 1, of: 4)
      reported.open()
      await Latch().wait()
    }
    await reported.wait(for: "the operation to report")
    clock.advance(by: frame)
    runner!.cancel()
    // A run that fails after a report the runner reads as it ends.
    _ = await runner!.run { reporter in
      reporter.report(completed: 3, of: 4)
      throw TestError()
    }
    let published = Array(recorder.states.dropFirst())
    runner = nil

    let consumed = await states.takeAll()
    #expect(
      consumed == [
        .running(0.75), .finished, .idle, .running(RunProgress(completed: 1, of: 4)), .cancelled,
        .running(RunProgress(completed: 3, of: 4)), .failed(TestError()),
      ])
    #expect(consumed == Self.coalesced(published))
    #expect(published.count == 12)
  }

  @Test func twoIteratorsEachGetEveryTransition() async {
    let clock = ManualClock()
    var runner: TaskRunner? = TaskRunner(animation: .instant, clock: clock)
    let recorder = StateRecorder(observing: runner!)
    let (firstLog, secondLog) = (Log(), Log())
    let first = consume(runner!.states, into: firstLog)
    let second = consume(runner!.states, into: secondLog)
    await waitUntil("both consumers to take the first state") {
      !firstLog.states.isEmpty && !secondLog.states.isEmpty
    }
    _ = await runner!.run { _ in }
    runner!.reset()
    _ = await runner!.run { _ in throw TestError() }
    runner!.start { _ in await Latch().wait() }
    runner!.cancel()
    runner!.start { _ in await Latch().wait() }
    runner = nil  // cancels the active run
    let expected: [RunState] = [
      .idle, .running(0), .finished, .idle, .running(0), .failed(TestError()), .running(0),
      .cancelled, .running(0), .cancelled,
    ]
    #expect(recorder.states == expected)
    #expect(await first.value == expected)
    #expect(await second.value == expected)
  }

  @Test func cancellingOneIteratorsTaskLeavesTheOtherIterating() async {
    let harness = Harness()
    let (cancelledLog, keptLog) = (Log(), Log())
    let cancelled = consume(harness.runner.states, into: cancelledLog)
    let kept = consume(harness.runner.states, into: keptLog)
    await waitUntil("both consumers to take the first state") {
      !cancelledLog.states.isEmpty && !keptLog.states.isEmpty
    }
    cancelled.cancel()
    #expect(await cancelled.value == [.idle])
    _ = await harness.runner.run { _ in }
    await waitUntil("the consumer left to take 3 states") { keptLog.states.count == 3 }
    #expect(keptLog.states == [.idle, .running(0), .finished])
    #expect(!keptLog.hasEnded)
    kept.cancel()
    #expect(await kept.value == [.idle, .running(0), .finished])
  }

  // MARK: - Ending

  @Test func releasingTheRunnerEndsTheSequenceAfterTheCancelledState() async {
    var runner: TaskRunner? = TaskRunner(animation: .instant, clock: ManualClock())
    let log = Log()
    let consumer = consume(runner!.states, into: log)
    await waitUntil("the consumer to take the first state") { !log.states.isEmpty }
    runner!.start { _ in await Latch().wait() }
    weak let weakRunner = runner
    runner = nil
    #expect(weakRunner == nil)  // the iterator does not keep it alive
    #expect(await consumer.value == [.idle, .running(0), .cancelled])
  }

  @Test func releasingAnIdleRunnerEndsAWaitingConsumer() async {
    var runner: TaskRunner? = TaskRunner(animation: .instant, clock: ManualClock())
    let log = Log()
    let consumer = consume(runner!.states, into: log)
    await waitUntil("the consumer to take the first state") { !log.states.isEmpty }
    runner = nil
    #expect(await consumer.value == [.idle])
  }

  @Test func aSequenceWhoseRunnerIsGoneBeforeIterationIsEmpty() async {
    var runner: TaskRunner? = TaskRunner(animation: .instant, clock: ManualClock())
    let states = runner!.stateSequence
    weak let weakRunner = runner
    runner = nil
    #expect(weakRunner == nil)  // the sequence does not keep it alive
    var iterator = states.makeAsyncIterator()
    #expect(await iterator.takeAll() == [])
  }

  @Test func cancellingAWaitingConsumerEndsTheSequenceAtOnce() async {
    let harness = Harness()
    let log = Log()
    let consumer = consume(harness.runner.states, into: log)
    await waitUntil("the consumer to take the first state") { !log.states.isEmpty }
    consumer.cancel()
    #expect(await consumer.value == [.idle])
    // Later states answer no one: the waiter was answered once, with the end.
    _ = await harness.runner.run { _ in }
    #expect(harness.recorder.states == [.idle, .running(0), .finished])
  }

  @Test func aTaskCancelledBeforeIterationGetsNothing() async {
    let harness = Harness()
    let states = harness.runner.stateSequence
    let consumer = Task { @MainActor in
      withUnsafeCurrentTask { $0?.cancel() }
      var iterator = states.makeAsyncIterator()
      return await iterator.takeAll()
    }
    #expect(await consumer.value == [])
  }

  @Test func cancellingDropsTheStatesStillWaitingAndEveryLaterCallReturnsNil() async {
    let harness = Harness()
    let runner = harness.runner
    let registered = Latch()
    let proceed = Latch()
    let consumer = Task { @MainActor in
      var iterator = runner.stateSequence.makeAsyncIterator()
      var taken = await iterator.take(1)
      registered.open()
      await proceed.wait()  // returns when the task is cancelled
      taken += await iterator.takeAll()
      taken += await iterator.takeAll()
      return taken
    }
    await registered.wait(for: "the consumer to register")
    _ = await runner.run { _ in }  // running(0) and finished wait in the buffer
    consumer.cancel()
    #expect(await consumer.value == [.idle])
  }

  // MARK: - Threads

  /// A consumer off the main actor, held back for a run at times, against runs whose reports
  /// race the frames, that finish, fail or are cancelled.
  ///
  /// Each report is a turn of the pool and each frame a turn of the main actor, which every suite
  /// shares: on a loaded machine a turn may take a tenth of a second, and the test is as long as
  /// its turns. So a run reports 4 times, enough for a cancel at the third frame to land while it
  /// runs; 30 runs play every mix of reset (every 2nd), failure (every 3rd) and cancel (every
  /// 5th).
  @Test func aConsumerOnAnotherThreadGetsACoalescingOfWhatObserversSee() async {
    let cycles = TestScale.count(30, sanitized: 10)
    let reports = 4
    let clock = ManualClock()
    var runner: TaskRunner? = TaskRunner(animation: .instant, clock: clock)
    let recorder = StateRecorder(observing: runner!)
    let states = runner!.stateSequence
    let registered = Latch()
    // After every other run, the consumer waits until the test has played the next run.
    let gates = (0...cycles).map { _ in Latch() }
    let consumer = Task.detached { () -> [RunState] in
      var consumed: [RunState] = []
      var runsEnded = 0
      var iterator = states.makeAsyncIterator()
      while let state = await iterator.next() {
        consumed.append(state)
        if consumed.count == 1 { registered.open() }
        // The consumer falls behind at the gates alone: a wait costs no turns of the pool,
        // which a busy machine makes slow and the other suites share.
        if state.phase.isTerminal {
          if runsEnded.isMultiple(of: 2) { await gates[runsEnded].wait() }
          runsEnded += 1
        }
      }
      return consumed
    }
    await registered.wait(for: "the consumer to register")
    for cycle in 0..<cycles {
      let start = clock.now
      runner!.start { reporter in
        for count in 1...reports {
          reporter.report(completed: count, of: reports)
          // A deadline the test's frames reach whether they come before or after this sleep
          // begins: each frame the test advances counts, however late this task runs.
          try await clock.sleep(until: start.advanced(by: frame * count))
        }
        if cycle % 3 == 2 { throw TestError() }
      }
      var frames = 0
      let deadline = ContinuousClock.now + waitLimit
      while runner!.phase == .running, ContinuousClock.now < deadline {
        clock.advance(by: frame)
        await letOthersRun()
        frames += 1
        if cycle % 5 == 4, frames == 3 { runner!.cancel() }
      }
      #expect(runner!.phase != .running, "run \(cycle) did not end within \(waitLimit)")
      if cycle.isMultiple(of: 2) { runner!.reset() }
      if cycle > 0 { gates[cycle - 1].open() }
    }
    gates.forEach { $0.open() }
    runner!.start { _ in await Latch().wait() }
    runner = nil  // cancels the active run
    let published = recorder.states
    let consumed =
      await withDeadline(waitingFor: "the consumer to take the states to their end") {
        await awaitAll([consumer]).first
      } ?? []
    #expect(published.last == .cancelled)
    #expect(Self.mayConsume(consumed, from: published))
    #expect(consumed.count < published.count)
  }
}

// MARK: - What the Observation framework's `Observations` yields

extension RunStatesTests {
  /// `Observations { runner.state }` yields one state per main-actor turn, the last.
  ///
  /// It reads the state when the main actor is next free after a change: a report that arrives
  /// with the end of the run (`.running(9/10)`, then `.finished`) and the `.cancelled` of a reset
  /// (then `.idle`) are never yielded. Observers and `runner.states` get both.
  @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
  @Test func observationsYieldsOnlyTheLastStateOfEachMainActorTurn() async {
    let harness = Harness()
    let runner = harness.runner
    let log = Log()
    let observing = Task { @MainActor in
      for await state in Observations({ runner.state }) {
        log.states.append(state)
      }
    }
    var states = runner.stateSequence.makeAsyncIterator()
    var taken = await states.take(1)
    await waitUntil("Observations to yield a state") { log.states.count == 1 }
    let proceed = Latch()
    runner.start { reporter in
      await proceed.wait()
      reporter.report(completed: 9, of: 10)  // read as the run ends, in the same turn
    }
    taken += await states.take(1)
    await waitUntil("Observations to yield 2 states") { log.states.count == 2 }
    proceed.open()
    await harness.recorder.waitForEnd()
    taken += await states.take(2)
    await waitUntil("Observations to yield 3 states") { log.states.count == 3 }
    runner.start { _ in await Latch().wait() }
    taken += await states.take(1)
    await waitUntil("Observations to yield 4 states") { log.states.count == 4 }
    runner.reset()
    taken += await states.take(2)
    await waitUntil("Observations to yield 5 states") { log.states.count == 5 }
    observing.cancel()

    let observed: [RunState] = [
      .idle, .running(0), .running(RunProgress(completed: 9, of: 10)), .finished, .running(0),
      .cancelled, .idle,
    ]
    #expect(harness.recorder.states == observed)
    #expect(taken == observed)
    #expect(log.states == [.idle, .running(0), .finished, .running(0), .idle])
  }

  /// `Observations` does not end when a runner it reads through a weak reference is released.
  ///
  /// Releasing the runner is no change of its state, so the closure is not called again to
  /// return `.finish`, and the iteration waits until its task is cancelled. `runner.states` ends.
  @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
  @Test func observationsDoesNotEndWhenTheRunnerIsReleased() async {
    var runner: TaskRunner? = TaskRunner(animation: .instant, clock: ManualClock())
    weak let weakRunner = runner
    let log = Log()
    let observing = Task { @MainActor in
      let observations = Observations.untilFinished {
        () -> Observations<RunState, Never>.Iteration in
        guard let runner = weakRunner else { return .finish }
        return .next(runner.state)
      }
      for await state in observations {
        log.states.append(state)
      }
      log.hasEnded = true
    }
    let statesLog = Log()
    let consumer = consume(runner!.states, into: statesLog)
    await waitUntil("both consumers to take the first state") {
      log.states.count == 1 && statesLog.states.count == 1
    }
    runner!.start { _ in await Latch().wait() }
    await waitUntil("Observations to yield 2 states") { log.states.count == 2 }
    runner = nil
    #expect(weakRunner == nil)
    #expect(await consumer.value == [.idle, .running(0), .cancelled])
    for _ in 0..<100 { await Task.yield() }
    #expect(!log.hasEnded)
    #expect(log.states == [.idle, .running(0)])
    observing.cancel()
    await observing.value
    #expect(log.hasEnded)
  }
}

extension TaskRunner {
  /// What ``TaskRunner/states`` returns, with its concrete type, so that a test can keep and
  /// lend its iterator.
  fileprivate var stateSequence: RunStates {
    RunStates(runner: self)
  }
}

/// An iterator lent to a task of its own for one bounded wait.
// SAFETY: one task at a time touches it: the task it is lent to, while the lender awaits that
// task's end in a task group, then the lender.
private final class LentIterator: @unchecked Sendable {  // SAFETY: above
  var iterator: RunStates.AsyncIterator
  var taken: [RunState] = []

  init(_ iterator: RunStates.AsyncIterator) {
    self.iterator = iterator
  }
}

extension RunStates.AsyncIterator {
  /// Takes the next `count` states, fewer if the sequence ends first.
  ///
  /// Past `limit` it records an issue, ends the sequence and returns the states taken so far.
  mutating func take(
    _ count: Int, within limit: Duration = waitLimit,
    isolation actor: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> [RunState] {
    await take(upTo: count, waitingFor: "\(count) states", within: limit, at: sourceLocation)
  }

  /// Takes every state until the sequence ends.
  ///
  /// Past `limit` it records an issue, ends the sequence and returns the states taken so far.
  mutating func takeAll(
    within limit: Duration = waitLimit, isolation actor: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> [RunState] {
    await take(upTo: .max, waitingFor: "the sequence to end", within: limit, at: sourceLocation)
  }

  /// Takes states in a task of its own, which the deadline cancels; cancelling the caller's
  /// task ends the sequence, as it ends a plain iteration, and is no timeout.
  private mutating func take(
    upTo count: Int, waitingFor what: String, within limit: Duration,
    isolation actor: isolated (any Actor)? = #isolation, at sourceLocation: SourceLocation
  ) async -> [RunState] {
    let lent = LentIterator(self)
    let timedOut = await withTaskGroup(of: Bool?.self) { group in
      group.addTask {
        while lent.taken.count < count, let state = await lent.iterator.next() {
          lent.taken.append(state)
        }
        return false
      }
      group.addTask {
        let clock = ContinuousClock()
        // Not a sleep that decides a result: the deadline of the wait beside it.
        try? await clock.sleep(until: clock.now + limit)
        return Task.isCancelled ? nil : true
      }
      var timedOut = false
      for await outcome in group where outcome != nil {
        timedOut = timedOut || outcome == true
        group.cancelAll()
      }
      return timedOut
    }
    self = lent.iterator
    if timedOut {
      recordTimeout(
        waitingFor: "\(what) (taken: \(lent.taken))", after: limit, sourceLocation: sourceLocation)
    }
    return lent.taken
  }
}
