import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A group renderer that acts once, when it first hears of a run that started.
@MainActor
private final class ActOnFirstStart: GroupRenderer {
  private var action: (@MainActor () -> Void)?

  init(_ action: @escaping @MainActor () -> Void) {
    self.action = action
  }

  func render(_ event: TaskRunnerGroup.Event) {
    guard case .updated(_, let update) = event, update.state.phase == .running else { return }
    let action = self.action
    self.action = nil
    action?()
  }
}

/// A group renderer that removes a member as it hears it join, if its label is `label`, and
/// keeps the labels it heard join and the members it heard leave.
@MainActor
private final class RemoveOnJoin: GroupRenderer {
  weak var group: TaskRunnerGroup?
  let label: String
  var joined: [String] = []
  var left: [ObjectIdentifier] = []
  var removed: ObjectIdentifier?
  /// The members heard of: a member's first update is its joining.
  private var members: Set<ObjectIdentifier> = []

  init(removing label: String) {
    self.label = label
  }

  func render(_ event: TaskRunnerGroup.Event) {
    switch event {
    case .updated(let member, _):
      guard members.insert(member.id).inserted else { return }
      joined.append(member.label)
      if member.label == label {
        removed = member.id
        group?.remove(member.runner)
      }
    case .left(let id): left.append(id)
    case .frame: break
    }
  }
}

/// A group's queue: items in runners of their own, a few at a time, held by a pause and ended by
/// a cancel.
@MainActor
@Suite("Task runner group queue", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerGroupQueueTests {
  let clock = ManualClock()
  let gates = ItemGates()

  /// Starts a queue of the items `0..<count` whose work the test ends through ``gates``.
  func startQueue(
    _ count: Int, maxConcurrency: Int, in group: TaskRunnerGroup,
    onFailure: TaskRunnerGroup.FailurePolicy = .continue
  ) -> TaskRunnerGroup.Queue<Int>? {
    let gates = self.gates
    let started = group.start(
      Array(0..<count), maxConcurrency: maxConcurrency, onFailure: onFailure
    ) { index, _ in
      try await gates.perform(index)
    }
    return started ? group.queue(of: Int.self) : nil
  }

  /// Ends item `index` of `queue` and waits until the queue heard of it.
  func end(
    _ index: Int, of queue: TaskRunnerGroup.Queue<Int>, failing: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let runner = queue.runners[index]
    gates.end(index, failing: failing)
    let task = runner.lastRunTask
    await withDeadline(waitingFor: "item \(index) to end", sourceLocation: sourceLocation) {
      await task?.value
    }
  }

  func phases(_ queue: TaskRunnerGroup.Queue<Int>) -> [RunPhase] {
    queue.runners.map(\.state.phase)
  }

  // MARK: - Running

  @Test func aRendererThatRemovesAQueuesMemberAsItJoinsLeavesTheCountsAndSumsRight() throws {
    let group = TaskRunnerGroup(clock: clock)
    let renderer = RemoveOnJoin(removing: "3")
    renderer.group = group
    group.attach(renderer)
    // The queue's six members join in one batch; the renderer removes the fourth as it joins,
    // in the middle of the batch.
    let queue = try #require(startQueue(6, maxConcurrency: 1, in: group))
    #expect(renderer.joined == ["0", "1", "2", "3", "4", "5"])
    #expect(renderer.left == [renderer.removed].compactMap { $0 })
    #expect(group.members.map(\.label) == ["0", "1", "2", "4", "5"])
    #expect(group.counts.description == "1 running, 4 waiting")
    #expect(group.summary.totalUnits == 5)
    #expect(queue.runners.count == 6)
    queue.cancel()
    #expect(group.counts.description == "5 cancelled")
    #expect(group.summary.totalUnits == 5)
  }

  @Test func itemsJoinAsWaitingMembersAndAtMostKRunAtOnce() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let queue = try #require(startQueue(8, maxConcurrency: 2, in: group))
    #expect(group.members.map(\.label) == (0..<8).map { "\($0)" })
    #expect(group.members.allSatisfy { $0.weight == 1 })
    #expect(group.counts.description == "2 running, 6 waiting")
    #expect(group.summary.totalUnits == 8)
    #expect(phases(queue) == [.running, .running] + Array(repeating: .idle, count: 6))
    await end(1, of: queue)
    // The next item starts in the same turn as the end, so no frame sees a place free.
    #expect(phases(queue).prefix(4) == [.running, .finished, .running, .idle])
    clock.advance(by: frame)
    #expect(group.counts.description == "2 running, 5 waiting, 1 finished")
    for index in [0, 2, 3, 4, 5, 6, 7] {
      await end(index, of: queue)
    }
    #expect(group.counts.description == "8 finished")
    #expect(group.summary.isSettled)
    #expect(queue.isOver)
    #expect((0..<8).allSatisfy { gates.starts($0) == 1 })
  }

  @Test func runReturnsEachOutcomeInTheItemsOrderAndAFailureLetsTheOthersGoOn() async {
    let group = TaskRunnerGroup(clock: clock)
    let outcomes = await group.run(Array(0..<6), maxConcurrency: 3) { index, reporter in
      reporter.report(completed: 1, of: 2)
      if index % 3 == 1 { throw TestError(message: "item \(index)") }
    }
    #expect(
      outcomes == [
        .finished, .failed(TestError(message: "item 1")), .finished, .finished,
        .failed(TestError(message: "item 4")), .finished,
      ])
    // The group's counts say so when `run` returns.
    #expect(group.counts.description == "4 finished, 2 failed")
    #expect(group.queue == nil)
  }

  @Test func aQueueNamesEachFailedItemWithItsErrorAndSaysWhetherItWasCancelled() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let queue = try #require(startQueue(5, maxConcurrency: 5, in: group))
    #expect(queue.failures.isEmpty)
    await end(3, of: queue, failing: true)
    // As each failure is heard, not only at the end.
    #expect(queue.failures.map(\.index) == [3])
    await end(1, of: queue, failing: true)
    for index in [0, 2, 4] {
      await end(index, of: queue)
    }
    let failures = queue.failures
    #expect(failures.map(\.index) == [1, 3])
    #expect(failures.map(\.item) == [1, 3])
    #expect(
      failures.map { $0.error as? TestError } == [
        TestError(message: "item 1 failed"), TestError(message: "item 3 failed"),
      ])
    #expect(!queue.isCancelled)
  }

  @Test func aLimitBelowOneMeansOne() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let queue = try #require(startQueue(3, maxConcurrency: 0, in: group))
    #expect(queue.maxConcurrency == 1)
    #expect(phases(queue) == [.running, .idle, .idle])
    await end(0, of: queue)
    #expect(phases(queue) == [.finished, .running, .idle])
    queue.cancel()
  }

  @Test func labelsAndWeightsComeFromTheItems() async {
    let group = TaskRunnerGroup(unit: .bytes, clock: clock)
    let sizes = [300, 100, -1]
    let outcomes = await group.run(
      sizes, maxConcurrency: 2, label: { "file-\($0)" }, weight: { Double($0) },
      perform: { size, reporter in
        reporter.report(completed: max(size, 1), of: max(size, 1))
      })
    #expect(outcomes == [.finished, .finished, .finished])
    #expect(group.members.map(\.label) == ["file-300", "file-100", "file--1"])
    // A weight that is not one is left to the group's weighting: the total the run reported.
    #expect(group.members.map(\.weight) == [300, 100, nil])
    #expect(group.summary.totalUnits == 401)
    #expect(group.members.map(\.runner).allSatisfy { $0.unit == .bytes })
  }

  /// Without weights, an item weighs 1 in a group of items, so that the total is known at once,
  /// and in a group of bytes what its run reports, so that the group's counts are bytes.
  @Test(arguments: [false, true])
  func theDefaultWeightFollowsTheGroupsUnit(countsBytes: Bool) async throws {
    let group = TaskRunnerGroup(unit: countsBytes ? .bytes : .items, clock: clock)
    let sizes = [300, 100]
    #expect(
      group.start(sizes, maxConcurrency: 1) { size, reporter in
        reporter.report(completed: size, of: size)
      })
    let queue = try #require(group.queue(of: Int.self))
    #expect(group.summary.isTotalKnown == !countsBytes)
    #expect(group.members.map(\.weight) == (countsBytes ? [nil, nil] : [1, 1]))
    #expect(await queue.wait() == [.finished, .finished])
    #expect(group.summary.isTotalKnown)
    #expect(group.summary.completedUnits == (countsBytes ? 400 : 2))
    #expect(group.summary.totalUnits == (countsBytes ? 400 : 2))
  }

  @Test func anEmptyQueueEndsAtOnce() async {
    let group = TaskRunnerGroup(clock: clock)
    #expect(await group.run([Int](), maxConcurrency: 4) { _, _ in } == [])
    #expect(group.start([Int](), maxConcurrency: 4) { _, _ in })
    #expect(group.queueUnderWay == nil)
    #expect(group.queue(of: Int.self)?.isOver == true)
    #expect(group.members.isEmpty)
  }

  @Test func oneQueueAtATime() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let queue = try #require(startQueue(3, maxConcurrency: 1, in: group))
    let called = Locked(false)
    #expect(!group.start([1, 2], maxConcurrency: 2) { _, _ in called.withLock { $0 = true } })
    #expect(await group.run([1, 2], maxConcurrency: 2) { _, _ in } == [.cancelled, .cancelled])
    #expect(group.members.count == 3)
    group.cancelAll()
    #expect(queue.isOver)
    // Once it ended, another starts.
    #expect(await group.run([7], maxConcurrency: 1) { _, _ in } == [.finished])
    #expect(!called.withLock { $0 })
  }

  // MARK: - Pause, resume, cancel

  @Test func pauseAllHoldsTheQueueUntilResumeAll() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let queue = try #require(startQueue(5, maxConcurrency: 2, in: group))
    group.pauseAll()
    // At once, without a frame.
    #expect(group.counts.description == "2 paused, 3 waiting")
    await end(0, of: queue)
    // A run that ends while paused frees its place, which stays empty.
    #expect(phases(queue) == [.finished, .paused, .idle, .idle, .idle])
    group.resumeAll()
    #expect(group.counts.description == "2 running, 2 waiting, 1 finished")
    #expect(phases(queue) == [.finished, .running, .running, .idle, .idle])
    queue.pause()
    #expect(phases(queue) == [.finished, .paused, .paused, .idle, .idle])
    queue.resume()
    #expect(phases(queue) == [.finished, .running, .running, .idle, .idle])
    group.cancelAll()
  }

  @Test func cancelAllEndsTheItemsNeverStartedCancelledAndTheCountsSaySoAtOnce() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let queue = try #require(startQueue(10, maxConcurrency: 2, in: group))
    let outcomes = Task { await queue.wait() }
    group.cancelAll()
    #expect(group.counts.description == "10 cancelled")
    #expect(group.summary.isSettled)
    #expect(phases(queue) == Array(repeating: .cancelled, count: 10))
    let states = await withDeadline(waitingFor: "the queue's outcomes") { await outcomes.value }
    #expect(states == Array(repeating: .cancelled, count: 10))
    #expect((2..<10).allSatisfy { gates.starts($0) == 0 })
    #expect(!queue.append(contentsOf: [10]))
    #expect(queue.count == 10)
    #expect(queue.isCancelled)
    #expect(queue.failures.isEmpty)
  }

  @Test func aCancelHeardOfAsTheFirstItemStartsStartsNoOther() async throws {
    let group = TaskRunnerGroup(clock: clock)
    group.attach(ActOnFirstStart { [weak group] in group?.cancelAll() })
    let queue = try #require(startQueue(4, maxConcurrency: 3, in: group))
    #expect(phases(queue) == Array(repeating: .cancelled, count: 4))
    #expect(queue.isOver)
    #expect(queue.startedCount == 1)
    #expect(await queue.wait() == Array(repeating: .cancelled, count: 4))
    #expect((1..<4).allSatisfy { gates.starts($0) == 0 })
  }

  @Test func aPauseHeardOfAsTheFirstItemStartsHoldsTheOthers() async throws {
    let group = TaskRunnerGroup(clock: clock)
    group.attach(ActOnFirstStart { [weak group] in group?.pauseAll() })
    let queue = try #require(startQueue(4, maxConcurrency: 3, in: group))
    #expect(phases(queue) == [.paused, .idle, .idle, .idle])
    group.resumeAll()
    #expect(phases(queue) == [.running, .running, .running, .idle])
    group.cancelAll()
  }

  @Test func cancellingTheTaskAwaitingRunCancelsTheQueue() async {
    let group = TaskRunnerGroup(clock: clock)
    let gates = self.gates
    let run = Task {
      await group.run(Array(0..<6), maxConcurrency: 2) { index, _ in
        try await gates.perform(index)
      }
    }
    await waitUntil("two items to run") {
      group.members.map(\.runner).count { $0.phase == .running } == 2
    }
    run.cancel()
    let outcomes = await withDeadline(waitingFor: "run to return") { await run.value }
    #expect(outcomes == Array(repeating: .cancelled, count: 6))
    #expect(
      group.members.map(\.runner).map(\.state.phase) == Array(repeating: .cancelled, count: 6))
    #expect(group.counts.description == "6 cancelled")
  }

  @Test func aRunAwaitedFromACancelledTaskStartsNothing() async {
    let group = TaskRunnerGroup(clock: clock)
    let gates = self.gates
    let started = Latch()
    let run = Task {
      await started.wait()
      return await group.run(Array(0..<3), maxConcurrency: 3) { index, _ in
        try await gates.perform(index)
      }
    }
    run.cancel()
    started.open()
    let outcomes = await withDeadline(waitingFor: "run to return") { await run.value }
    #expect(outcomes == [.cancelled, .cancelled, .cancelled])
    // Each run was cancelled before its work could begin.
    #expect((0..<3).allSatisfy { gates.starts($0) == 0 })
  }

  @Test func stopAtTheFirstFailureCancelsTheRest() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let queue = try #require(startQueue(6, maxConcurrency: 2, in: group, onFailure: .stop))
    await end(0, of: queue)
    await end(2, of: queue, failing: true)
    #expect(phases(queue) == [.finished, .cancelled, .failed, .cancelled, .cancelled, .cancelled])
    #expect(group.counts.description == "1 finished, 1 failed, 4 cancelled")
    let outcomes = await queue.wait()
    #expect(
      outcomes == [
        .finished, .cancelled, .failed(TestError(message: "item 2 failed")), .cancelled,
        .cancelled, .cancelled,
      ])
    #expect((4..<6).allSatisfy { gates.starts($0) == 0 })
    // A stop at a failure is a cancel of the rest.
    #expect(queue.isCancelled)
    #expect(queue.failures.map(\.index) == [2])
  }

  @Test func aGroupReleasedWhileItsQueueRunsCancelsTheRunsAndTheirWork() async {
    var group: TaskRunnerGroup? = TaskRunnerGroup(clock: clock)
    let gates = self.gates
    group?.start(Array(0..<4), maxConcurrency: 2) { index, _ in try await gates.perform(index) }
    await waitUntil("two items to hold") { gates.isWaiting(0) && gates.isWaiting(1) }
    group = nil
    await waitUntil("the work of both to be cancelled") {
      gates.wasCancelled(0) && gates.wasCancelled(1)
    }
    #expect(gates.starts(2) == 0 && gates.starts(3) == 0)
  }

  // MARK: - Retries

  @Test func aRetryWaitsItsDelayAndShowsItsCountOnTheMember() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let attempts = Locked(0)
    #expect(
      group.start([1], maxConcurrency: 1, retries: 3, retryDelay: .seconds(2)) { _, _ in
        let attempt = attempts.withLock { attempts in
          attempts += 1
          return attempts
        }
        if attempt < 3 { throw TestError(message: "attempt \(attempt)") }
      })
    let queue = try #require(group.queue(of: Int.self))
    let runner = queue.runners[0]
    // The run's frame timer and the retry's sleep: the clock moves once the sleep's deadline
    // is set.
    await waitUntil("the first retry's wait") {
      attempts.withLock { $0 } == 1 && clock.scheduledWakeUps == 2
    }
    clock.advance(by: frame)
    #expect(runner.state.progress?.message == "retry 1 of 3")
    #expect(runner.phase == .running)
    clock.advance(by: .seconds(2) - frame - .nanoseconds(1))
    #expect(attempts.withLock { $0 } == 1)
    clock.advance(by: .nanoseconds(1))
    await waitUntil("the second retry's wait") {
      attempts.withLock { $0 } == 2 && clock.scheduledWakeUps == 2
    }
    clock.advance(by: frame)
    #expect(runner.state.progress?.message == "retry 2 of 3")
    clock.advance(by: .seconds(2))
    let outcomes = await withDeadline(waitingFor: "the third attempt to finish the run") {
      await queue.wait()
    }
    #expect(outcomes == [.finished])
    #expect(attempts.withLock { $0 } == 3)
  }

  @Test func anItemFailsOnceItsRetriesAreSpent() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let attempts = Locked(0)
    #expect(
      group.start([1], maxConcurrency: 1, retries: 2, retryDelay: .zero) { _, _ in
        attempts.withLock { $0 += 1 }
        throw TestError()
      })
    let queue = try #require(group.queue(of: Int.self))
    #expect(await queue.wait() == [.failed(TestError())])
    #expect(attempts.withLock { $0 } == 3)
    #expect(queue.runners[0].state == .failed(TestError()))
  }

  @Test func aCancellationIsNeverRetried() async {
    let group = TaskRunnerGroup(clock: clock)
    let attempts = Locked(0)
    let outcomes = await group.run([1], maxConcurrency: 1, retries: 5, retryDelay: .zero) { _, _ in
      attempts.withLock { $0 += 1 }
      throw CancellationError()
    }
    #expect(outcomes == [.cancelled])
    #expect(attempts.withLock { $0 } == 1)
  }

  // MARK: - Growing and shrinking

  @Test func appendedItemsJoinWaitingAndRunInTurn() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let queue = try #require(startQueue(1, maxConcurrency: 2, in: group))
    let gates = self.gates
    #expect(queue.append(contentsOf: [1]))
    #expect(queue.append(contentsOf: [2, 3]))
    #expect(queue.count == 4)
    #expect(group.counts.description == "2 running, 2 waiting")
    #expect(phases(queue) == [.running, .running, .idle, .idle])
    for index in 0..<4 {
      await end(index, of: queue)
    }
    #expect(await queue.wait() == Array(repeating: .finished, count: 4))
    #expect(!queue.append(contentsOf: [4]))
    #expect(group.members.count == 4)
    _ = gates
  }

  @Test func aWaitingItemCanBeRemovedAndNeverStarts() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let queue = try #require(startQueue(4, maxConcurrency: 1, in: group))
    #expect(!queue.remove(at: 0))  // under way
    #expect(queue.remove(at: 2))
    #expect(!queue.remove(at: 2))
    #expect(!queue.remove(at: 9))
    #expect(group.members.map(\.label) == ["0", "1", "3"])
    #expect(group.counts.description == "1 running, 2 waiting")
    for index in [0, 1, 3] {
      await end(index, of: queue)
    }
    #expect(await queue.wait() == [.finished, .finished, .cancelled, .finished])
    #expect(gates.starts(2) == 0)
  }

  @Test func removingTheLastWaitingItemEndsAQueueWithNothingUnderWay() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let queue = try #require(startQueue(2, maxConcurrency: 1, in: group))
    group.pauseAll()
    await end(0, of: queue)
    #expect(!queue.isOver)
    #expect(queue.remove(at: 1))
    #expect(queue.isOver)
    #expect(await queue.wait() == [.finished, .cancelled])
  }
}
