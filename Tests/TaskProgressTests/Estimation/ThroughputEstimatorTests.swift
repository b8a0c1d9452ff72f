import Foundation
import Testing

@testable import TaskProgress

@Suite("Throughput estimator")
struct ThroughputEstimatorTests {
  /// Rates in units per second, from one a second to a trillion.
  static let rates: [Double] = [1, 10, 1e3, 1e6, 1e9, 1e12]

  /// A 60th of a second, to the attosecond.
  static let frame = Duration(secondsComponent: 0, attosecondsComponent: 16_666_666_666_666_667)

  /// How often progress is recorded.
  enum Cadence: String, CaseIterable, CustomTestStringConvertible {
    case everyFrame
    case alternatingFrameAndTwentieth
    case everyThreeSeconds

    /// The intervals between records, taken in turn.
    var intervals: [Duration] {
      switch self {
      case .everyFrame: [ThroughputEstimatorTests.frame]
      case .alternatingFrameAndTwentieth: [ThroughputEstimatorTests.frame, .milliseconds(50)]
      case .everyThreeSeconds: [.seconds(3)]
      }
    }

    var testDescription: String { rawValue }
  }

  /// A time in seconds, by the standard library's division rather than the estimator's conversion.
  static func seconds(_ duration: Duration) -> Double {
    duration / .seconds(1)
  }

  /// 0.1^(seconds / 15), with the C library's `pow`.
  static func weight(_ seconds: Double) -> Double {
    pow(0.1, seconds / 15)
  }

  /// The relative difference between `value` and a nonzero `expected`.
  static func relativeError(_ value: Double?, _ expected: Double) -> Double {
    guard let value else { return .infinity }
    return abs(value - expected) / abs(expected)
  }

  /// Records progress at a constant `rate`, `count` times at the cadence's intervals, from
  /// `position` at `time`.
  ///
  /// - Returns: The time and position of the last record.
  @discardableResult
  static func feed(
    _ estimator: inout ThroughputEstimator, rate: Double, cadence: [Duration], count: Int,
    from time: Duration, position: Double
  ) -> (time: Duration, position: Double) {
    var time = time
    var position = position
    for index in 0..<count {
      let interval = cadence[index % cadence.count]
      time += interval
      position += rate * seconds(interval)
      estimator.record(position, at: time)
    }
    return (time, position)
  }

  /// An independent transcription of indicatif's estimator, on the C library's `pow`.
  struct Reference {
    var start: Double
    var previousPosition: Double
    var previousTime: Double
    var smoothed = 0.0
    var doubleSmoothed = 0.0

    init(start: Double, position: Double) {
      self.start = start
      self.previousPosition = position
      self.previousTime = start
    }

    mutating func record(_ position: Double, at time: Double) {
      if position < previousPosition {
        self = Reference(start: time, position: position)
        return
      }
      guard position > previousPosition, time > previousTime else { return }
      let w = ThroughputEstimatorTests.weight(time - previousTime)
      smoothed = smoothed * w + (position - previousPosition) / (time - previousTime) * (1 - w)
      let total = 1 - ThroughputEstimatorTests.weight(time - start)
      doubleSmoothed = doubleSmoothed * w + smoothed / total * (1 - w)
      previousPosition = position
      previousTime = time
    }

    func rate(at time: Double) -> Double {
      let reweight = ThroughputEstimatorTests.weight(time - previousTime)
      let total = 1 - ThroughputEstimatorTests.weight(time - start)
      let single = smoothed * reweight / total
      return (doubleSmoothed * reweight + single * (1 - reweight)) / total
    }
  }

  @Test(arguments: rates, Cadence.allCases)
  func aConstantRateIsRecoveredAfterThreeAndAfterTenThousandSamples(
    rate: Double, cadence: Cadence
  ) {
    let start = Duration.seconds(100)
    var estimator = ThroughputEstimator(start: start, position: 50)
    var last = Self.feed(
      &estimator, rate: rate, cadence: cadence.intervals, count: 2, from: start, position: 50)
    #expect(estimator.rate(at: last.time) == nil)
    last = Self.feed(
      &estimator, rate: rate, cadence: cadence.intervals, count: 1, from: last.time,
      position: last.position)
    #expect(Self.relativeError(estimator.rate(at: last.time), rate) < 1e-6)
    last = Self.feed(
      &estimator, rate: rate, cadence: cadence.intervals, count: 9_997, from: last.time,
      position: last.position)
    #expect(estimator.sampleCount == 10_000)
    #expect(Self.relativeError(estimator.rate(at: last.time), rate) < 1e-6)
  }

  @Test func theRateFollowsTheFormulaAtIrregularRecords() {
    // A fixed pseudo-random walk: intervals from 1 ms to 5 s, advances from 0 to 1,000 units,
    // with records that do not advance and two that go backwards.
    var generator = LinearCongruential(seed: 0x5eed)
    let start = Duration.seconds(7)
    var estimator = ThroughputEstimator(start: start, position: 3)
    var reference = Reference(start: 7, position: 3)
    var time = start
    var position = 3.0
    var compared = 0
    for step in 0..<5_000 {
      time += .milliseconds(1 + generator.next() % 5_000)
      if step == 1_000 || step == 3_000 {
        position -= 10
      } else if generator.next() % 10 != 0 {
        position += Double(generator.next() % 1_000_000) / 1_000
      }
      estimator.record(position, at: time)
      reference.record(position, at: Self.seconds(time))
      let later = time + .milliseconds(generator.next() % 20_000)
      if let rate = estimator.rate(at: later) {
        #expect(Self.relativeError(rate, reference.rate(at: Self.seconds(later))) < 1e-9)
        compared += 1
      }
    }
    #expect(compared > 4_000)
  }

  @Test func thereIsNoRateBeforeThreeAdvancingRecords() {
    var estimator = ThroughputEstimator(start: .zero)
    #expect(estimator.rate(at: .zero) == nil)
    estimator.record(1, at: .seconds(1))
    #expect(estimator.rate(at: .seconds(1)) == nil)
    // Neither a position that stays nor a time that stays adds a sample.
    estimator.record(1, at: .seconds(2))
    estimator.record(5, at: .seconds(1))
    estimator.record(2, at: .seconds(2))
    #expect(estimator.sampleCount == 2)
    #expect(estimator.rate(at: .seconds(2)) == nil)
    #expect(estimator.rate(at: .seconds(100)) == nil)
    estimator.record(3, at: .seconds(3))
    #expect(estimator.sampleCount == 3)
    #expect(Self.relativeError(estimator.rate(at: .seconds(3)), 1) < 1e-12)
  }

  @Test func recordsThatDoNotAdvanceChangeNothing() {
    var estimator = ThroughputEstimator(start: .zero)
    Self.feed(&estimator, rate: 4, cadence: [.seconds(1)], count: 5, from: .zero, position: 0)
    let before = estimator
    estimator.record(20, at: .seconds(6))
    estimator.record(20, at: .seconds(9))
    estimator.record(25, at: .seconds(5))
    estimator.record(.nan, at: .seconds(10))
    estimator.record(.infinity, at: .seconds(11))
    #expect(estimator.sampleCount == 5)
    for seconds in [5, 6, 9, 12, 30] {
      #expect(estimator.rate(at: .seconds(seconds)) == before.rate(at: .seconds(seconds)))
    }
    // An advance at the same time is taken whole by the next record that moves time on.
    var reference = Reference(start: 0, position: 0)
    for second in 1...5 {
      reference.record(Double(4 * second), at: Double(second))
    }
    estimator.record(30, at: .seconds(7))
    reference.record(30, at: 7)
    #expect(Self.relativeError(estimator.rate(at: .seconds(7)), reference.rate(at: 7)) < 1e-12)
  }

  @Test func aPositionThatGoesBackwardsStartsOver() {
    var estimator = ThroughputEstimator(start: .zero)
    var last = Self.feed(
      &estimator, rate: 100, cadence: [Self.frame], count: 600, from: .zero, position: 0)
    #expect(estimator.rate(at: last.time) != nil)
    estimator.record(last.position - 1, at: last.time + Self.frame)
    #expect(estimator.sampleCount == 0)
    #expect(estimator.rate(at: last.time + Self.frame) == nil)
    last = Self.feed(
      &estimator, rate: 7, cadence: [Self.frame], count: 2, from: last.time + Self.frame,
      position: last.position - 1)
    #expect(estimator.rate(at: last.time) == nil)
    last = Self.feed(
      &estimator, rate: 7, cadence: [Self.frame], count: 1, from: last.time,
      position: last.position)
    // The new rate alone: nothing of the 100 units per second before the reset remains.
    #expect(Self.relativeError(estimator.rate(at: last.time), 7) < 1e-6)
  }

  @Test func resetStartsOverFromTheGivenPositionAndTime() {
    var estimator = ThroughputEstimator(start: .zero)
    Self.feed(&estimator, rate: 100, cadence: [.seconds(1)], count: 10, from: .zero, position: 0)
    estimator.reset(at: .seconds(20), position: 5)
    #expect(estimator.sampleCount == 0)
    #expect(estimator.rate(at: .seconds(20)) == nil)
    let last = Self.feed(
      &estimator, rate: 3, cadence: [.seconds(2)], count: 3, from: .seconds(20), position: 5)
    #expect(last.time == .seconds(26))
    #expect(Self.relativeError(estimator.rate(at: last.time), 3) < 1e-12)
  }

  @Test(arguments: [1.0, 1e3, 1e9])
  func aStallDecaysAsSamplesOfZero(rate: Double) {
    // Ten minutes of progress first, so that the total weight is 1 to the last bit.
    var estimator = ThroughputEstimator(start: .zero)
    let last = Self.feed(
      &estimator, rate: rate, cadence: [.seconds(1)], count: 600, from: .zero, position: 0)
    var previous = Double.infinity
    for halfSeconds in 0...240 {
      let stall = Double(halfSeconds) / 2
      let w = Self.weight(stall)
      let value = estimator.rate(at: last.time + .seconds(stall))
      #expect(Self.relativeError(value, rate * w * (2 - w)) < 1e-9, "after \(stall) s")
      #expect(value.map { $0 < previous } == true, "after \(stall) s")
      previous = value ?? previous
    }
    let stalled = estimator.rate(at: last.time + .seconds(20))!
    estimator.record(last.position + rate, at: last.time + .seconds(20))
    #expect(estimator.rate(at: last.time + .seconds(20))! > stalled)
  }

  @Test func aStallSoonAfterTheStartDecaysWithTheExactTotalWeight() {
    // Three seconds of progress: the total weight at the stall's start is a = 1 - 0.1^(3/15).
    let rate = 40.0
    var estimator = ThroughputEstimator(start: .zero)
    let last = Self.feed(
      &estimator, rate: rate, cadence: [Self.frame], count: 180, from: .zero, position: 0)
    let a = 1 - Self.weight(Self.seconds(last.time))
    var previous = Double.infinity
    for tenths in 0...600 {
      let stall = Double(tenths) / 10
      let w = Self.weight(stall)
      let total = 1 - (1 - a) * w
      let single = rate * a * w / total
      let expected = (rate * a * w + single * (1 - w)) / total
      let value = estimator.rate(at: last.time + .seconds(stall))
      #expect(Self.relativeError(value, expected) < 1e-9, "after \(stall) s")
      #expect(value.map { $0 < previous } == true, "after \(stall) s")
      previous = value ?? previous
    }
  }

  @Test(arguments: [(10.0, 20.0), (20.0, 10.0), (1.0, 10.0), (10.0, 1.0), (1e6, 3e6)])
  func aChangeOfRateConvergesToTheNewRate(before: Double, after: Double) {
    var estimator = ThroughputEstimator(start: .zero)
    var last = Self.feed(
      &estimator, rate: before, cadence: [Self.frame], count: 3_600, from: .zero, position: 0)
    #expect(Self.relativeError(estimator.rate(at: last.time), before) < 1e-6)
    last = Self.feed(
      &estimator, rate: after, cadence: [Self.frame], count: 60, from: last.time,
      position: last.position)
    // A second after the change the estimate is still on its way.
    #expect(Self.relativeError(estimator.rate(at: last.time), after) > 0.05)
    last = Self.feed(
      &estimator, rate: after, cadence: [Self.frame], count: 3_540, from: last.time,
      position: last.position)
    // What is left of the old rate after 60 s is 0.1^4 · (1 + 4 ln 10), about 1.02e-3 of the
    // difference: 0.92% for a tenfold drop.
    #expect(Self.relativeError(estimator.rate(at: last.time), after) < 0.01)
  }

  @Test func timeRemainingIsTheRemainingUnitsOverTheRate() throws {
    var estimator = ThroughputEstimator(start: .zero)
    let last = Self.feed(
      &estimator, rate: 250, cadence: [Self.frame], count: 300, from: .zero, position: 0)
    let rate = try #require(estimator.rate(at: last.time))
    #expect(estimator.timeRemaining(for: 1_000, at: last.time) == .seconds(1_000 / rate))
    let left = try #require(estimator.timeRemaining(for: 1_000, at: last.time))
    #expect(Self.relativeError(Self.seconds(left), 4) < 1e-6)
    #expect(estimator.timeRemaining(for: 0, at: last.time) == .zero)
    #expect(estimator.timeRemaining(for: -5, at: last.time) == .zero)
    #expect(estimator.timeRemaining(for: .infinity, at: last.time) == nil)
    #expect(estimator.timeRemaining(for: .nan, at: last.time) == nil)
    #expect(
      estimator.timeRemaining(for: 1e30, at: last.time) == ThroughputEstimator.longestTimeRemaining
    )
    // After a stall long enough for every weight to underflow, the rate is 0: no estimate.
    #expect(estimator.rate(at: last.time + .seconds(20_000)) == 0)
    #expect(estimator.timeRemaining(for: 10, at: last.time + .seconds(20_000)) == nil)
  }

  @Test func thereIsNoTimeRemainingWithoutARate() {
    var estimator = ThroughputEstimator(start: .zero)
    estimator.record(1, at: .seconds(1))
    estimator.record(2, at: .seconds(2))
    #expect(estimator.timeRemaining(for: 10, at: .seconds(2)) == nil)
    #expect(estimator.timeRemaining(for: 0, at: .seconds(2)) == .zero)
  }

  @Test func extremeValuesDoNotTrap() throws {
    // Records a nanosecond apart, where 1 - 0.1^(1e-9 / 15) is about 1.5e-10: the rounding of the
    // weight costs about 3e-7 of the rate.
    var nanoseconds = ThroughputEstimator(start: .zero)
    for step in 1...3 {
      nanoseconds.record(Double(step), at: .nanoseconds(step))
    }
    #expect(Self.relativeError(nanoseconds.rate(at: .nanoseconds(3)), 1e9) < 1e-6)

    // Positions near 9e18 units.
    var huge = ThroughputEstimator(start: .zero)
    for step in 1...3 {
      huge.record(3e18 * Double(step), at: .seconds(step))
    }
    #expect(Self.relativeError(huge.rate(at: .seconds(3)), 3e18) < 1e-9)
    let hugeLeft = try #require(huge.timeRemaining(for: 9e18, at: .seconds(3)))
    #expect(Self.relativeError(Self.seconds(hugeLeft), 3) < 1e-9)

    // Records a billion seconds apart, and a rate read a trillion seconds later.
    var slow = ThroughputEstimator(start: .zero)
    for step in 1...3 {
      slow.record(Double(step), at: .seconds(1e9 * Double(step)))
    }
    #expect(Self.relativeError(slow.rate(at: .seconds(3e9)), 1e-9) < 1e-9)
    #expect(slow.timeRemaining(for: 9e18, at: .seconds(3e9)) == .seconds(10 * 365 * 86_400))
    #expect(slow.rate(at: .seconds(1e12)) == 0)
    #expect(slow.timeRemaining(for: 1, at: .seconds(1e12)) == nil)

    // A jump too large to measure in one attosecond starts over instead of poisoning the rate.
    var jump = ThroughputEstimator(start: .zero)
    jump.record(1, at: .seconds(1))
    jump.record(1e300, at: .seconds(1) + Duration(secondsComponent: 0, attosecondsComponent: 1))
    #expect(jump.sampleCount == 0)
    let restart = Duration.seconds(1) + Duration(secondsComponent: 0, attosecondsComponent: 1)
    for step in 1...3 {
      jump.record(1e300 + 1e290 * Double(step), at: restart + .seconds(step))
    }
    #expect(Self.relativeError(jump.rate(at: restart + .seconds(3)), 1e290) < 1e-6)

    // A rate read before the last record counts as read at the last record.
    #expect(huge.rate(at: .zero) == huge.rate(at: .seconds(3)))
  }
}

/// A small deterministic generator, so that the irregular records are the same on every run.
private struct LinearCongruential {
  var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  /// The next value, from the high bits of Knuth's MMIX generator.
  mutating func next() -> Int {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Int(state >> 33)
  }
}
