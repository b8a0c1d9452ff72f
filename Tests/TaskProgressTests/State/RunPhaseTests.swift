import Testing

@testable import TaskProgress

@Suite("Run phase")
struct RunPhaseTests {
  @Test func onlyFinishedFailedAndCancelledAreTerminal() {
    let terminal = RunPhase.allCases.filter(\.isTerminal)
    #expect(terminal == [.finished, .failed, .cancelled])
  }

  @Test func descriptionIsTheCaseName() {
    #expect(
      RunPhase.allCases.map(\.description) == [
        "idle", "running", "paused", "finished", "failed", "cancelled",
      ])
  }
}
