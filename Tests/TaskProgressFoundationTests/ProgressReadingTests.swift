import Foundation
import Testing

@testable import TaskProgressFoundation

/// What a reporter reports for one reading of a `Progress`: the fraction is the progress's,
/// the counts are its own, and what its unfinished children did is in flight.
@Suite("Progress reading")
struct ProgressReadingTests {
  private typealias Report = ProgressReading.Report

  private static func reading(
    _ completed: Int64, of total: Int64, fraction: Double, indeterminate: Bool = false
  ) -> ProgressReading {
    ProgressReading(
      completed: completed, total: total, fraction: fraction, isIndeterminate: indeterminate)
  }

  @Test func countsWhoseFractionIsTheirOwnHaveNothingInFlight() {
    // 0.29 × 100 is 28.999999999999996: rounding, not a child.
    #expect(Self.reading(29, of: 100, fraction: 0.29).report == .counts(29, 100, inFlight: 0))
    #expect(Self.reading(1, of: 3, fraction: 1.0 / 3).report == .counts(1, 3, inFlight: 0))
  }

  @Test func aFractionBeyondTheCountsIsInFlight() {
    #expect(Self.reading(0, of: 100, fraction: 0.05).report == .counts(0, 100, inFlight: 5))
  }

  @Test func aFractionBelowTheCountsLowersThem() {
    // What a progress whose bookkeeping went wrong reports: its fraction wins.
    #expect(Self.reading(100, of: 200, fraction: 0.25).report == .counts(50, 200, inFlight: 0))
  }

  @Test func aCountBeyondItsTotalOrAFractionAboveOneIsComplete() {
    #expect(Self.reading(2, of: 1, fraction: 2).report == .counts(1, 1, inFlight: 0))
  }

  @Test func aNaNFractionIsZero() {
    #expect(Self.reading(0, of: 10, fraction: .nan).report == .counts(0, 10, inFlight: 0))
  }

  @Test func indeterminateKeepsAPositiveCount() {
    #expect(Self.reading(5, of: -1, fraction: 0, indeterminate: true).report == .indeterminate(5))
    #expect(
      Self.reading(-1, of: 10, fraction: 0, indeterminate: true).report == .indeterminate(nil))
    // What a download of unknown size reads before its first byte, and, on Linux, throughout.
    #expect(Self.reading(0, of: -1, fraction: 0, indeterminate: true).report == .indeterminate(nil))
  }

  @Test func aPositiveCountOfNothingIsComplete() {
    #expect(Self.reading(1, of: 0, fraction: 1).report == .counts(0, 0, inFlight: 0))
  }

  @Test func theLargestCountsFitWhereAnIntIsSmaller() {
    let report = Self.reading(.max / 2, of: .max, fraction: 0.5).report
    #expect(report == .counts(Int(clamping: Int64.max / 2), Int(clamping: Int64.max), inFlight: 0))
  }
}

extension ProgressReading.Report {
  fileprivate static func counts(_ completed: Int, _ total: Int, inFlight: Double) -> Self {
    .counts(completed: completed, total: total, inFlight: inFlight)
  }

  fileprivate static func indeterminate(_ completed: Int?) -> Self {
    .indeterminate(completed: completed)
  }
}
