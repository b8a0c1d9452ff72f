import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// Every observer sees the same sequence of states, whatever the callbacks do.
@MainActor
@Suite("Observers", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct ObserverRegistryTests {
  /// Keeps what one observer saw.
  final class Log {
    var states: [RunState] = []
  }

  @Test func anObserverGetsTheCurrentStateAtOnceThenEveryChangeInOrder() async {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    await Harness.finish(runner)
    let log = Log()
    let token = runner.observe { log.states.append($0) }
    #expect(log.states == [.finished])
    runner.reset()
    _ = await runner.run { _ in throw TestError() }
    #expect(log.states == [.finished, .idle, .running(0), .failed(TestError())])
    token.cancel()
  }

  /// Three observers that log what they see; `react` runs in each callback after logging.
  private func observers(
    of runner: TaskRunner, react: @escaping @MainActor (_ index: Int, _ state: RunState) -> Void
  ) -> (logs: [Log], tokens: [ObservationToken]) {
    let logs = (0..<3).map { _ in Log() }
    let tokens = logs.enumerated().map { index, log in
      runner.observe { state in
        log.states.append(state)
        react(index, state)
      }
    }
    return (logs, tokens)
  }

  @Test func aCancelFromInsideACallbackReachesEveryObserverAfterTheCurrentRound() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    let (logs, tokens) = observers(of: runner) { index, state in
      if index == 0, state == .running(0) { runner.cancel() }
    }
    runner.start { _ in await Latch().wait() }
    for log in logs {
      #expect(log.states == [.idle, .running(0), .cancelled])
    }
    tokens.forEach { $0.cancel() }
  }

  @Test func aResetFromInsideACallbackIsSeenAsCancelledThenIdleByEveryone() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    let (logs, tokens) = observers(of: runner) { index, state in
      if index == 1, state == .running(0) { runner.reset() }
    }
    runner.start { _ in await Latch().wait() }
    for log in logs {
      #expect(log.states == [.idle, .running(0), .cancelled, .idle])
    }
    tokens.forEach { $0.cancel() }
  }

  @Test func aStartFromInsideACallbackBeginsANewRunSeenByEveryone() async {
    let harness = Harness()
    var restarted = false
    let (logs, tokens) = observers(of: harness.runner) { index, state in
      if index == 2, state == .failed(TestError()), !restarted {
        restarted = true
        harness.runner.start { _ in }
      }
    }
    _ = await harness.runner.run { _ in throw TestError() }
    await harness.recorder.wait(forStateCount: 5)
    let expected: [RunState] = [.idle, .running(0), .failed(TestError()), .running(0), .finished]
    for log in logs {
      #expect(log.states == expected)
    }
    #expect(harness.recorder.states == expected)
    tokens.forEach { $0.cancel() }
  }

  @Test func anObserverAddedInsideACallbackStartsFromTheCurrentStateAndNeverSeesAnOlderOne() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    let first = Log()
    let late = Log()
    var lateToken: ObservationToken?
    let token = runner.observe { state in
      first.states.append(state)
      if state == .running(0) {
        runner.cancel()  // queued: the runner is cancelled, observers hear of it after this round
        lateToken = runner.observe { late.states.append($0) }
      }
    }
    runner.start { _ in await Latch().wait() }
    #expect(first.states == [.idle, .running(0), .cancelled])
    #expect(late.states == [.cancelled])
    runner.reset()
    #expect(late.states == [.cancelled, .idle])
    token.cancel()
    lateToken?.cancel()
  }

  @Test func anObserverAddedWhileAResetIsDeliveredSeesIdleOnce() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    let late = Log()
    var lateToken: ObservationToken?
    let token = runner.observe { state in
      if state == .cancelled, lateToken == nil {
        lateToken = runner.observe { late.states.append($0) }
      }
    }
    runner.start { _ in await Latch().wait() }
    runner.reset()
    #expect(late.states == [.idle])
    token.cancel()
    lateToken?.cancel()
  }

  @Test func aTokenCancelledMidRoundGetsNoFurtherCallInThatRound() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    let victim = Log()
    var victimToken: ObservationToken?
    let killer = runner.observe { state in
      if state == .running(0) { victimToken?.cancel() }
    }
    victimToken = runner.observe { victim.states.append($0) }
    runner.start { _ in await Latch().wait() }
    runner.cancel()
    #expect(victim.states == [.idle])
    killer.cancel()
  }

  @Test func aTokenReleasedMidRoundGetsNoFurtherCallInThatRound() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    let victim = Log()
    var victimToken: ObservationToken?
    let killer = runner.observe { state in
      if state == .running(0) { victimToken = nil }
    }
    victimToken = runner.observe { victim.states.append($0) }
    #expect(victimToken != nil)
    runner.start { _ in await Latch().wait() }
    runner.cancel()
    #expect(victim.states == [.idle])
    killer.cancel()
  }

  @Test func anObserverMayCancelItsOwnToken() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    let log = Log()
    var token: ObservationToken?
    token = runner.observe { state in
      log.states.append(state)
      if state == .running(0) { token?.cancel() }
    }
    runner.start { _ in await Latch().wait() }
    runner.cancel()
    #expect(log.states == [.idle, .running(0)])
  }

  @Test func observersAreNotCalledReentrantly() {
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    var depth = 0
    var maximumDepth = 0
    let token = runner.observe { state in
      depth += 1
      maximumDepth = max(maximumDepth, depth)
      if state == .running(0) { runner.reset() }
      depth -= 1
    }
    runner.start { _ in await Latch().wait() }
    #expect(maximumDepth == 1)
    token.cancel()
  }

  @Test func aRunnerWithObserversIsReleasedWhenItsOwnerLetsGo() {
    weak var weakRunner: TaskRunner?
    var token: ObservationToken?
    do {
      let runner = TaskRunner(clock: ManualClock())
      weakRunner = runner
      token = runner.observe { _ in }
    }
    #expect(weakRunner == nil)
    #expect(token?.isCancelled == true)  // the registration ended with its runner
  }

  @Test func onlyObserversThatWantFramesAreCountedAsFrameListeners() {
    let registry = ObserverRegistry<Int>()
    var statesSeen: [Int] = []
    var framesSeen: [Int] = []
    let states = registry.add(initial: 0, wantsFrames: false) { statesSeen.append($0) }
    #expect(!registry.hasFrameListeners)
    let frames = registry.add(initial: 0) { framesSeen.append($0) }
    #expect(registry.hasFrameListeners)
    registry.publish(1)
    frames.cancel()
    #expect(!registry.hasFrameListeners)
    registry.publish(2)
    // Both hear every event while registered: the flag only tells the publisher whom to make
    // frames for.
    #expect(statesSeen == [0, 1, 2])
    #expect(framesSeen == [0, 1])
    states.cancel()
    #expect(registry.isEmpty)
  }

  @Test func twoEventsPublishedTogetherReachEveryoneBeforeWhatTheFirstOnesObserversPublish() {
    let registry = ObserverRegistry<Int>()
    var first: [Int] = []
    var second: [Int] = []
    var added: [Int] = []
    var tokens: [ObservationToken] = []
    tokens.append(
      registry.add(initial: 0) { event in
        first.append(event)
        if event == 1 {
          // Published from the first event's round: it comes after the second event.
          registry.publish(3)
          // Added mid-round, after 3 was published: its initial event stands for everything
          // published so far, and it sees what comes after.
          tokens.append(registry.add(initial: 100) { added.append($0) })
        }
        if event == 3 {
          // Published two at once from inside a round: queued, in order, after the round.
          registry.publish(4, then: 5)
        }
      })
    tokens.append(registry.add(initial: 0) { second.append($0) })
    registry.publish(1, then: 2)
    #expect(first == [0, 1, 2, 3, 4, 5])
    #expect(second == [0, 1, 2, 3, 4, 5])
    #expect(added == [100, 4, 5])
    // Outside a round, too.
    registry.publish(6, then: 7)
    #expect(first.suffix(2) == [6, 7])
    #expect(second.suffix(2) == [6, 7])
    #expect(added.suffix(2) == [6, 7])
  }

  @Test func aRunnerMakesFramesOnlyForRenderersNotForObserversOfStates() async {
    let clock = ManualClock()
    let runner = TaskRunner(animation: .instant, clock: clock)
    let log = Log()
    let token = runner.observe { log.states.append($0) }
    #expect(!runner.hasFrameListeners)
    let reported = Latch()
    let proceed = Latch()
    runner.start { reporter in
      reporter.report(completed: 1, of: 2)
      reported.open()
      await proceed.wait(for: "the test to let the operation end")
    }
    let task = runner.lastRunTask
    await reported.wait(for: "the operation to report")
    clock.advance(by: runner.updateInterval)
    #expect(log.states == [.idle, .running(0), .running(RunProgress(completed: 1, of: 2))])
    let recorder = StateRecorder(observing: runner, recordingFrames: true)
    #expect(runner.hasFrameListeners)
    clock.advance(by: runner.updateInterval)
    #expect(recorder.frames.map(\.state) == [.running(RunProgress(completed: 1, of: 2))])
    recorder.stop()
    #expect(!runner.hasFrameListeners)
    proceed.open()
    await task?.value
    #expect(
      log.states == [.idle, .running(0), .running(RunProgress(completed: 1, of: 2)), .finished])
    token.cancel()
  }

  @Test func aCancelledObserversClosureIsReleased() {
    final class Captured {}
    let runner = TaskRunner(animation: .instant, clock: ManualClock())
    weak var weakCaptured: Captured?
    var token: ObservationToken?
    do {
      let captured = Captured()
      weakCaptured = captured
      token = runner.observe { _ in _ = captured }
    }
    #expect(weakCaptured != nil)
    token = nil
    runner.start { _ in }  // the next delivery prunes cancelled observers
    #expect(weakCaptured == nil)
    _ = token
  }
}

extension Harness {
  /// Runs an operation that returns at once to completion.
  static func finish(_ runner: TaskRunner) async {
    _ = await runner.run { _ in }
  }
}
