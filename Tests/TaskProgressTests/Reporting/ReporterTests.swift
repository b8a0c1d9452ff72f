import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@Suite("Reporter", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct ReporterTests {
  /// A standalone reporter, and the signals it shares with its run, without a runner.
  private static func reporter() -> (TaskRunner.Reporter, RunSignals) {
    let reporter = TaskRunner.Reporter()
    return (reporter, reporter.node.signals)
  }

  @Test func aNewRunStartsAtZero() {
    let (reporter, _) = Self.reporter()
    #expect(reporter.progress == .zero)
  }

  static let fractions: [(Double, Double)] = [
    (0.5, 0.5), (0, 0), (1, 1), (-0.0, 0), (-3, 0), (7, 1),
    (.leastNonzeroMagnitude, .leastNonzeroMagnitude), (1 - .ulpOfOne, 1 - .ulpOfOne),
  ]

  static let counts: [(Int, Int)] = [
    (3, 10), (0, 10), (10, 10), (-4, 10), (11, 10), (5, 0), (5, -1), (Int.min, 10), (Int.max, 10),
    (0, Int.max), (Int.max / 2, Int.max), (Int.max, Int.max), (Int.min, Int.min),
    (Int.max, Int.min),
    (1 << 31, 1 << 31), ((1 << 31) - 1, (1 << 31) - 1), (12, 1 << 40),
  ]

  @Test(arguments: fractions)
  func fractionsAreClampedIntoUnitRange(input: Double, expected: Double) {
    let (reporter, _) = Self.reporter()
    reporter.report(fractionCompleted: input)
    #expect(reporter.progress == RunProgress(fractionCompleted: expected))
  }

  @Test(arguments: [Double.nan, .infinity, -.infinity, -.nan, .signalingNaN] as [Double])
  func nonFiniteFractionsAreIgnored(input: Double) {
    let (reporter, _) = Self.reporter()
    reporter.report(fractionCompleted: 0.3)
    reporter.report(fractionCompleted: input)
    #expect(reporter.progress == 0.3)
  }

  @Test(arguments: counts)
  func countsMatchTheValueTypesClampingAtEveryMagnitude(completed: Int, total: Int) {
    let (reporter, _) = Self.reporter()
    reporter.report(completed: completed, of: total)
    let progress = reporter.progress
    #expect(progress == RunProgress(completed: completed, of: total))
    #expect(progress.fractionCompleted.map { (0...1).contains($0) } == true)
  }

  @Test(arguments: [nil, 0, 5, -5, Int.max, 1 << 61, (1 << 61) - 1] as [Int?])
  func indeterminateReportsKeepTheirCount(completed: Int?) {
    let (reporter, _) = Self.reporter()
    reporter.reportIndeterminate(completed: completed)
    #expect(reporter.progress == .indeterminate(completed: completed))
  }

  @Test func theLatestReportWinsAcrossKinds() {
    let (reporter, _) = Self.reporter()
    reporter.report(completed: 1, of: 1 << 40)
    reporter.report(fractionCompleted: 0.25)
    #expect(reporter.progress == 0.25)
    reporter.reportIndeterminate()
    reporter.report(completed: 2, of: 4)
    #expect(reporter.progress == RunProgress(completed: 2, of: 4))
    reporter.report(completed: 3, of: 1 << 40)
    #expect(reporter.progress == RunProgress(completed: 3, of: 1 << 40))
  }

  @Test func cancellationIsVisibleToTheReporter() {
    let (reporter, signals) = Self.reporter()
    #expect(!reporter.isCancelled)
    #expect(throws: Never.self) { try reporter.checkCancellation() }
    signals.cancelled.store(true, ordering: .relaxed)
    #expect(reporter.isCancelled)
    #expect(throws: CancellationError.self) { try reporter.checkCancellation() }
  }

  @Test func aCheckpointThrowsOnlyOnceTheRunIsCancelled() async {
    let (reporter, signals) = Self.reporter()
    await #expect(throws: Never.self) { try await reporter.checkpoint() }
    signals.cancelled.store(true, ordering: .relaxed)
    await #expect(throws: CancellationError.self) { try await reporter.checkpoint() }
  }

  @Test func checkpointsYieldOncePerTenMillisecondsWhileFramesAreOnTime() {
    let signals = RunSignals(updateInterval: .seconds(1))
    let millisecond: Int64 = 1_000_000
    let yields = [0, 5, 9, 10, 11, 19, 20, 20, 35].map { signals.shouldYield(at: $0 * millisecond) }
    #expect(yields == [false, false, false, true, false, false, true, false, true])
  }

  @Test func everyCheckpointYieldsWhileAFrameIsOverdue() {
    // Frames every 10 ms: one is overdue 12.5 ms after the last drain.
    let signals = RunSignals(updateInterval: .milliseconds(10))
    let millisecond: Int64 = 1_000_000
    signals.markFrame(at: 100 * millisecond)
    #expect(signals.shouldYield(at: 111 * millisecond))  // the 10 ms budget since 0
    #expect(!signals.shouldYield(at: 112 * millisecond))
    #expect(signals.shouldYield(at: 113 * millisecond))  // overdue: every call yields
    #expect(signals.shouldYield(at: 113 * millisecond))
    signals.markFrame(at: 117 * millisecond)
    #expect(!signals.shouldYield(at: 118 * millisecond))
  }

  @MainActor @Test func reportsAfterTheRunEndedAreIgnored() async throws {
    let clock = ManualClock()
    let runner = TaskRunner(animation: .instant, clock: clock)
    let escaped = Locked<TaskRunner.Reporter?>(nil)
    let final = await runner.run { reporter in
      escaped.withLock { $0 = reporter }
    }
    #expect(final == .finished)
    let reporter = try #require(escaped.withLock { $0 })
    reporter.report(fractionCompleted: 0.5)
    reporter.reportIndeterminate()
    clock.advance(by: .seconds(1))
    #expect(runner.state == .finished)
    #expect(runner.displayedProgress == 1)
    #expect(clock.scheduledWakeUps == 0)
  }
}
