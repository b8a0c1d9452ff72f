import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// Counts the items in flight and remembers the most there ever were at once.
private final class Gauge: Sendable {
  private let current = Atomic<Int>(0)
  private let highest = Atomic<Int>(0)

  /// The most items that were ever in flight at once.
  var highWaterMark: Int { highest.load(ordering: .relaxed) }

  func enter() {
    let now = current.add(1, ordering: .relaxed).newValue
    highest.max(now, ordering: .relaxed)
  }

  func leave() {
    current.subtract(1, ordering: .relaxed)
  }
}

/// An operation's steps, each of which waits at a latch until the test has delivered the reports
/// made before it with a frame.
private final class Steps: Sendable {
  private let reached: [Latch]
  private let proceed: [Latch]

  init(_ count: Int) {
    reached = (0..<count).map { _ in Latch() }
    proceed = (0..<count).map { _ in Latch() }
  }

  /// In the operation: step `index` is done; waits for the test.
  func done(_ index: Int) async {
    reached[index].open()
    await proceed[index].wait()
  }

  /// In the test: waits for step `index`, delivers its reports with one frame, and lets the
  /// operation go on.
  @MainActor
  func deliver(_ index: Int, in harness: Harness) async {
    await reached[index].wait()
    harness.clock.advance(by: frame)
    proceed[index].open()
  }
}

/// Per-item latches: whether an item started, and when it may end.
private final class Items: Sendable {
  let started: [Latch]
  let proceed: [Latch]
  private let performed: Locked<[Int]>

  init(_ count: Int) {
    started = (0..<count).map { _ in Latch() }
    proceed = (0..<count).map { _ in Latch() }
    performed = Locked(Array(repeating: 0, count: count))
  }

  /// In an item: notes that it started.
  func start(_ item: Int) {
    performed.withLock { $0[item] += 1 }
    started[item].open()
  }

  /// In an item: waits until the test lets it end, ignoring cancellation.
  func waitIgnoringCancellation(_ item: Int) async {
    let proceed = self.proceed[item]
    // An unstructured task is not cancelled with this one.
    await Task { await proceed.wait() }.value
  }

  /// How many times each item was performed.
  var timesPerformed: [Int] { performed.withLock { $0 } }

  /// The items that started.
  var startedItems: Set<Int> {
    Set(started.indices.filter { started[$0].isOpen })
  }
}

@MainActor
@Suite("Task runner over items concurrently", .timeLimit(TestScale.timeLimit(minutes: 2)))
struct TaskRunnerConcurrencyTests {
  // MARK: - over:maxConcurrency:

  @Test(arguments: [2, 3, 5])
  func atMostMaxConcurrencyItemsAreInFlight(maxConcurrency: Int) async {
    let harness = Harness()
    let count = 12
    let items = Items(count)
    let gauge = Gauge()
    harness.runner.start(over: 0..<count, maxConcurrency: maxConcurrency) { item in
      gauge.enter()
      items.start(item)
      await items.waitIgnoringCancellation(item)
      gauge.leave()
    }
    var inFlight: [Int] = []
    for item in 0..<maxConcurrency {
      await items.started[item].wait()
      inFlight.append(item)
    }
    var next = maxConcurrency
    var ended = 0
    while let item = inFlight.popLast() {  // items end out of the order they started in
      items.proceed[item].open()
      ended += 1
      if next < count {
        await items.started[next].wait()  // an ending item makes room for exactly one more
        inFlight.insert(next, at: 0)
        next += 1
      }
      #expect(items.startedItems.count == min(count, ended + maxConcurrency))
    }
    #expect(await harness.recorder.waitForTerminalState() == .finished)
    #expect(gauge.highWaterMark == maxConcurrency)
    #expect(items.timesPerformed == Array(repeating: 1, count: count))
  }

  @Test(arguments: [1, 0, -1, Int.min])
  func aMaxConcurrencyBelowOneMeansOneItemAtATimeInOrder(maxConcurrency: Int) async {
    let harness = Harness()
    let gauge = Gauge()
    let order = Locked<[Int]>([])
    let final = await harness.runner.run(over: 0..<5, maxConcurrency: maxConcurrency) { item in
      gauge.enter()
      order.withLock { $0.append(item) }
      for _ in 0..<3 { await Task.yield() }
      gauge.leave()
    }
    #expect(final == .finished)
    #expect(gauge.highWaterMark == 1)
    #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
    // No frame ran on the manual clock: the end delivers the last count.
    #expect(
      harness.recorder.states == [
        .idle, .running(0), .running(RunProgress(completed: 5, of: 5)), .finished,
      ])
  }

  @Test func everyItemIsPerformedExactlyOnce() async {
    let harness = Harness()
    let count = 500
    let gauge = Gauge()
    let performed = Locked(Array(repeating: 0, count: count))
    let final = await harness.runner.run(over: Array(0..<count), maxConcurrency: 7) { item in
      gauge.enter()
      performed.withLock { $0[item] += 1 }
      await Task.yield()
      gauge.leave()
    }
    #expect(final == .finished)
    #expect(performed.withLock { $0 } == Array(repeating: 1, count: count))
    #expect(gauge.highWaterMark <= 7)
    #expect(
      harness.recorder.states == [
        .idle, .running(0), .running(RunProgress(completed: count, of: count)), .finished,
      ])
  }

  @Test func countsAreReportedAsItemsFinishInAnyOrder() async {
    let harness = Harness()
    let items = Items(4)
    harness.runner.start(over: 0..<4, maxConcurrency: 4) { item in
      items.start(item)
      await items.waitIgnoringCancellation(item)
    }
    for item in 0..<4 { await items.started[item].wait() }
    for (done, item) in [2, 0, 3].enumerated() {
      items.proceed[item].open()
      let expected = RunState.running(RunProgress(completed: done + 1, of: 4))
      await harness.advanceFrames(until: "the state \(expected)") {
        harness.runner.state == expected
      }
    }
    items.proceed[1].open()
    await harness.recorder.waitForTerminalState()
    #expect(
      harness.recorder.states == [
        .idle, .running(0),
        .running(RunProgress(completed: 1, of: 4)),
        .running(RunProgress(completed: 2, of: 4)),
        .running(RunProgress(completed: 3, of: 4)),
        .running(RunProgress(completed: 4, of: 4)),
        .finished,
      ])
  }

  @Test(arguments: [4, 1, 0])
  func anEmptyCollectionFinishesAtOnce(maxConcurrency: Int) async {
    let harness = Harness()
    let called = Locked(false)
    let final = await harness.runner.run(over: [Int](), maxConcurrency: maxConcurrency) { _ in
      called.withLock { $0 = true }
    }
    #expect(final == .finished)
    #expect(!called.withLock { $0 })
    #expect(harness.recorder.states == [.idle, .running(0), .finished])
    #expect(harness.clock.now.offset == .zero)
  }

  @Test func theFirstErrorFailsTheRunAndCancelsTheItemsInFlight() async {
    let harness = Harness()
    let items = Items(10)
    let fail = Latch()
    let sawCancellation = Locked<Set<Int>>([])
    harness.runner.start(over: 0..<10, maxConcurrency: 3) { item in
      items.start(item)
      if item == 1 {
        await fail.wait()
        throw TestError(message: "item 1")
      }
      await Latch().wait()  // returns when the item is cancelled
      if Task.isCancelled { sawCancellation.withLock { _ = $0.insert(item) } }
      try Task.checkCancellation()
    }
    for item in 0..<3 { await items.started[item].wait() }
    fail.open()
    #expect(await harness.recorder.waitForTerminalState() == .failed(TestError(message: "item 1")))
    await harness.runner.lastRunTask?.value
    #expect(sawCancellation.withLock { $0 } == [0, 2])
    #expect(items.startedItems == [0, 1, 2])
    #expect(
      harness.recorder.states == [.idle, .running(0), .failed(TestError(message: "item 1"))])
  }

  @Test func itemsThatEndAfterAFailureNeitherChangeItNorStartOthers() async {
    let harness = Harness()
    let items = Items(10)
    let fail = Latch()
    let secondCancelled = Latch()
    harness.runner.start(over: 0..<10, maxConcurrency: 3) { item in
      items.start(item)
      switch item {
      case 0:
        // Finishes its work, cancelled or not, and returns normally.
        await items.waitIgnoringCancellation(0)
      case 1:
        await fail.wait()
        throw TestError(message: "item 1")
      case 2:
        await Latch().wait()  // returns when the item is cancelled
        secondCancelled.open()
        throw TestError(message: "item 2, after the cancel")
      default:
        return
      }
    }
    for item in 0..<3 { await items.started[item].wait() }
    fail.open()
    await secondCancelled.wait()
    // Item 0 is still in flight: the run waits for it.
    #expect(harness.runner.state.phase == .running)
    items.proceed[0].open()
    #expect(await harness.recorder.waitForTerminalState() == .failed(TestError(message: "item 1")))
    await harness.runner.lastRunTask?.value
    #expect(items.startedItems == [0, 1, 2])
    #expect(
      harness.recorder.states == [.idle, .running(0), .failed(TestError(message: "item 1"))])
  }

  @Test func noItemStartsAfterACancel() async {
    let harness = Harness()
    let items = Items(10)
    let sawCancellation = Locked<Set<Int>>([])
    harness.runner.start(over: 0..<10, maxConcurrency: 3) { item in
      items.start(item)
      await items.waitIgnoringCancellation(item)
      if Task.isCancelled { sawCancellation.withLock { _ = $0.insert(item) } }
    }
    for item in 0..<3 { await items.started[item].wait() }
    harness.runner.cancel()
    #expect(harness.runner.state == .cancelled)
    let task = harness.runner.lastRunTask
    for item in 0..<3 { items.proceed[item].open() }  // they end normally, one after another
    await task?.value
    harness.clock.advance(by: frame * 3)
    #expect(items.startedItems == [0, 1, 2])
    #expect(sawCancellation.withLock { $0 } == [0, 1, 2])
    #expect(harness.recorder.states == [.idle, .running(0), .cancelled])
  }

  @Test func runOverItemsReturnsTheTerminalState() async {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    #expect(await runner.run(over: 0..<20, maxConcurrency: 4) { _ in } == .finished)
    #expect(
      await runner.run(over: 0..<20, maxConcurrency: 4) { item in
        if item == 5 { throw TestError(message: "item 5") }
      } == .failed(TestError(message: "item 5")))
    #expect(
      await runner.run(over: [1, 2], maxConcurrency: 2) { _ in throw CancellationError() }
        == .cancelled)

    let started = Latch()
    async let cancelled = runner.run(over: 0..<10, maxConcurrency: 2) { _ in
      started.open()
      await Latch().wait()
    }
    await started.wait()
    runner.cancel()
    #expect(await cancelled == .cancelled)
  }

  @Test func startingOverItemsWhileARunIsActiveStartsNothing() async {
    let harness = Harness()
    let proceed = await harness.startHeldRun(reporting: 0.5)
    let called = Locked(false)
    let started = harness.runner.start(over: [1, 2], maxConcurrency: 2) { _ in
      called.withLock { $0 = true }
    }
    #expect(!started)
    let state = await harness.runner.run(over: [1, 2], maxConcurrency: 2) { _ in
      called.withLock { $0 = true }
    }
    #expect(state == .running(0.5))
    proceed.open()
    await harness.recorder.waitForTerminalState()
    #expect(!called.withLock { $0 })
    #expect(harness.recorder.states == [.idle, .running(0), .running(0.5), .finished])
  }

  // MARK: - A run follows its children from .running(0)

  @Test func aRootWithoutATotalFollowsItsOnlySubprogress() async {
    let harness = Harness()
    let steps = Steps(5)
    harness.runner.start { root in
      let child = root.subprogress(assigningCount: 1).start(totalCount: 4)
      await steps.done(0)
      for step in 1...4 {
        child.complete(count: 1)
        await steps.done(step)
      }
    }
    #expect(harness.runner.state == .running(0))
    for step in 0..<5 {
      await steps.deliver(step, in: harness)
    }
    await harness.recorder.waitForTerminalState()
    #expect(
      harness.recorder.states == [
        .idle, .running(0),
        .running(RunProgress(completed: 0, of: 1)),
        .running(RunProgress(fractionCompleted: 0.25, completed: 0, of: 1)),
        .running(RunProgress(fractionCompleted: 0.5, completed: 0, of: 1)),
        .running(RunProgress(fractionCompleted: 0.75, completed: 0, of: 1)),
        .running(RunProgress(completed: 1, of: 1)),
        .finished,
      ])
  }

  @Test func aRunStaysAtZeroUntilItsRootsCountsChange() async {
    let harness = Harness()
    let steps = Steps(2)
    harness.runner.start { root in
      // A child of nothing assigned changes nothing the root shows.
      let child = root.subprogress(assigningCount: 0).start(totalCount: 2)
      child.complete(count: 1)
      await steps.done(0)
      root.complete(count: 3)
      await steps.done(1)
    }
    await steps.deliver(0, in: harness)
    #expect(harness.recorder.states == [.idle, .running(0)])
    await steps.deliver(1, in: harness)
    await harness.recorder.waitForTerminalState()
    #expect(
      harness.recorder.states == [
        .idle, .running(0), .running(.indeterminate(completed: 3)), .finished,
      ])
  }

  // MARK: - The state carries the root's counts, and each share once

  @Test func theStateShowsEachChildsShareInTheFractionOrTheCount() async {
    let harness = Harness()
    let steps = Steps(6)
    harness.runner.start { root in
      root.report(totalCount: 4)
      await steps.done(0)
      let first = root.subprogress(assigningCount: 2).start(totalCount: 4)
      first.complete(count: 1)
      await steps.done(1)
      first.complete(count: 3)  // finished: its share moves into the count
      await steps.done(2)
      let second = root.subprogress(assigningCount: 2).start(totalCount: nil)
      second.complete(count: 5)  // indeterminate: adds nothing yet
      await steps.done(3)
      second.report(totalCount: 10)
      await steps.done(4)
      second.report(fractionCompleted: 1)
      await steps.done(5)
    }
    for step in 0..<6 {
      await steps.deliver(step, in: harness)
    }
    await harness.recorder.waitForTerminalState()
    #expect(
      harness.recorder.states == [
        .idle, .running(0),
        .running(RunProgress(completed: 0, of: 4)),
        .running(RunProgress(fractionCompleted: 0.125, completed: 0, of: 4)),
        .running(RunProgress(completed: 2, of: 4)),
        .running(RunProgress(fractionCompleted: 0.75, completed: 2, of: 4)),
        .running(RunProgress(completed: 4, of: 4)),
        .finished,
      ])
  }

  @Test func theCompletedCountIncludesFinishedChildrenClampedToTheTotal() async {
    let harness = Harness()
    let steps = Steps(2)
    harness.runner.start { root in
      root.report(totalCount: 10)
      root.complete(count: 8)
      let unfinished = root.subprogress(assigningCount: 4).start(totalCount: 4)
      unfinished.complete(count: 1)
      await steps.done(0)
      _ = root.subprogress(assigningCount: 5).start(totalCount: 0)
      await steps.done(1)
      withExtendedLifetime(unfinished) {}
    }
    for step in 0..<2 {
      await steps.deliver(step, in: harness)
    }
    await harness.recorder.waitForTerminalState()
    #expect(
      harness.recorder.states == [
        .idle, .running(0),
        .running(RunProgress(fractionCompleted: 0.9, completed: 8, of: 10)),
        .running(RunProgress(completed: 10, of: 10)),
        .finished,
      ])
  }

  @Test func framesNeverSeeAShareTwiceOrNotAtAll() async {
    let children = 64
    let halfway = RunState.running(RunProgress(fractionCompleted: 0.5, completed: 0, of: children))
    for _ in 0..<10 {
      let harness = Harness()
      let goOn = Latch()
      harness.runner.start { root in
        root.report(totalCount: children)
        await withTaskGroup(of: Void.self) { group in
          for index in 0..<children {
            group.addTask {
              let child = root.subprogress(assigningCount: 1).start(totalCount: 2)
              child.complete(count: 1)
              await goOn.wait()
              // The share moves into the count in each of the three ways, racing the frames.
              switch index % 3 {
              case 0: child.complete(count: 1)
              case 1: child.report(fractionCompleted: 1)
              default: return  // released unfinished
              }
            }
          }
        }
      }
      await harness.advanceFrames(until: "the state \(halfway)") {
        harness.runner.state == halfway
      }
      goOn.open()
      await harness.advanceFrames(until: "the run to end") {
        harness.runner.state.phase != .running
      }
      let progress = harness.recorder.states.compactMap(\.progress).filter { $0.totalCount != nil }
      let fractions = progress.compactMap(\.fractionCompleted)
      let counts = progress.compactMap(\.completedCount)
      #expect(fractions == fractions.sorted())
      #expect(counts == counts.sorted())
      // Each child adds 0, a half or a whole unit, whichever way a frame read it.
      #expect(
        fractions.allSatisfy { fraction in
          let halves = fraction * Double(children) * 2
          return halves == halves.rounded()
        })
      #expect(
        progress.allSatisfy {
          ($0.fractionCompleted ?? 0) >= Double($0.completedCount ?? 0) / Double(children)
        })
      #expect(harness.recorder.states.contains(halfway))
      #expect(progress.last == RunProgress(completed: children, of: children))
      #expect(harness.recorder.states.last == .finished)
    }
  }

  @Test func aStandaloneReporterShowsWhatTheRunnerShows() async {
    /// Stages with weights, as a run's operation or a unit test would report them.
    @Sendable func report(to root: TaskRunner.Reporter) -> [TaskRunner.Reporter] {
      root.report(totalCount: 10)
      root.complete(count: 2)
      let first = root.subprogress(assigningCount: 3).start(totalCount: 4)
      first.complete(count: 1)
      let second = root.subprogress(assigningCount: 5).start(totalCount: 10)
      second.report(completed: 5, of: 10)
      return [first, second]
    }
    let standalone = TaskRunner.Reporter()
    let children = report(to: standalone)
    let harness = Harness()
    let steps = Steps(1)
    harness.runner.start { root in
      let children = report(to: root)
      await steps.done(0)
      withExtendedLifetime(children) {}
    }
    await steps.deliver(0, in: harness)
    await harness.recorder.waitForTerminalState()
    let expected = RunProgress(fractionCompleted: 0.525, completed: 2, of: 10)
    #expect(standalone.progress == expected)
    // The operation's children went away unfinished as it returned: their shares count as done.
    #expect(
      harness.recorder.states == [
        .idle, .running(0), .running(expected), .running(RunProgress(completed: 10, of: 10)),
        .finished,
      ])
    withExtendedLifetime(children) {}
  }

  // MARK: - Reporters of an ended run are ignored

  @Test func reportsOfAFinishedRunAreIgnoredChildrenIncluded() async throws {
    let harness = Harness()
    let escaped = Locked<[TaskRunner.Reporter]>([])
    let final = await harness.runner.run { root in
      let child = root.subprogress(assigningCount: 2).start(totalCount: 4)
      child.complete(count: 1)
      escaped.withLock { $0 = [root, child] }
    }
    #expect(final == .finished)
    let reporters = escaped.withLock { $0 }
    try #require(reporters.count == 2)
    let (root, child) = (reporters[0], reporters[1])
    child.complete(count: 3)
    child.report(fractionCompleted: 0.5)
    root.complete(count: 7)
    root.report(totalCount: 100)
    let late = root.subprogress(assigningCount: 5).start(totalCount: 2)
    late.complete(count: 1)
    _ = root.subprogress(assigningCount: 3)
    harness.clock.advance(by: frame * 5)
    #expect(harness.runner.state == .finished)
    #expect(
      harness.recorder.states == [
        .idle, .running(0),
        .running(RunProgress(fractionCompleted: 0.25, completed: 0, of: 2)),
        .finished,
      ])
    #expect(harness.clock.scheduledWakeUps == 0)
  }

  @Test func reportsOfACancelledRunReachNeitherItNorTheNextRun() async throws {
    let harness = Harness()
    let escaped = Locked<TaskRunner.Reporter?>(nil)
    let reached = Latch()
    harness.runner.start { root in
      let child = root.subprogress(assigningCount: 1).start(totalCount: 4)
      escaped.withLock { $0 = child }
      reached.open()
      await Latch().wait()  // returns when the run is cancelled
    }
    await reached.wait()
    let child = try #require(escaped.withLock { $0 })
    #expect(!child.isCancelled)
    harness.runner.cancel()
    #expect(child.isCancelled)
    #expect(throws: CancellationError.self) { try child.checkCancellation() }

    let proceed = await harness.startHeldRun(reporting: 0.5)
    child.complete(count: 2)
    child.report(completed: 4, of: 4)
    harness.clock.advance(by: frame * 3)
    #expect(harness.runner.state == .running(0.5))
    proceed.open()
    await harness.recorder.waitForTerminalState()
    #expect(
      harness.recorder.states == [
        .idle, .running(0), .cancelled, .running(0), .running(0.5), .finished,
      ])
  }
}
