import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("Observation token", .timeLimit(.minutes(1)))
struct ObservationTokenTests {
  @Test func cancelStopsCallsAndIsIdempotent() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    var count = 0
    let token = runner.observe { _ in count += 1 }
    #expect(count == 1)
    #expect(!token.isCancelled)
    token.cancel()
    token.cancel()
    #expect(token.isCancelled)
    runner.start { _ in await Latch().wait() }
    runner.cancel()
    #expect(count == 1)
  }

  @Test func releasingTheTokenStopsCalls() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    var count = 0
    var token: ObservationToken? = runner.observe { _ in count += 1 }
    #expect(token != nil)
    token = nil
    runner.start { _ in await Latch().wait() }
    runner.cancel()
    #expect(count == 1)
  }

  @Test func aTokenCanBeCancelledFromAnotherThread() async {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    var count = 0
    let token = runner.observe { _ in count += 1 }
    await Task.detached { token.cancel() }.value
    runner.start { _ in await Latch().wait() }
    runner.cancel()
    #expect(count == 1)
  }

  @Test func tokensAreHashableByIdentityAndCanBeStoredInASet() {
    let runner = TaskRunner(clock: ManualClock())
    var tokens: Set<ObservationToken> = []
    let first = runner.observe { _ in }
    first.store(in: &tokens)
    first.store(in: &tokens)
    runner.observe { _ in }.store(in: &tokens)
    #expect(tokens.count == 2)
    #expect(first == first)
    #expect(tokens.contains(first))
  }
}
