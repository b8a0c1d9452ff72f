import Testing

@testable import TaskProgress

/// A stopwatch and an estimator composed: a steady rate over active time, pauses left out.
@Suite("Active rate")
struct ActiveRateTests {
  /// Records `perSecond` more units each second from `start`, for `seconds` seconds.
  private func steady(
    _ rate: inout ActiveRate, from position: inout Double, perSecond: Double, start: Int,
    seconds: Int
  ) {
    for second in 1...seconds {
      position += perSecond
      rate.record(position, at: .seconds(start + second))
    }
  }

  @Test func aSteadyRateGivesThatRateAndTheTimeLeftAtIt() throws {
    var rate = ActiveRate(startedAt: .seconds(100), position: 0)
    var position = 0.0
    steady(&rate, from: &position, perSecond: 38, start: 100, seconds: 10)
    let estimate = rate.estimate(remaining: 380, at: .seconds(110))
    let throughput = try #require(estimate.throughput)
    #expect(abs(throughput - 38) < 1e-9)
    let left = try #require(estimate.timeRemaining)
    #expect(abs(ThroughputEstimator.seconds(left) - 10) < 1e-6)
    #expect(rate.estimate(remaining: nil, at: .seconds(110)).timeRemaining == nil)
  }

  @Test func thereIsNoEstimateBeforeEnoughSamples() {
    var rate = ActiveRate(startedAt: .zero, position: 0)
    var estimates: [ActiveRate.Estimate] = []
    for second in 1...3 {
      estimates.append(rate.estimate(remaining: 10, at: .seconds(second)))
      rate.record(Double(second), at: .seconds(second))
    }
    #expect(estimates == Array(repeating: .unknown, count: 3))
    #expect(rate.estimate(remaining: 10, at: .seconds(3)).throughput != nil)
  }

  @Test func aPauseNeitherLowersTheRateNorCountsTheWorkDoneDuringIt() throws {
    var paused = ActiveRate(startedAt: .zero, position: 0)
    var position = 0.0
    steady(&paused, from: &position, perSecond: 10, start: 0, seconds: 5)
    paused.stop(at: .seconds(5))
    #expect(!paused.isRunning)
    position += 1_000  // work that goes on while paused: no sample
    paused.record(position, at: .seconds(65))
    paused.start(at: .seconds(65))
    steady(&paused, from: &position, perSecond: 10, start: 65, seconds: 5)
    var straight = ActiveRate(startedAt: .zero, position: 0)
    var straightPosition = 0.0
    steady(&straight, from: &straightPosition, perSecond: 10, start: 0, seconds: 10)
    let pausedRate = try #require(paused.estimate(remaining: nil, at: .seconds(70)).throughput)
    let straightRate = try #require(straight.estimate(remaining: nil, at: .seconds(10)).throughput)
    #expect(abs(pausedRate - straightRate) < 1e-9)
  }

  @Test func withoutAStartingPositionTheFirstRecordBeginsTheEstimate() throws {
    var rate = ActiveRate()
    #expect(!rate.isRunning)
    rate.start(at: .seconds(50))
    rate.record(500, at: .seconds(50))  // no sample: work done before the rate was followed
    for second in 1...5 {
      rate.record(500 + Double(second) * 4, at: .seconds(50 + second))
    }
    let throughput = try #require(rate.estimate(remaining: nil, at: .seconds(55)).throughput)
    #expect(abs(throughput - 4) < 1e-9)
  }

  @Test func aRestartDropsTheSamplesAndASkipAddsNone() {
    var rate = ActiveRate(startedAt: .zero, position: 0)
    for second in 1...5 {
      rate.record(Double(second), at: .seconds(second))
    }
    rate.restart(from: 1_000_000, at: .seconds(5))
    #expect(rate.estimate(remaining: 10, at: .seconds(5)) == .unknown)
    rate.skip(to: 2_000_000, at: .seconds(6))
    rate.record(2_000_001, at: .seconds(7))
    rate.record(2_000_002, at: .seconds(8))
    #expect(rate.estimate(remaining: 10, at: .seconds(8)) == .unknown)
    rate.record(2_000_003, at: .seconds(9))
    #expect(rate.estimate(remaining: 10, at: .seconds(9)).throughput != nil)
  }
}
