import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@Suite("Run state")
struct RunStateTests {
  private struct Opaque: Error {
    var code: Int
  }

  @Test func phaseFractionAndErrorOfEveryCase() {
    let error = TestError()
    let cases: [(RunState, RunPhase, Double?, Bool)] = [
      (.idle, .idle, 0, false),
      (.running(0.4), .running, 0.4, false),
      (.running(.indeterminate()), .running, nil, false),
      (.finished, .finished, 1, false),
      (.failed(error), .failed, 0, true),
      (.cancelled, .cancelled, 0, false),
    ]
    for (state, phase, fraction, hasError) in cases {
      #expect(state.phase == phase)
      #expect(state.fractionCompleted == fraction)
      #expect((state.error != nil) == hasError)
    }
    #expect(RunState.failed(error).error as? TestError == error)
    #expect(RunState.running(0.4).progress == 0.4)
    #expect(RunState.finished.progress == nil)
  }

  @Test func equatableErrorsCompareWithTheirOwnEquality() {
    #expect(RunState.failed(TestError(message: "a")) == .failed(TestError(message: "a")))
    #expect(RunState.failed(TestError(message: "a")) != .failed(TestError(message: "b")))
  }

  @Test func otherErrorsCompareByTypeAndDescription() {
    #expect(RunState.failed(Opaque(code: 1)) == .failed(Opaque(code: 1)))
    #expect(RunState.failed(Opaque(code: 1)) != .failed(Opaque(code: 2)))
    #expect(RunState.failed(CancellationError()) == .failed(CancellationError()))
    #expect(RunState.failed(Opaque(code: 1)) != .failed(TestError()))
  }

  @Test func differentPhasesAreNeverEqual() {
    let states: [RunState] = [.idle, .running(0), .finished, .failed(TestError()), .cancelled]
    for (i, lhs) in states.enumerated() {
      for (j, rhs) in states.enumerated() {
        #expect((lhs == rhs) == (i == j))
      }
    }
  }

  @Test func descriptionNamesThePhaseAndPayload() {
    #expect(RunState.running(RunProgress(completed: 2, of: 5)).description == "running(2/5)")
    #expect(RunState.failed(TestError(message: "disk full")).description == "failed(disk full)")
    #expect(RunState.cancelled.description == "cancelled")
  }
}
