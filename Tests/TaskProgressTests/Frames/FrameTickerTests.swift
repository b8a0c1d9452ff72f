import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("Frame ticker", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct FrameTickerTests {
  /// A client that records the times of its frames and asks for a fixed number of them.
  final class Client: FrameClient {
    let name: String
    var framesLeft: Int
    var log: Log
    var onFrame: (@MainActor () -> Void)?

    final class Log {
      var entries: [(name: String, time: Duration)] = []
    }

    init(_ name: String, frames: Int, log: Log) {
      self.name = name
      self.framesLeft = frames
      self.log = log
    }

    func frame(at now: Duration) -> Bool {
      log.entries.append((name, now))
      framesLeft -= 1
      onFrame?()
      return framesLeft > 0
    }
  }

  @Test func gridPointsAreTheMultiplesOfTheIntervalStrictlyAfterATime() {
    let interval = Duration.milliseconds(10)
    #expect(FrameTicker.gridPoint(after: .zero, interval: interval) == .milliseconds(10))
    #expect(FrameTicker.gridPoint(after: .milliseconds(3), interval: interval) == .milliseconds(10))
    #expect(
      FrameTicker.gridPoint(after: .milliseconds(10), interval: interval) == .milliseconds(20))
    #expect(FrameTicker.gridPoint(after: .seconds(7), interval: .seconds(1) / 60) > .seconds(7))
    let sixtieth = Duration.seconds(1) / 60
    let point = FrameTicker.gridPoint(after: .seconds(100), interval: sixtieth)
    #expect(point - .seconds(100) <= sixtieth)
    #expect(FrameTicker.gridPoint(after: point, interval: sixtieth) - point == sixtieth)
  }

  @Test func whatRunsAtTheEndOfAWakeUpComesAfterEveryFrameOfItWhateverTheOrder() {
    let clock = ManualClock()
    let ticker = FrameTicker(timer: ManualFrameTimer(clock: clock))
    let log = Client.Log()
    // The first client to register asks for its action from its frame, as a group made before
    // its runners does: the action still comes after the others' frames.
    let clients = ["group", "a", "b"].map { Client($0, frames: 2, log: log) }
    clients[0].onFrame = {
      _ = ticker.atEndOfWakeUp { time in log.entries.append(("sum", time)) }
    }
    for client in clients {
      ticker.setNeedsFrames(ticker.register(client, every: frame))
    }
    clock.advance(by: frame * 2)
    #expect(log.entries.map(\.name) == ["group", "a", "b", "sum", "group", "a", "b", "sum"])
    #expect(
      log.entries.map(\.time) == [
        frame, frame, frame, frame, frame * 2, frame * 2, frame * 2, frame * 2,
      ])
    withExtendedLifetime(clients) {}
  }

  @Test func anActionAskedForByAFrameOrByAnActionRunsInTheSameWakeUp() {
    let clock = ManualClock()
    let ticker = FrameTicker(timer: ManualFrameTimer(clock: clock))
    let log = Client.Log()
    let client = Client("a", frames: 1, log: log)
    // The client's frame asks for an action, as a runner's frame that tells its group does; the
    // action asks for another.
    client.onFrame = {
      _ = ticker.atEndOfWakeUp { time in
        log.entries.append(("first", time))
        _ = ticker.atEndOfWakeUp { time in log.entries.append(("second", time)) }
      }
    }
    ticker.setNeedsFrames(ticker.register(client, every: frame))
    clock.advance(by: frame * 3)
    #expect(log.entries.map(\.name) == ["a", "first", "second"])
    #expect(log.entries.map(\.time) == [frame, frame, frame])
    #expect(clock.scheduledWakeUps == 0)
  }

  @Test func outsideAWakeUpNothingIsKeptForItsEnd() {
    let clock = ManualClock()
    let ticker = FrameTicker(timer: ManualFrameTimer(clock: clock))
    let log = Client.Log()
    #expect(!ticker.atEndOfWakeUp { time in log.entries.append(("late", time)) })
    let client = Client("a", frames: 1, log: log)
    ticker.setNeedsFrames(ticker.register(client, every: frame))
    clock.advance(by: frame)
    #expect(log.entries.map(\.name) == ["a"])
  }

  @Test func clientsOnOneClockShareEachWakeUpAndOneTimeInTheOrderTheyAsked() {
    let clock = ManualClock()
    let ticker = FrameTicker(timer: ManualFrameTimer(clock: clock))
    let log = Client.Log()
    let clients = ["a", "b", "c"].map { Client($0, frames: 2, log: log) }
    let registrations = clients.map { ticker.register($0, every: frame) }
    for registration in registrations.reversed() {
      ticker.setNeedsFrames(registration)
    }
    #expect(clock.scheduledWakeUps == 1)
    clock.advance(by: frame)
    #expect(log.entries.map(\.name) == ["a", "b", "c"])  // registration order
    #expect(Set(log.entries.map(\.time)) == [frame])
    #expect(clock.scheduledWakeUps == 1)
    clock.advance(by: frame)
    #expect(log.entries.map(\.name) == ["a", "b", "c", "a", "b", "c"])
    #expect(log.entries.suffix(3).allSatisfy { $0.time == frame * 2 })
    #expect(clock.scheduledWakeUps == 0)  // nobody needs frames: nothing wakes
    clock.advance(by: .seconds(5))
    #expect(log.entries.count == 6)
  }

  @Test func aClientThatJoinsLateGetsTheNextFrameOfTheSharedGrid() {
    let clock = ManualClock()
    let ticker = FrameTicker(timer: ManualFrameTimer(clock: clock))
    let log = Client.Log()
    let early = Client("early", frames: 3, log: log)
    let late = Client("late", frames: 1, log: log)
    ticker.setNeedsFrames(ticker.register(early, every: frame))
    clock.advance(by: .milliseconds(20))  // one frame, and 3.3 ms into the next interval
    ticker.setNeedsFrames(ticker.register(late, every: frame))
    clock.advance(by: .milliseconds(20))
    #expect(log.entries.map(\.name) == ["early", "early", "late"])
    #expect(log.entries[1].time == log.entries[2].time)
  }

  @Test func clientsWithDifferentIntervalsMeetOnTheirCommonGridPoints() {
    let clock = ManualClock()
    let ticker = FrameTicker(timer: ManualFrameTimer(clock: clock))
    let log = Client.Log()
    let fast = Client("fast", frames: 4, log: log)
    let slow = Client("slow", frames: 2, log: log)
    ticker.setNeedsFrames(ticker.register(fast, every: .milliseconds(10)))
    ticker.setNeedsFrames(ticker.register(slow, every: .milliseconds(20)))
    clock.advance(by: .milliseconds(40))
    #expect(log.entries.map(\.name) == ["fast", "fast", "slow", "fast", "fast", "slow"])
    #expect(log.entries.map(\.time) == [10, 20, 20, 30, 40, 40].map { .milliseconds($0) })
  }

  @Test func aClientThatNoLongerNeedsFramesWithdrawsItsWakeUp() {
    let clock = ManualClock()
    let ticker = FrameTicker(timer: ManualFrameTimer(clock: clock))
    let client = Client("a", frames: 5, log: Client.Log())
    let registration = ticker.register(client, every: frame)
    ticker.setNeedsFrames(registration)
    #expect(clock.scheduledWakeUps == 1)
    ticker.setNeedsFrames(registration)  // asking twice schedules one frame
    #expect(ticker.scheduledClients == 1)
    ticker.setNeedsFrames(registration, false)
    #expect(clock.scheduledWakeUps == 0)
  }

  @Test func aClientReleasedDuringAWakeUpIsSkippedAndForgotten() {
    let clock = ManualClock()
    let ticker = FrameTicker(timer: ManualFrameTimer(clock: clock))
    let log = Client.Log()
    let first = Client("first", frames: 5, log: log)
    var second: Client? = Client("second", frames: 5, log: log)
    ticker.setNeedsFrames(ticker.register(first, every: frame))
    let secondRegistration = ticker.register(second!, every: frame)
    ticker.setNeedsFrames(secondRegistration)
    first.onFrame = {
      if second != nil { ticker.remove(secondRegistration) }
      second = nil
    }
    clock.advance(by: frame * 2)
    #expect(log.entries.map(\.name) == ["first", "first"])
    #expect(ticker.scheduledClients == 1)
  }

  @Test func runnersOnOneClockShareOneTickerAndOneWakeUp() async {
    let clock = ManualClock()
    let runners = (0..<50).map { _ in TaskRunner(animation: .instant, clock: clock) }
    let recorders = runners.map { StateRecorder(observing: $0, recordingFrames: true) }
    let proceed = Latch()
    for runner in runners {
      runner.start { _ in await proceed.wait() }
    }
    #expect(clock.scheduledWakeUps == 1)
    clock.advance(by: frame)
    #expect(clock.scheduledWakeUps == 1)
    let frameTimes = Set(recorders.flatMap { $0.frames.map(\.time) })
    #expect(frameTimes == [frame])
    proceed.open()
    for recorder in recorders {
      await recorder.waitForTerminalState()
    }
    #expect(clock.scheduledWakeUps == 0)
  }
}
