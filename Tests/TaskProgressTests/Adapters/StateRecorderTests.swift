import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("State recorder", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct StateRecorderTests {
  @Test func recordsTheCurrentStateThenEveryChange() async {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    _ = await runner.run { _ in }
    let recorder = StateRecorder(observing: runner)
    _ = await runner.run { _ in throw TestError() }
    #expect(recorder.states == [.finished, .running(0), .failed(TestError())])
    #expect(recorder.phases == [.finished, .running, .failed])
  }

  @Test func matchingExpectationsDoNotThrow() async throws {
    let harness = Harness()
    _ = await harness.runner.run { _ in }
    try harness.recorder.expectStates([.idle, .running(0), .finished])
    try harness.recorder.expectPhases([.idle, .running, .finished])
  }

  @Test func aMismatchNamesTheFirstDifferenceAndShowsBothSequences() async {
    let harness = Harness()
    _ = await harness.runner.run { _ in }
    let expected: [RunState] = [.idle, .running(0), .running(0.5), .finished]
    #expect {
      try harness.recorder.expectStates(expected)
    } throws: { error in
      guard let mismatch = error as? StateRecorder.Mismatch else { return false }
      return mismatch.index == 2
        && mismatch.description == """
          Recorded states differ from the expected ones at index 2 (expected 4, recorded 3):
                #  expected      recorded
                0  idle          idle
                1  running(0%)   running(0%)
            ✗   2  running(50%)  finished
            ✗   3  finished      —
          """
    }
  }

  @Test func differentValuesThatPrintAlikeAreShownInFull() async throws {
    let harness = Harness()
    let proceed = await harness.startHeldRun(reporting: 0.1 + 0.2)
    let expected: [RunState] = [.idle, .running(0), .running(0.3)]
    #expect {
      try harness.recorder.expectStates(expected)
    } throws: { error in
      guard let mismatch = error as? StateRecorder.Mismatch else { return false }
      return mismatch.differingRows == [2]
        && mismatch.description.contains(
          "✗   2  running(RunProgress(fractionCompleted: 0.3, completedCount: nil, totalCount: nil, "
            + "message: nil))"
            + "  running(RunProgress(fractionCompleted: 0.30000000000000004,")
        && mismatch.description.contains("    1  running(0%)")
    }
    proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func phaseMismatchesAreReportedToo() async {
    let harness = Harness()
    _ = await harness.runner.run { _ in throw TestError() }
    #expect(throws: StateRecorder.Mismatch.self) {
      try harness.recorder.expectPhases([.idle, .running, .finished])
    }
    #expect(throws: StateRecorder.Mismatch.self) {
      try harness.recorder.expectPhases([.idle, .running])
    }
  }

  @Test func stopAndReleaseEndRecording() async {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    let stopped = StateRecorder(observing: runner)
    weak var released: StateRecorder?
    do {
      let recorder = StateRecorder(observing: runner)
      released = recorder
    }
    #expect(released == nil)
    stopped.stop()
    _ = await runner.run { _ in }
    #expect(stopped.states == [.idle])
  }

  @Test func removeAllForgetsButKeepsRecording() async {
    let harness = Harness()
    _ = await harness.runner.run { _ in }
    harness.recorder.removeAll()
    harness.runner.reset()
    #expect(harness.recorder.states == [.idle])
  }

  @Test func waitingForATerminalStateReturnsIt() async {
    let harness = Harness()
    harness.runner.start { _ in throw TestError() }
    #expect(await harness.recorder.waitForTerminalState() == .failed(TestError()))
    // Already terminal: returns at once.
    #expect(await harness.recorder.waitForTerminalState() == .failed(TestError()))
  }

  @Test func waitingReturnsTheTerminalStateEvenIfAnObserverStartsAnotherRunOnIt() async {
    let harness = Harness()
    var restarted = false
    let token = harness.runner.observe { state in
      if state == .finished, !restarted {
        restarted = true
        harness.runner.start { _ in await Latch().wait() }
      }
    }
    harness.runner.start { _ in }
    #expect(await harness.recorder.waitForTerminalState() == .finished)
    #expect(harness.runner.state == .running(0))
    harness.runner.cancel()
    token.cancel()
  }

  @Test func waitingEndsWhenTheWaitingTaskIsCancelled() async {
    let harness = Harness()
    harness.runner.start { _ in await Latch().wait() }
    let waiting = Task { @MainActor in await harness.recorder.waitForTerminalState() }
    let counting = Task { @MainActor in await harness.recorder.wait(forStateCount: 99) }
    waiting.cancel()
    counting.cancel()
    #expect(await waiting.value == nil)
    #expect(await counting.value == false)
    harness.runner.cancel()
  }

  @Test func framesAreRecordedOnlyWhenAsked() async {
    let quiet = Harness(animation: ProgressAnimation(curve: .linear))
    let framed = Harness(animation: ProgressAnimation(curve: .linear), recordingFrames: true)
    for harness in [quiet, framed] {
      _ = await harness.runner.run { _ in }
      harness.clock.advance(by: .seconds(1))
    }
    #expect(quiet.recorder.frames.isEmpty)
    #expect(!framed.recorder.frames.isEmpty)
    #expect(framed.recorder.frames.allSatisfy { $0.reason == .frame })
    #expect(framed.recorder.frames.map(\.displayedProgress).last == 1)
  }
}
