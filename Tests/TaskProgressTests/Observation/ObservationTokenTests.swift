import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("Observation token", .timeLimit(TestScale.timeLimit(minutes: 1)))
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

  @Test func observersStoredInASetAreCalledForAsLongAsItHoldsTheirTokens() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    var fromSet: [RunPhase] = []
    var set: Set<ObservationToken>? = []
    runner.observe { fromSet.append($0.phase) }.store(in: &set!)
    runner.start { _ in await Latch().wait() }
    #expect(fromSet == [.idle, .running])
    set = nil
    runner.cancel()
    #expect(fromSet == [.idle, .running])
  }

  @Test func anObserversTokenEndsTheCallsWhenReleasedWhileAnAttachedRenderersDoesNot() {
    let clock = ManualClock()
    let runner = TaskRunner(animation: .instant, clock: clock)
    let group = TaskRunnerGroup(clock: clock)
    var observed: [RunPhase] = []
    var summaries = 0
    var keptSummaries = 0
    let renderer = RecordingRenderer()
    let groupRenderer = EventCounter()
    do {
      _ = runner.observe { observed.append($0.phase) }
      _ = group.observe { _ in summaries += 1 }
      runner.attach(renderer)
      group.attach(groupRenderer)
    }
    let kept = group.observe { _ in keptSummaries += 1 }
    let events = groupRenderer.count
    group.add(runner)
    runner.start { _ in await Latch().wait() }
    clock.advance(by: frame)
    runner.cancel()
    clock.advance(by: frame)
    withExtendedLifetime(kept) {}
    #expect(observed == [.idle])
    #expect(summaries == 1)
    #expect(keptSummaries > 1)
    #expect(renderer.phases == [.idle, .running, .cancelled])
    #expect(groupRenderer.count > events)
  }
}

/// A group renderer that counts the events it is given.
@MainActor
private final class EventCounter: GroupRenderer {
  var count = 0

  func render(_ event: TaskRunnerGroup.Event) {
    count += 1
  }
}
