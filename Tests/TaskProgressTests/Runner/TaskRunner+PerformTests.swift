import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("Task runner perform", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerPerformTests {
  @Test func theOperationsValueComesBackTyped() async throws {
    let harness = Harness()
    let chunks: [[UInt8]] = [Array("a\nb\n".utf8), Array("c\n".utf8), []]
    let lineCount: Int = try await harness.runner.perform { reporter in
      var lines = 0
      for (index, chunk) in chunks.enumerated() {
        try await reporter.checkpoint()
        lines += chunk.count(where: { $0 == UInt8(ascii: "\n") })
        reporter.report(completed: index + 1, of: chunks.count)
      }
      return lines
    }
    #expect(lineCount == 3)
    try harness.recorder.expectStates([
      .idle, .running(0), .running(RunProgress(completed: 3, of: 3)), .finished,
    ])
  }

  @Test func anErrorIsThrownAsTheOperationThrewIt() async throws {
    let harness = Harness()
    await #expect(throws: TestError(message: "disk full")) {
      try await harness.runner.perform { _ -> Int in throw TestError(message: "disk full") }
    }
    #expect(harness.runner.state == .failed(TestError(message: "disk full")))
  }

  @Test func anOperationThrowingCancellationEndsCancelled() async throws {
    let harness = Harness()
    await #expect(throws: CancellationError.self) {
      try await harness.runner.perform { _ -> String in throw CancellationError() }
    }
    #expect(harness.runner.state == .cancelled)
  }

  @Test func cancellingTheRunnerThrowsCancellationEvenIfTheOperationReturns() async throws {
    let harness = Harness()
    let reached = Latch()
    let proceed = Latch()
    let caller = Task {
      try await harness.runner.perform { _ -> Int in
        reached.open()
        await Task { await proceed.wait() }.value  // ignores the cancel, then returns
        return 42
      }
    }
    await reached.wait()
    harness.runner.cancel()
    proceed.open()
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(harness.runner.state == .cancelled)
  }

  @Test func cancellingTheCallerCancelsTheRun() async throws {
    let harness = Harness()
    let reached = Latch()
    let caller = Task {
      try await harness.runner.perform { _ -> Int in
        reached.open()
        await Latch().wait()
        try Task.checkCancellation()
        return 1
      }
    }
    await reached.wait()
    caller.cancel()
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(harness.runner.state == .cancelled)
  }

  @Test(arguments: [RunPhase.running, .paused])
  func aBusyRunnerStartsNothingAndSaysWhy(phase: RunPhase) async throws {
    let harness = Harness()
    await harness.drive(to: phase)
    let called = Latch()
    let error = await #expect(throws: TaskRunner.AlreadyActiveError.self) {
      try await harness.runner.perform { _ in called.open() }
    }
    #expect(error == TaskRunner.AlreadyActiveError(phase: phase))
    #expect(error?.description.contains("another run is active (\(phase))") == true)
    #expect(!called.isOpen)
    #expect(harness.runner.state.phase == phase)
    harness.runner.cancel()
  }
}
