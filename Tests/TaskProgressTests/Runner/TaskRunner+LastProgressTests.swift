import Observation
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A run that ended keeps where it got to, beside its state, for views and renderers.
@MainActor
@Suite("Task runner last progress", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerLastProgressTests {
  private func reportAndEnd(
    _ harness: Harness, throwing error: (any Error)? = nil
  ) async -> RunState {
    await harness.runner.run { reporter in
      reporter.report(completed: 24, of: 25)
      reporter.expect(bytes: 1_050_000_000)
      reporter.complete(bytes: 1_000_000_000)
      reporter.report(message: "24 files")
      if let error { throw error }
    }
  }

  @Test func aFinishedRunKeepsItsLastCountsBytesAndMessage() async {
    let harness = Harness()
    #expect(harness.runner.lastProgress == nil)
    let end = await reportAndEnd(harness)
    #expect(end == .finished)
    let last = harness.runner.lastProgress
    #expect(last?.completedCount == 24)
    #expect(last?.completedByteCount == 1_000_000_000)
    #expect(last?.message == "24 files")
    #expect(harness.runner.state.progress == nil)
  }

  @Test func failedAndCancelledRunsKeepTheirsToo() async {
    let harness = Harness()
    #expect(await reportAndEnd(harness, throwing: TestError()).phase == .failed)
    #expect(harness.runner.lastProgress?.message == "24 files")
    let run = await HeldRun.start(on: harness.runner)
    run.reporter.report(completed: 3, of: 9)
    harness.clock.advance(by: frame)
    harness.runner.cancel()
    #expect(harness.runner.lastProgress == RunProgress(completed: 3, of: 9))
    run.proceed.open()
  }

  @Test func resetAndTheNextStartClearIt() async {
    let harness = Harness()
    _ = await reportAndEnd(harness)
    harness.runner.reset()
    #expect(harness.runner.lastProgress == nil)
    _ = await reportAndEnd(harness)
    let run = await HeldRun.start(on: harness.runner)
    #expect(harness.runner.lastProgress == RunProgress.zero)
    harness.runner.cancel()
    run.proceed.open()
  }

  @Test func renderersGetItWithTheUpdateThatEndsTheRun() async {
    let harness = Harness()
    let renderer = RecordingRenderer()
    let token = harness.runner.attach(renderer)
    _ = await reportAndEnd(harness)
    let updates = renderer.updates
    let end = updates.last { $0.reason == .stateChanged }
    #expect(end?.state == .finished)
    #expect(end?.lastProgress?.completedByteCount == 1_000_000_000)
    #expect(end?.unit.format(throughput: 52_000_000, of: end?.lastProgress) == "52.0 MB/s")
    #expect(updates.first?.lastProgress == nil)  // idle
    token.cancel()
  }

  @Test func observationReportsItWithTheState() async {
    let harness = Harness()
    let changed = Latch()
    withObservationTracking {
      _ = harness.runner.lastProgress
    } onChange: {
      changed.open()
    }
    _ = await reportAndEnd(harness)
    await changed.wait(for: "Observation to report a change of lastProgress")
  }
}
