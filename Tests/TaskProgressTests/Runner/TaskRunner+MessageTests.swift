import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("Task runner messages", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerMessageTests {
  @Test func aMessageReachesObserversAtTheNextFrameWithTheCounts() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    run.reporter.report(message: "Hashing a.jpg")
    run.reporter.report(completed: 1, of: 4)
    #expect(harness.runner.state == .running(0), "not before the frame")
    harness.clock.advance(by: frame)
    #expect(
      harness.runner.state == .running(RunProgress(completed: 1, of: 4, message: "Hashing a.jpg")))
    // A message alone is a change; the same message again is none; nil clears it.
    run.reporter.report(message: "Hashing b.jpg")
    harness.clock.advance(by: frame)
    run.reporter.report(message: "Hashing b.jpg")
    harness.clock.advance(by: frame)
    run.reporter.report(message: nil)
    harness.clock.advance(by: frame)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
    try harness.recorder.expectStates([
      .idle, .running(0),
      .running(RunProgress(completed: 1, of: 4, message: "Hashing a.jpg")),
      .running(RunProgress(completed: 1, of: 4, message: "Hashing b.jpg")),
      .running(RunProgress(completed: 1, of: 4)), .finished,
    ])
  }

  @Test func messagesAreCoalescedToTheFrameLikeCounts() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    for index in 0..<1_000 {
      run.reporter.report(message: "item \(index)")
    }
    harness.clock.advance(by: frame)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
    try harness.recorder.expectStates([
      .idle, .running(0), .running(RunProgress(fractionCompleted: 0, message: "item 999")),
      .finished,
    ])
  }

  @Test func theStateShowsTheLatestMessageOfAnyReporterOfTheRun() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    let root = run.reporter
    root.report(totalCount: 2)
    root.report(message: "Downloading")
    harness.clock.advance(by: frame)
    #expect(harness.runner.state.progress?.message == "Downloading")
    let child = root.subprogress(assigningCount: 1).start(totalCount: 10)
    child.report(message: "Parsing page 1")
    harness.clock.advance(by: frame)
    #expect(harness.runner.state.progress?.message == "Parsing page 1")
    root.report(message: "Downloading")
    harness.clock.advance(by: frame)
    #expect(harness.runner.state.progress?.message == "Downloading")
    child.complete(count: 10)
    harness.clock.advance(by: frame)
    #expect(
      harness.runner.state == .running(RunProgress(completed: 1, of: 2, message: "Downloading")))
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func theLastMessageBeforeTheEndReachesObserversFirst() async throws {
    let harness = Harness()
    _ = await harness.runner.run { reporter in
      reporter.report(completed: 3, of: 10)
      reporter.report(message: "failing on item 4")
      throw TestError()
    }
    try harness.recorder.expectStates([
      .idle, .running(0), .running(RunProgress(completed: 3, of: 10, message: "failing on item 4")),
      .failed(TestError()),
    ])
  }

  @Test func aNewRunStartsWithoutTheLastRunsMessageAndIgnoresAStaleOne() async throws {
    let harness = Harness()
    let first = await HeldRun.start(on: harness.runner)
    first.reporter.report(message: "first")
    harness.clock.advance(by: frame)
    harness.runner.cancel()
    let second = await HeldRun.start(on: harness.runner)
    first.reporter.report(message: "stale")
    harness.clock.advance(by: frame)
    #expect(harness.runner.state == .running(0))
    second.reporter.report(message: "second")
    harness.clock.advance(by: frame)
    #expect(harness.runner.state == .running(RunProgress(fractionCompleted: 0, message: "second")))
    first.proceed.open()
    second.proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func aStandaloneReporterShowsItsMessageInItsProgress() {
    let reporter = TaskRunner.Reporter(totalCount: 4)
    reporter.report(message: "Hashing")
    reporter.complete(count: 1)
    #expect(reporter.progress == RunProgress(completed: 1, of: 4, message: "Hashing"))
    #expect(reporter.progress.description == "1/4 \"Hashing\"")
  }

  @Test func concurrentReportersLeaveTheMessageOfOneOfThem() async throws {
    let harness = Harness()
    let texts = (0..<8).map { "worker \($0)" }
    _ = await harness.runner.run { reporter in
      await withTaskGroup(of: Void.self) { group in
        for text in texts {
          group.addTask {
            for _ in 0..<5_000 { reporter.report(message: text) }
          }
        }
      }
    }
    let messages = harness.recorder.states.compactMap(\.progress?.message)
    #expect(messages.allSatisfy(texts.contains))
    #expect(harness.recorder.phases.last == .finished)
  }
}
