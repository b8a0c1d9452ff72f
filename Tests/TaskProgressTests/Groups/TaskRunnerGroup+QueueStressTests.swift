import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// How an item's work ended, as its own code saw it.
private enum WorkEnding: Int, AtomicRepresentable {
  case notEnded, returned, threw
}

/// What the pool did for one item.
///
/// Relaxed atomics only, here and in ``QueueWork``: they order nothing between threads, so that
/// the sanitizer sees only the synchronization the queue itself provides.
private final class WorkRecord: Sendable {
  /// How many times the item's work was called.
  let calls = Atomic<Int>(0)
  /// The moment of its first call, from ``QueueWork/moments``; 0 while never called.
  let calledAt = Atomic<Int>(0)
  /// How the work of its first call ended.
  let ending = Atomic<WorkEnding>(.notEnded)
}

/// The work of a queue's items: a few reports each from the pool, some yielding, a few failing;
/// and what it saw.
private final class QueueWork: Sendable {
  let records: [WorkRecord]
  /// One sequence for the calls on the pool and the starts and the cancel on the main actor, so
  /// that one number orders any two of them.
  let moments = Atomic<Int>(0)
  /// How many calls are under way.
  let inFlight = Atomic<Int>(0)
  /// The most calls under way at once.
  let mostInFlight = Atomic<Int>(0)
  /// How many calls began: what the task that cancels waits for.
  let callsBegun = Atomic<Int>(0)

  init(count: Int) {
    records = (0..<count).map { _ in WorkRecord() }
  }

  /// The next moment of the sequence.
  func nextMoment() -> Int {
    moments.wrappingAdd(1, ordering: .relaxed).newValue
  }

  /// Whether item `index` throws: one in 37.
  static func fails(_ index: Int) -> Bool {
    index % 37 == 5
  }

  /// The error item `index` throws.
  static func error(of index: Int) -> TestError {
    TestError(message: "item \(index) failed")
  }

  func perform(_ index: Int, reporter: TaskRunner.Reporter) async throws {
    let record = records[index]
    let moment = nextMoment()
    let isFirstCall = record.calls.wrappingAdd(1, ordering: .relaxed).newValue == 1
    if isFirstCall {
      record.calledAt.store(moment, ordering: .relaxed)
    }
    callsBegun.wrappingAdd(1, ordering: .relaxed)
    mostInFlight.max(inFlight.wrappingAdd(1, ordering: .relaxed).newValue, ordering: .relaxed)
    // Before the runner hears of the end: a call under way counts until then.
    defer { inFlight.wrappingSubtract(1, ordering: .relaxed) }
    do {
      let steps = 1 + index % 4
      for step in 1...steps {
        reporter.report(completed: step, of: steps)
        if index % 3 == 0 {
          await Task.yield()
        }
        // Where a pause holds the work, and a cancel ends it.
        try await reporter.checkpoint()
      }
      if Self.fails(index) {
        throw Self.error(of: index)
      }
      if isFirstCall { record.ending.store(.returned, ordering: .relaxed) }
    } catch {
      if isFirstCall { record.ending.store(.threw, ordering: .relaxed) }
      throw error
    }
  }
}

/// A group renderer that hears each item's start and end on the main actor, as the group
/// delivers them, and the actions of the task that pauses and cancels.
@MainActor
private final class QueueLog: GroupRenderer {
  let work: QueueWork
  /// The moment each item started, on the main actor; `nil` while it has not.
  private(set) var startedAt: [Int?] = []
  /// How many times each item ended.
  private(set) var ends: [Int] = []
  private var phases: [RunPhase] = []
  private var indices: [ObjectIdentifier: Int] = [:]
  private var active = 0
  /// The most items under way at once, running or paused.
  private(set) var mostActive = 0
  /// Whether the last action was a pause: nothing may start.
  private(set) var isPaused = false
  /// The moment of the cancel, taken just before it.
  private(set) var cancelledAt: Int?
  /// Whether the queue was under way when it was cancelled; it may have ended just before.
  private(set) var cancelledUnderWay = false
  /// What broke a rule, in words.
  private(set) var violations: [String] = []

  init(work: QueueWork) {
    self.work = work
  }

  func render(_ event: TaskRunnerGroup.Event) {
    switch event {
    case .updated(let member, let update):
      guard let index = indices[member.id] else {
        // A member's first update: it joined. One queue, no other member: the order of
        // joining is the items' order.
        indices[member.id] = phases.count
        phases.append(update.state.phase)
        startedAt.append(nil)
        ends.append(0)
        return
      }
      guard update.reason == .stateChanged else { return }
      take(update.state.phase, for: index)
    case .left, .frame:
      break
    }
  }

  private func take(_ new: RunPhase, for index: Int) {
    let old = phases[index]
    guard new != old else { return }
    phases[index] = new
    if old == .idle && new.isActive {
      if startedAt[index] != nil { violations.append("item \(index) started twice") }
      startedAt[index] = work.nextMoment()
      if isPaused { violations.append("item \(index) started while paused") }
      if cancelledAt != nil { violations.append("item \(index) started after the cancel") }
    }
    if !old.isActive && new.isActive {
      active += 1
      mostActive = max(mostActive, active)
    } else if old.isActive && !new.isActive {
      active -= 1
    }
    if new.isTerminal {
      ends[index] += 1
    }
  }

  func pauseAll(_ group: TaskRunnerGroup) {
    isPaused = true
    group.pauseAll()
  }

  func resumeAll(_ group: TaskRunnerGroup) {
    isPaused = false
    group.resumeAll()
  }

  func cancelAll(_ group: TaskRunnerGroup, queue: TaskRunnerGroup.Queue<Int>) {
    cancelledAt = work.nextMoment()
    cancelledUnderWay = !queue.isOver
    group.cancelAll()
  }
}

/// A queue of a thousand items on the pool, sixteen at a time, while another task pauses,
/// resumes and at last cancels it at random moments; meant to run under
/// `swift test --sanitize=thread` too.
///
/// Nothing here depends on timing: the moments of the actions are random, and the assertions
/// hold however the threads interleave. The test waits for events (the queue's end, the runs'
/// tasks), each with a deadline of its own.
@MainActor
@Suite("Task runner group queue under stress", .timeLimit(TestScale.timeLimit(minutes: 2)))
struct TaskRunnerGroupQueueStressTests {
  /// A thousand, under the sanitizer too: on a busy machine the cancel comes sooner than planned
  /// rather than the test running longer.
  nonisolated static let itemCount = 1_000
  nonisolated static let limit = 16

  @Test(
    "A thousand items sixteen at a time, paused, resumed and cancelled from another task: one outcome each, no work twice, no start after the cancel, sixteen at most"
  )
  func aThousandItemsPausedResumedAndCancelledFromAnotherTask() async throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    let work = QueueWork(count: Self.itemCount)
    let group = TaskRunnerGroup()
    let log = QueueLog(work: work)
    let token = group.attach(log)
    defer { token.cancel() }
    #expect(
      group.start(Array(0..<Self.itemCount), maxConcurrency: Self.limit) { index, reporter in
        try await work.perform(index, reporter: reporter)
      })
    let queue = try #require(group.queue(of: Int.self))

    let controller = Task.detached {
      await Self.pauseResumeAndCancel(group, queue: queue, log: log, work: work, seed: seed)
    }
    let outcomes = await withDeadline(
      waitingFor: "seed \(seed): the queue to end", within: .seconds(60)
    ) { await queue.wait() }
    // As the end reaches the test: the queue ends once the counts say so.
    let counts = group.counts
    let actions = await withDeadline(
      waitingFor: "seed \(seed): the task that pauses and cancels to end"
    ) {
      await awaitAll([controller]).first
    }
    // The work of a run cancelled as it began may still be under way.
    let runs = queue.runners.compactMap(\.lastRunTask)
    await withDeadline(waitingFor: "seed \(seed): the items' tasks to end") {
      _ = await awaitAll(runs)
    }
    guard let outcomes, let actions else { return }
    if let timeout = actions.timeout, actions.cancelledAfter == 0 {
      // Slow is not wrong: the cancel only comes sooner than planned. No item at all is a hang.
      Issue.record("seed \(seed): timed out waiting for \(timeout); not one began")
    }
    // What the run covered, for the record of a failure.
    let context =
      "seed \(seed), \(actions.pauses) pauses and \(actions.resumes) resumes, cancelled after \(actions.cancelledAfter) items began"
      + (actions.timeout.map { " (sooner than planned: \($0) took over 30 s)" } ?? "")

    // Not `#expect`, which would print every one.
    if !log.violations.isEmpty {
      Issue.record(
        "\(context): \(log.violations.count) violations, the first \(log.violations.prefix(10))")
    }
    try #require(outcomes.count == Self.itemCount, "\(context)")

    var expectedCounts = TaskRunnerGroup.PhaseCounts()
    for outcome in outcomes {
      expectedCounts[outcome.phase] += 1
    }
    #expect(counts == expectedCounts, "\(context): the group's counts as the queue ended")
    #expect(group.counts == expectedCounts, "\(context): the group's counts at the end")

    let cancelledAt = try #require(log.cancelledAt, "\(context): the queue was never cancelled")
    // A line for each item that broke a rule: a failure names the first few, not a thousand.
    var problems: [String] = []
    var lastStart = 0
    var startedCount = 0
    for (index, outcome) in outcomes.enumerated() {
      func note(_ problem: String) {
        problems.append("item \(index) \(problem)")
      }
      let record = work.records[index]
      let calls = record.calls.load(ordering: .relaxed)
      let calledAt = record.calledAt.load(ordering: .relaxed)
      let ending = record.ending.load(ordering: .relaxed)
      if queue.runners[index].state != outcome {
        note("ended \(outcome), its runner \(queue.runners[index].state)")
      }
      if log.ends[index] != 1 { note("ended \(log.ends[index]) times") }
      if calls > 1 { note("had its work called \(calls) times") }

      guard let startedAt = log.startedAt[index] else {
        // Never started: the cancel reached it first.
        if calls > 0 { note("never started, yet its work was called") }
        if outcome != .cancelled { note("never started, yet ended \(outcome)") }
        continue
      }
      // The queue starts its items in their order, none after the cancel.
      if startedCount != index { note("started, yet an item before it did not") }
      if startedAt <= lastStart { note("started before the item before it") }
      if startedAt >= cancelledAt { note("started after the cancel") }
      startedCount += 1
      lastStart = startedAt
      // A cancel right after the start may keep its work from being called at all.
      if calls > 0, calledAt <= startedAt { note("had its work called before it started") }
      switch outcome.phase {
      case .finished where ending != .returned:
        note("finished, yet its work ended \(ending)")
      case .failed where outcome != .failed(QueueWork.error(of: index)) || ending != .threw:
        note("ended \(outcome), its work \(ending)")
      case .finished, .failed, .cancelled:
        break
      default:
        note("ended \(outcome)")
      }
    }
    if !problems.isEmpty {
      Issue.record("\(context): \(problems.count) problems, the first \(problems.prefix(10))")
    }
    #expect(queue.startedCount == startedCount, "\(context)")

    let mostInFlight = work.mostInFlight.load(ordering: .relaxed)
    #expect((1...Self.limit).contains(mostInFlight), "\(context): \(mostInFlight) at once")
    #expect(log.mostActive <= Self.limit, "\(context): \(log.mostActive) under way at once")
    #expect(work.inFlight.load(ordering: .relaxed) == 0, "\(context)")
    if log.cancelledUnderWay {
      // A cancel reaches every item still waiting or under way.
      #expect(expectedCounts.cancelled > 0, "\(context): \(expectedCounts)")
    }
  }

  /// What the task that pauses and cancels did.
  struct Actions: Sendable {
    /// How many items had begun their work when it cancelled the queue.
    var cancelledAfter = 0
    var pauses = 0
    var resumes = 0
    /// What it waited for in vain, if it gave up waiting and cancelled sooner than it planned: on a
    /// busy machine the moment of the cancel only moves, and every rule still holds.
    var timeout: String?
  }

  /// Pauses and resumes the queue at random moments, from a task of its own, until a random
  /// number of items began their work; then cancels it.
  fileprivate nonisolated static func pauseResumeAndCancel(
    _ group: TaskRunnerGroup, queue: TaskRunnerGroup.Queue<Int>, log: QueueLog,
    work: QueueWork, seed: UInt64
  ) async -> Actions {
    var random = SplitMix64(seed: seed)
    var actions = Actions()
    // Somewhere in the middle, so that items are under way and others wait when it comes.
    let cancelAfter = itemCount / 10 + random.next(below: itemCount * 8 / 10)
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(30)  // a thousand items: well under the 2-minute limit
    while work.callsBegun.load(ordering: .relaxed) < cancelAfter, !Task.isCancelled {
      guard clock.now < deadline else {
        actions.timeout = "\(cancelAfter) items to begin their work"
        break
      }
      // A random moment, not a result: up to a millisecond of the items' work between actions.
      try? await clock.sleep(for: .microseconds(random.next(below: 1_000)))
      // A pause a third of the time; now and then one that changes nothing, or a resume.
      let pausing = random.next(below: 3) == 0
      if pausing { actions.pauses += 1 } else { actions.resumes += 1 }
      await MainActor.run {
        if pausing {
          log.pauseAll(group)
        } else {
          log.resumeAll(group)
        }
      }
    }
    actions.cancelledAfter = work.callsBegun.load(ordering: .relaxed)
    await MainActor.run { log.cancelAll(group, queue: queue) }
    return actions
  }
}
