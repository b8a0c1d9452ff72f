import Testing

@testable import TaskProgress

@Suite("Stopwatch")
struct StopwatchTests {
  @Test func aNewStopwatchHasNotRun() {
    let stopwatch = Stopwatch()
    #expect(!stopwatch.isRunning)
    #expect(stopwatch.elapsed(at: .seconds(10)) == .zero)
  }

  @Test func everyStretchCountsAndEveryStopIsLeftOut() {
    var stopwatch = Stopwatch(startedAt: .seconds(1))
    var seen: [Duration] = []
    stopwatch.stop(at: .seconds(3))  // 2 s
    seen.append(stopwatch.elapsed(at: .seconds(5)))
    stopwatch.start(at: .seconds(5))
    stopwatch.stop(at: .seconds(6))  // 1 s more
    stopwatch.start(at: .seconds(10))
    stopwatch.stop(at: .seconds(14))  // 4 s more
    seen.append(stopwatch.elapsed(at: .seconds(20)))
    stopwatch.start(at: .seconds(20))
    seen.append(stopwatch.elapsed(at: .seconds(21)))
    #expect(seen == [.seconds(2), .seconds(7), .seconds(8)])
  }

  @Test func startingWhileRunningAndStoppingWhileStoppedChangeNothing() {
    var stopwatch = Stopwatch(startedAt: .seconds(1))
    stopwatch.start(at: .seconds(5))
    #expect(stopwatch.elapsed(at: .seconds(6)) == .seconds(5))
    stopwatch.stop(at: .seconds(6))
    stopwatch.stop(at: .seconds(9))
    #expect(stopwatch.elapsed(at: .seconds(9)) == .seconds(5))
  }

  @Test func aClockThatGoesBackNeverTakesTimeAway() {
    var stopwatch = Stopwatch(startedAt: .seconds(5))
    #expect(stopwatch.elapsed(at: .seconds(4)) == .zero)
    stopwatch.stop(at: .seconds(3))
    #expect(stopwatch.elapsed(at: .seconds(9)) == .zero)
  }
}
