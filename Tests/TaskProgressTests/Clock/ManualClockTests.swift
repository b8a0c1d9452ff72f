import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@Suite("Manual clock", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct ManualClockTests {
  @Test func timeMovesOnlyWhenAdvanced() async {
    let clock = ManualClock()
    #expect(clock.now == ManualClock.Instant(offset: .zero))
    await clock.advance(by: .seconds(2))
    #expect(clock.now.offset == .seconds(2))
    await clock.advance(to: ManualClock.Instant(offset: .seconds(5)))
    #expect(clock.now.offset == .seconds(5))
    #expect(clock.minimumResolution == .zero)
  }

  @Test func movingBackwardsDoesNothing() async {
    let clock = ManualClock(now: ManualClock.Instant(offset: .seconds(3)))
    await clock.advance(by: .seconds(-1))
    await clock.advance(to: ManualClock.Instant(offset: .seconds(1)))
    #expect(clock.now.offset == .seconds(3))
  }

  @Test func instantsDoArithmetic() {
    let start = ManualClock.Instant(offset: .seconds(1))
    let later = start.advanced(by: .milliseconds(500))
    #expect(start.duration(to: later) == .milliseconds(500))
    #expect(start < later)
    #expect(later.description == Duration.milliseconds(1500).description)
  }

  @Test func aSleeperWakesWhenTheClockPassesItsDeadline() async throws {
    let clock = ManualClock()
    let woke = Latch()
    let sleeper = Task {
      try await clock.sleep(until: ManualClock.Instant(offset: .seconds(1)))
      woke.open()
    }
    await waitUntil("the sleeper to register") { clock.scheduledWakeUps > 0 }
    await clock.advance(by: .milliseconds(999))
    #expect(!woke.isOpen)
    #expect(clock.scheduledWakeUps == 1)
    await clock.advance(by: .milliseconds(1))
    try await sleeper.value
    #expect(woke.isOpen)
    #expect(clock.scheduledWakeUps == 0)
  }

  @Test func aDeadlineInThePastReturnsAtOnce() async throws {
    let clock = ManualClock(now: ManualClock.Instant(offset: .seconds(10)))
    try await clock.sleep(until: ManualClock.Instant(offset: .seconds(1)))
    try await clock.sleep(for: .zero)
  }

  @Test func cancellingASleeperThrowsCancellationError() async {
    let clock = ManualClock()
    let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
    await waitUntil("the sleeper to register") { clock.scheduledWakeUps > 0 }
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.scheduledWakeUps == 0)
  }

  @Test func aSleeperCancelledBeforeItSleepsThrowsAtOnce() async {
    let clock = ManualClock()
    let sleeper = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .seconds(1))
    }
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.scheduledWakeUps == 0)
  }

  @MainActor @Test func timersRunInsideAdvanceInDeadlineOrderAtTheirOwnTime() {
    let clock = ManualClock()
    var fired: [(String, Duration)] = []
    _ = clock.scheduleTimer(at: .init(offset: .seconds(2))) {
      fired.append(("b", clock.now.offset))
    }
    _ = clock.scheduleTimer(at: .init(offset: .seconds(1))) {
      fired.append(("a", clock.now.offset))
      // A timer scheduled from a timer, still within the span, runs in the same advance.
      _ = clock.scheduleTimer(at: .init(offset: .milliseconds(1500))) {
        fired.append(("a2", clock.now.offset))
      }
    }
    let cancelled = clock.scheduleTimer(at: .init(offset: .seconds(1))) {
      fired.append(("x", .zero))
    }
    clock.cancelTimer(cancelled)
    _ = clock.scheduleTimer(at: .init(offset: .seconds(9))) { fired.append(("late", .zero)) }
    clock.advance(by: .seconds(3))
    #expect(fired.map(\.0) == ["a", "a2", "b"])
    #expect(fired.map(\.1) == [.seconds(1), .milliseconds(1500), .seconds(2)])
    #expect(clock.now.offset == .seconds(3))
    #expect(clock.scheduledWakeUps == 1)
  }
}
