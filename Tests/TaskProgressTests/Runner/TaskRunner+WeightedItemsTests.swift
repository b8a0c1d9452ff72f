import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A file of a given size, the usual thing to weigh.
private struct File: Sendable {
  let name: String
  let size: Int
}

/// Per-item latches: an item says when it reached a point, and waits until the test lets it go on.
private final class Gates: Sendable {
  private let reached: [String: Latch]
  private let proceed: [String: Latch]

  init(_ names: [String]) {
    reached = Dictionary(uniqueKeysWithValues: names.map { ($0, Latch()) })
    proceed = Dictionary(uniqueKeysWithValues: names.map { ($0, Latch()) })
  }

  /// In an item: notes that it reached the point, then waits, ignoring cancellation.
  func pass(_ name: String) async {
    reached[name]?.open()
    guard let proceed = proceed[name] else { return }
    // An unstructured task is not cancelled with this one.
    await Task { await proceed.wait() }.value
  }

  /// In the test: waits until the item reached the point.
  func waitUntilReached(_ name: String) async {
    await reached[name]?.wait(for: "\(name) to reach its gate")
  }

  /// In the test: lets the item go on.
  func open(_ name: String) {
    proceed[name]?.open()
  }
}

@MainActor
@Suite("Task runner over weighted items", .timeLimit(TestScale.timeLimit(minutes: 2)))
struct TaskRunnerWeightedItemsTests {
  // MARK: - Items that count for their weight

  @Test(arguments: [1, 3])
  func theTotalIsTheSumOfTheWeightsAndNegativeWeightsCountAsZero(maxConcurrency: Int) async {
    let harness = Harness()
    let files = [File(name: "a", size: 3), File(name: "b", size: -2), File(name: "c", size: 5)]
    let performed = Atomic<Int>(0)
    let final = await harness.runner.run(
      over: files, maxConcurrency: maxConcurrency, weight: \.size
    ) { _ in
      performed.add(1, ordering: .relaxed)
    }
    #expect(final == .finished)
    #expect(performed.load(ordering: .relaxed) == 3)
    #expect(harness.recorder.states.dropLast().last == .running(RunProgress(completed: 8, of: 8)))
  }

  @Test func aHeavyItemMovesTheRunByItsWeight() async {
    let harness = Harness()
    let gates = Gates(["small", "heavy"])
    let files = [File(name: "small", size: 1), File(name: "heavy", size: 9)]
    harness.runner.start(over: files, maxConcurrency: 2, weight: \.size) { file in
      await gates.pass(file.name)
    }
    await gates.waitUntilReached("small")
    await gates.waitUntilReached("heavy")
    let nothingDone = RunState.running(RunProgress(completed: 0, of: 10))
    await harness.advanceFrames(until: "the state \(nothingDone)") {
      harness.runner.state == nothingDone
    }
    gates.open("heavy")
    let heavyDone = RunState.running(RunProgress(completed: 9, of: 10))
    await harness.advanceFrames(until: "the state \(heavyDone)") {
      harness.runner.state == heavyDone
    }
    #expect(harness.runner.state.fractionCompleted == 0.9)
    gates.open("small")
    #expect(await harness.recorder.waitForTerminalState() == .finished)
    #expect(
      harness.recorder.states == [
        .idle, .running(0),
        .running(RunProgress(completed: 0, of: 10)),
        .running(RunProgress(completed: 9, of: 10)),
        .running(RunProgress(completed: 10, of: 10)),
        .finished,
      ])
  }

  @Test func theWeightIsAskedOncePerItem() async {
    let harness = Harness()
    let asked = Atomic<Int>(0)
    let final = await harness.runner.run(
      over: 0..<6, maxConcurrency: 2,
      weight: { item in
        asked.add(1, ordering: .relaxed)
        return item
      },
      perform: { _ in }
    )
    #expect(final == .finished)
    #expect(asked.load(ordering: .relaxed) == 6)
    #expect(
      harness.recorder.states.dropLast().last == .running(RunProgress(completed: 15, of: 15)))
  }

  @Test func anEmptyCollectionFinishesAtOnce() async {
    let harness = Harness()
    let final = await harness.runner.run(
      over: [File](), maxConcurrency: 4, weight: \.size
    ) { _ in
      Issue.record("no item to perform")
    }
    #expect(final == .finished)
    let withReporters = await harness.runner.run { reporter in
      try await reporter.forEach([File](), maxConcurrency: 4, weight: \.size) { _, _ in
        Issue.record("no item to perform")
      }
    }
    #expect(withReporters == .finished)
  }

  // MARK: - Items with a reporter each, through Reporter.forEach

  @Test func anItemsReportsMoveItsShareOfTheRun() async {
    let harness = Harness()
    let gates = Gates(["big", "small"])
    let files = [File(name: "big", size: 8), File(name: "small", size: 2)]
    harness.runner.start { reporter in
      try await reporter.forEach(files, maxConcurrency: 2, weight: \.size) { file, reporter in
        if file.name == "big" {
          reporter.report(completed: 1, of: 4)  // a quarter of 8 of the run's 10 units
        } else {
          reporter.report(fractionCompleted: 0.5)  // half of 2
        }
        await gates.pass(file.name)
      }
    }
    await gates.waitUntilReached("big")
    await gates.waitUntilReached("small")
    let partway = RunState.running(RunProgress(fractionCompleted: 0.3, completed: 0, of: 10))
    await harness.advanceFrames(until: "the state \(partway)") { harness.runner.state == partway }
    // Returning completes the item, whatever it reported last.
    gates.open("big")
    let bigDone = RunState.running(RunProgress(fractionCompleted: 0.9, completed: 8, of: 10))
    await harness.advanceFrames(until: "the state \(bigDone)") { harness.runner.state == bigDone }
    gates.open("small")
    #expect(await harness.recorder.waitForTerminalState() == .finished)
    #expect(
      harness.recorder.states == [
        .idle, .running(0),
        partway, bigDone,
        .running(RunProgress(completed: 10, of: 10)),
        .finished,
      ])
  }

  @Test func anItemThatNeverReportsCountsWhenItReturns() async {
    let harness = Harness()
    let kept = Locked<[TaskRunner.Reporter]>([])
    let final = await harness.runner.run { reporter in
      try await reporter.forEach([4, -1, 6], weight: \.self) { _, reporter in
        kept.withLock { $0.append(reporter) }  // a copy kept past the item's end
      }
    }
    #expect(final == .finished)
    #expect(
      harness.recorder.states.dropLast().last == .running(RunProgress(completed: 10, of: 10)))
    #expect(kept.withLock { $0.count } == 3)
  }

  @Test func atMostMaxConcurrencyItemsRunAtOnceAndEachOnce() async {
    let harness = Harness()
    let inFlight = Atomic<Int>(0)
    let highest = Atomic<Int>(0)
    let performed = Locked(Array(repeating: 0, count: 40))
    let final = await harness.runner.run { reporter in
      try await reporter.forEach(0..<40, maxConcurrency: 3, weight: { _ in 2 }) { item, reporter in
        let now = inFlight.add(1, ordering: .relaxed).newValue
        highest.max(now, ordering: .relaxed)
        performed.withLock { $0[item] += 1 }
        reporter.report(completed: 1, of: 2)
        await Task.yield()
        inFlight.subtract(1, ordering: .relaxed)
      }
    }
    #expect(final == .finished)
    #expect((1...3).contains(highest.load(ordering: .relaxed)))
    #expect(performed.withLock { $0 } == Array(repeating: 1, count: 40))
    #expect(
      harness.recorder.states.dropLast().last == .running(RunProgress(completed: 80, of: 80)))
  }

  @Test func theFirstErrorFailsTheRunAndNoItemStartsAfterIt() async {
    let harness = Harness()
    let started = Atomic<Int>(0)
    let final = await harness.runner.run { reporter in
      try await reporter.forEach(1...20, maxConcurrency: 2, weight: \.self) { item, _ in
        started.add(1, ordering: .relaxed)
        if item == 3 { throw TestError(message: "item 3") }
        if item == 2 { try await Task.sleep(for: .seconds(60)) }  // cancelled by the failure
      }
    }
    #expect(final == .failed(TestError(message: "item 3")))
    #expect(started.load(ordering: .relaxed) == 3)
  }
}
