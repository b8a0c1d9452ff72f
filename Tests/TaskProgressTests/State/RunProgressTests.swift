import Testing

@testable import TaskProgress

@Suite("Run progress")
struct RunProgressTests {
  static let fractions: [(Double, Double)] = [
    (0.25, 0.25), (-1, 0), (2, 1), (.nan, 0), (.infinity, 1), (-.infinity, 0), (-0.0, 0),
  ]

  static let counts: [(Int, Int, Int, Int, Double)] = [
    (3, 10, 3, 10, 0.3), (-5, 10, 0, 10, 0), (15, 10, 10, 10, 1), (0, 0, 0, 0, 1), (5, -3, 0, 0, 1),
    (Int.min, Int.max, 0, Int.max, 0), (Int.max, Int.max, Int.max, Int.max, 1),
    (Int.max, Int.min, 0, 0, 1),
  ]

  @Test(arguments: fractions)
  func fractionIsClampedIntoUnitRange(input: Double, expected: Double) {
    let progress = RunProgress(fractionCompleted: input)
    #expect(progress.fractionCompleted == expected)
    #expect(progress.fractionCompleted?.sign == .plus)
    #expect(progress.completedCount == nil && progress.totalCount == nil)
  }

  @Test(arguments: counts)
  func countsAreClampedAndZeroTotalMeansComplete(
    completed: Int, total: Int, expectedCompleted: Int, expectedTotal: Int, fraction: Double
  ) {
    let progress = RunProgress(completed: completed, of: total)
    #expect(progress.completedCount == expectedCompleted)
    #expect(progress.totalCount == expectedTotal)
    #expect(progress.fractionCompleted == fraction)
  }

  @Test func indeterminateHasNoFractionAndKeepsANonNegativeCount() {
    #expect(RunProgress.indeterminate().fractionCompleted == nil)
    #expect(RunProgress.indeterminate().isIndeterminate)
    #expect(RunProgress.indeterminate(completed: 7).completedCount == 7)
    #expect(RunProgress.indeterminate(completed: -7).completedCount == 0)
    #expect(RunProgress.indeterminate(completed: 7).totalCount == nil)
  }

  @Test func literalsAreBareFractions() {
    let half: RunProgress = 0.5
    let none: RunProgress = 0
    #expect(half == RunProgress(fractionCompleted: 0.5))
    #expect(none == .zero)
    #expect(half != RunProgress(completed: 1, of: 2))
  }

  @Test func aFractionBeyondTheCountsIsClampedLikeTheOtherInitializers() {
    let beyond = RunProgress(fractionCompleted: 0.45, completed: 3, of: 10)
    #expect(beyond.fractionCompleted == 0.45)
    #expect(beyond.completedCount == 3)
    #expect(beyond.totalCount == 10)
    #expect(beyond != RunProgress(completed: 3, of: 10))
    #expect(
      RunProgress(fractionCompleted: 0.3, completed: 3, of: 10) == RunProgress(completed: 3, of: 10)
    )
    let clamped = RunProgress(fractionCompleted: .nan, completed: 12, of: 10)
    #expect(clamped.fractionCompleted == 0)
    #expect(clamped.completedCount == 10)
    #expect(RunProgress(fractionCompleted: 7, completed: -1, of: 10).fractionCompleted == 1)
    #expect(RunProgress(fractionCompleted: 7, completed: -1, of: 10).completedCount == 0)
    #expect(
      RunProgress(fractionCompleted: 0.2, completed: 5, of: -3) == RunProgress(completed: 0, of: 0))
  }

  @Test func descriptionIsShortAndReadable() {
    #expect(RunProgress(fractionCompleted: 0.425).description == "42.5%")
    #expect(RunProgress(fractionCompleted: 1).description == "100%")
    // Rounded down: 100% means done.
    #expect(RunProgress(fractionCompleted: 0.9996).description == "99.9%")
    #expect(RunProgress(fractionCompleted: 0.29).description == "29%")
    #expect(RunProgress(fractionCompleted: 0.0004).description == "0%")
    #expect(RunProgress(completed: 3, of: 10).description == "3/10")
    #expect(RunProgress(fractionCompleted: 0.3, completed: 3, of: 10).description == "3/10")
    #expect(RunProgress(fractionCompleted: 0.45, completed: 3, of: 10).description == "3/10, 45%")
    #expect(RunProgress.indeterminate().description == "indeterminate")
    #expect(RunProgress.indeterminate(completed: 4).description == "indeterminate, 4 done")
  }

  // MARK: - The count shown beside the bar

  static let shownCounts: [(RunProgress, Int?)] = [
    (RunProgress(completed: 3, of: 10), 3),
    (RunProgress(fractionCompleted: 0.9, completed: 0, of: 100), 90),
    (RunProgress(fractionCompleted: 0.29, completed: 0, of: 100), 29),
    (RunProgress(fractionCompleted: 0.355, completed: 20, of: 100), 35),
    (RunProgress(fractionCompleted: 0.1, completed: 20, of: 100), 20),
    (RunProgress(fractionCompleted: 0.9, completed: 0, of: 21_000_000), 18_900_000),
    (RunProgress(fractionCompleted: 1, completed: 99, of: 100), 100),
    (RunProgress(fractionCompleted: 0.5), nil),
    (RunProgress.indeterminate(completed: 4), 4),
    (RunProgress(completed: 0, of: 0), 0),
  ]

  @Test(arguments: shownCounts)
  func theCountBesideTheBarIsTheFractionsUnits(progress: RunProgress, expected: Int?) {
    #expect(progress.completedCountForDisplay == expected)
  }

  @Test func bytesAndFilesAreSetApartFromTheUnitsAndCompareAndPrint() {
    let progress = RunProgress(completed: 3, of: 10)
      .withByteCount(completed: 117_000_000, total: 1_050_000_000)
      .withFileCount(completed: 3, total: 24)
    #expect(progress.completedByteCount == 117_000_000)
    #expect(progress.totalByteCount == 1_050_000_000)
    #expect(progress.completedFileCount == 3)
    #expect(progress.totalFileCount == 24)
    #expect(progress != RunProgress(completed: 3, of: 10))
    #expect(progress.withMessage("a").completedByteCount == 117_000_000)
    #expect(progress.description == "3/10, 117 MB / 1.1 GB, 3/24 files")
    #expect(
      progress.withByteCount(completed: nil, total: nil).withFileCount(completed: nil, total: nil)
        == RunProgress(completed: 3, of: 10))
    #expect(RunProgress.zero.withByteCount(completed: -4, total: nil).completedByteCount == 0)
  }
}
