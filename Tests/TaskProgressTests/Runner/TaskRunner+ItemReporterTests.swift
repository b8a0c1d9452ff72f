import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A run over items with a reporter per item: `Reporter.forEach` in the run's operation, which
/// takes the place of a `start(over:)` that handed each item a subprogress.
@Suite(
  "Task runner over items with a reporter each", .timeLimit(TestScale.timeLimit(minutes: 2)))
@MainActor
struct TaskRunnerItemReporterTests {
  @Test func progressWithinItemsShowsBeyondTheCountOfItemsDone() async {
    let harness = Harness()
    let (reachedA, reachedB, proceedA, proceedB, doneA) = (
      Latch(), Latch(), Latch(), Latch(), Latch()
    )
    harness.runner.start { reporter in
      try await reporter.forEach(["a", "b"], maxConcurrency: 2) { item, reporter in
        reporter.report(totalCount: 4)
        if item == "a" {
          reporter.complete(count: 2)
          reachedA.open()
          await proceedA.wait()
          reporter.complete(count: 2)  // 4 of 4: the child finishes and hands its item over
          doneA.open()
        } else {
          reporter.complete(count: 1)
          reachedB.open()
          await proceedB.wait()
          reporter.complete(count: 3)
        }
      }
    }
    await reachedA.wait()
    await reachedB.wait()
    harness.clock.advance(by: frame)
    #expect(
      harness.runner.state == .running(RunProgress(fractionCompleted: 0.375, completed: 0, of: 2)))
    proceedA.open()
    await doneA.wait()
    harness.clock.advance(by: frame)
    #expect(
      harness.runner.state == .running(RunProgress(fractionCompleted: 0.625, completed: 1, of: 2)))
    proceedB.open()
    _ = await harness.recorder.waitForTerminalState()
    #expect(
      harness.recorder.states == [
        .idle, .running(.zero),
        .running(RunProgress(fractionCompleted: 0.375, completed: 0, of: 2)),
        .running(RunProgress(fractionCompleted: 0.625, completed: 1, of: 2)),
        .running(RunProgress(completed: 2, of: 2)), .finished,
      ])
  }

  @Test(arguments: [1, 3, 0, -4])
  func itemsThatNeverReportCountWhenTheyReturn(maxConcurrency: Int) async {
    let harness = Harness()
    let performed = Atomic<Int>(0)
    let final = await harness.runner.run { reporter in
      try await reporter.forEach(0..<7, maxConcurrency: maxConcurrency) { _, _ in
        performed.wrappingAdd(1, ordering: .relaxed)
      }
    }
    #expect(final == .finished)
    #expect(performed.load(ordering: .relaxed) == 7)
    #expect(harness.recorder.states.dropLast().last == .running(RunProgress(completed: 7, of: 7)))
  }

  @Test func atMostMaxConcurrencyItemsRunAtOnce() async {
    let harness = Harness()
    let inFlight = Atomic<Int>(0)
    let highest = Atomic<Int>(0)
    let final = await harness.runner.run { reporter in
      try await reporter.forEach(0..<40, maxConcurrency: 3) { _, reporter in
        let now = inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        highest.max(now, ordering: .relaxed)
        reporter.report(totalCount: 2)
        await Task.yield()
        reporter.complete(count: 2)
        inFlight.wrappingSubtract(1, ordering: .relaxed)
      }
    }
    #expect(final == .finished)
    #expect((1...3).contains(highest.load(ordering: .relaxed)))
    #expect(harness.recorder.states.dropLast().last == .running(RunProgress(completed: 40, of: 40)))
  }

  @Test func anEmptyCollectionFinishesAtOnce() async {
    let harness = Harness()
    let final = await harness.runner.run { reporter in
      try await reporter.forEach([Int](), maxConcurrency: 4) { _, _ in
        Issue.record("no item to perform")
      }
    }
    #expect(final == .finished)
  }

  @Test func theFirstErrorFailsTheRunAndNoItemStartsAfterIt() async {
    let harness = Harness()
    let started = Atomic<Int>(0)
    let final = await harness.runner.run { reporter in
      try await reporter.forEach(1...20, maxConcurrency: 2) { item, reporter in
        started.wrappingAdd(1, ordering: .relaxed)
        reporter.report(totalCount: 1)
        if item == 3 { throw TestError(message: "item 3") }
        if item == 2 { try await Task.sleep(for: .seconds(60)) }  // cancelled by the failure
      }
    }
    #expect(final == .failed(TestError(message: "item 3")))
    #expect(started.load(ordering: .relaxed) == 3)
  }
}
