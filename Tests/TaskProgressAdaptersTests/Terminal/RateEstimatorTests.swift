import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@Suite("Rate estimator")
struct RateEstimatorTests {
  @Test func noEstimateUntilThreeSamplesOf100Milliseconds() {
    var estimator = RateEstimator()
    estimator.reset(fraction: 0, at: .zero)
    estimator.add(fraction: 0.01, at: .milliseconds(50))  // too soon: not a sample
    estimator.add(fraction: 0.02, at: .milliseconds(100))
    estimator.add(fraction: 0.04, at: .milliseconds(200))
    #expect(estimator.remaining(at: 0.04) == nil)
    estimator.add(fraction: 0.06, at: .milliseconds(300))
    let remaining = estimator.remaining(at: 0.06)
    // 0.2 per second, 0.94 left: 4.7 s.
    #expect(remaining.map { ($0 / .seconds(1)).isClose(to: 4.7, tolerance: 1e-9) } == true)
  }

  @Test func theRateIsAnExponentialMovingAverageWithTqdmsSmoothing() throws {
    var estimator = RateEstimator()
    estimator.reset(fraction: 0, at: .zero)
    estimator.add(fraction: 0.1, at: .milliseconds(100))  // 1.0 per second
    estimator.add(fraction: 0.4, at: .milliseconds(200))  // 3.0 per second
    let rate = try #require(estimator.rate)
    #expect(rate.isClose(to: 0.3 * 3 + 0.7 * 1, tolerance: 1e-12))
  }

  @Test func anEstimateIsNeverNegativeAndMovesAtMostByAFactorOfTwo() {
    var estimator = RateEstimator()
    estimator.reset(fraction: 0, at: .zero)
    var shown: [Double] = []
    // Slow, then a burst that would cut the raw estimate by 50×, then a stall.
    let readings = [0.01, 0.02, 0.03, 0.04, 0.05, 0.55, 0.6, 0.6, 0.6, 0.6, 0.6, 1.0, 1.0]
    for (index, fraction) in readings.enumerated() {
      estimator.add(fraction: fraction, at: .milliseconds(100 * (index + 1)))
      if let remaining = estimator.remaining(at: fraction) {
        shown.append(remaining / .seconds(1))
      }
    }
    #expect(shown.count >= 8)
    #expect(shown.allSatisfy { $0 >= 0 })
    for (previous, next) in zip(shown, shown.dropFirst()) {
      #expect(next <= previous * 2 + 1e-12 && next >= previous / 2 - 1e-12)
    }
  }

  @Test func noProgressMeansNoEstimateRatherThanInfinity() {
    var estimator = RateEstimator()
    estimator.reset(fraction: 0.3, at: .zero)
    for step in 1...5 {
      estimator.add(fraction: 0.3, at: .milliseconds(100 * step))
    }
    #expect(estimator.remaining(at: 0.3) == nil)
  }
}
