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
    #expect(RunProgress(completed: 3, of: 10).description == "3/10")
    #expect(RunProgress(fractionCompleted: 0.3, completed: 3, of: 10).description == "3/10")
    #expect(RunProgress(fractionCompleted: 0.45, completed: 3, of: 10).description == "3/10, 45%")
    #expect(RunProgress.indeterminate().description == "indeterminate")
    #expect(RunProgress.indeterminate(completed: 4).description == "indeterminate, 4 done")
  }
}
