import TaskProgress
import TaskProgressTestSupport
import Testing

/// The reporter methods that composition adds, read from standalone reporters:
/// `complete(count:)`, `report(totalCount:)`, the standalone reporter itself, counts at every
/// magnitude, negative counts, the implicit total, and fraction reports that hide children.
@Suite("Reporter composition", .timeLimit(TestScale.timeLimit(minutes: 2)))
struct ReporterCompositionTests {
  /// A callee that never starts its subprogress.
  private static func skip(_ subprogress: consuming TaskRunner.Subprogress) {}

  // MARK: - complete(count:)

  @Test func completeAddsToAReportedCountAndAReportReplacesTheSum() {
    let reporter = TaskRunner.Reporter()
    reporter.report(completed: 3, of: 10)
    reporter.complete(count: 2)
    #expect(reporter.progress == RunProgress(completed: 5, of: 10))
    reporter.complete(count: 1)
    #expect(reporter.progress == RunProgress(completed: 6, of: 10))
    reporter.report(completed: 1, of: 10)
    #expect(reporter.progress == RunProgress(completed: 1, of: 10))
    reporter.complete(count: 4)
    #expect(reporter.progress == RunProgress(completed: 5, of: 10))
  }

  @Test func completeWithoutATotalShowsAnIndeterminateCount() {
    let reporter = TaskRunner.Reporter()
    reporter.complete(count: 0)
    #expect(reporter.progress == .zero)
    reporter.complete(count: 4)
    #expect(reporter.progress == .indeterminate(completed: 4))
    reporter.complete(count: 1)
    #expect(reporter.progress == .indeterminate(completed: 5))
    reporter.report(totalCount: 8)
    #expect(reporter.progress == RunProgress(completed: 5, of: 8))
  }

  @Test func completeKeepsCountingAfterAnIndeterminateCount() {
    let reporter = TaskRunner.Reporter(totalCount: 10)
    reporter.complete(count: 1)
    reporter.reportIndeterminate(completed: 3)
    reporter.complete(count: 2)
    #expect(reporter.progress == .indeterminate(completed: 5))
    reporter.report(totalCount: 10)
    #expect(reporter.progress == RunProgress(completed: 5, of: 10))
  }

  @Test func theCountSurvivesACountlessIndeterminateReportAndKeepsGrowing() {
    let reporter = TaskRunner.Reporter(totalCount: 10)
    reporter.complete(count: 4)
    reporter.reportIndeterminate()
    #expect(reporter.progress == .indeterminate())
    reporter.complete(count: 3)
    #expect(reporter.progress == .indeterminate())
    reporter.report(totalCount: 10)
    #expect(reporter.progress == RunProgress(completed: 7, of: 10))
  }

  @Test func theCountSurvivesAFractionReportAndKeepsGrowing() {
    let reporter = TaskRunner.Reporter(totalCount: 10)
    reporter.complete(count: 4)
    reporter.report(fractionCompleted: 0.5)
    reporter.complete(count: 2)
    #expect(reporter.progress == 0.5)
    reporter.report(totalCount: 10)
    #expect(reporter.progress == RunProgress(completed: 6, of: 10))
  }

  @Test func completesFromManyTasksAtOnceAreAllCountedAndNeverGoBack() async {
    let tasks = 8
    let perTask = 10_000
    let reporter = TaskRunner.Reporter(totalCount: tasks * perTask)
    let readings = await withTaskGroup(of: [Int].self) { group in
      for _ in 0..<tasks {
        group.addTask {
          for _ in 0..<perTask { reporter.complete(count: 1) }
          return []
        }
      }
      group.addTask {
        (0..<1_000).map { _ in reporter.progress.completedCount ?? -1 }
      }
      var readings: [Int] = []
      for await batch in group { readings += batch }
      return readings
    }
    #expect(reporter.progress == RunProgress(completed: tasks * perTask, of: tasks * perTask))
    #expect(readings.count == 1_000)
    #expect(readings == readings.sorted())
    #expect(readings.allSatisfy { (0...tasks * perTask).contains($0) })
  }

  // MARK: - report(totalCount:)

  @Test func settingATotalKeepsTheCompletedCount() {
    let reporter = TaskRunner.Reporter()
    reporter.complete(count: 7)
    reporter.report(totalCount: 10)
    #expect(reporter.progress == RunProgress(completed: 7, of: 10))
    reporter.report(totalCount: nil)
    #expect(reporter.progress == .indeterminate(completed: 7))
    reporter.report(totalCount: 12)
    #expect(reporter.progress == RunProgress(completed: 7, of: 12))
    reporter.complete(count: 1)
    reporter.report(totalCount: 16)
    #expect(reporter.progress == RunProgress(completed: 8, of: 16))
  }

  @Test func aCountAboveTheTotalIsShownClampedAndKeptForALargerTotal() {
    // Completed past its total, the count is kept: a larger total shows all of it.
    let counted = TaskRunner.Reporter(totalCount: 5)
    counted.complete(count: 7)
    #expect(counted.progress == RunProgress(completed: 5, of: 5))
    counted.report(totalCount: 10)
    #expect(counted.progress == RunProgress(completed: 7, of: 10))

    // The same count, with the smaller total given after it.
    let totalled = TaskRunner.Reporter()
    totalled.complete(count: 7)
    totalled.report(totalCount: 5)
    #expect(totalled.progress == RunProgress(completed: 5, of: 5))
    totalled.report(totalCount: 0)
    #expect(totalled.progress == RunProgress(completed: 0, of: 0))
    totalled.report(totalCount: 10)  // the count was kept whole, beyond the total of 0
    #expect(totalled.progress == RunProgress(completed: 7, of: 10))
  }

  @Test func settingATotalKeepsAReportedCount() {
    let reporter = TaskRunner.Reporter()
    reporter.report(completed: 3, of: 4)
    reporter.report(totalCount: 8)
    #expect(reporter.progress == RunProgress(completed: 3, of: 8))
    reporter.reportIndeterminate(completed: 5)
    reporter.report(totalCount: 8)
    #expect(reporter.progress == RunProgress(completed: 5, of: 8))
  }

  @Test func settingATotalAfterAFractionShowsTheReportedCountAgain() {
    let reporter = TaskRunner.Reporter()
    reporter.report(completed: 3, of: 4)
    reporter.report(fractionCompleted: 0.9)
    #expect(reporter.progress == 0.9)
    reporter.report(totalCount: 4)
    #expect(reporter.progress == RunProgress(completed: 3, of: 4))
  }

  @Test func settingATotalKeepsChildrenInTheFraction() {
    let reporter = TaskRunner.Reporter(totalCount: 2)
    let child = reporter.subprogress(assigningCount: 1).start(totalCount: 2)
    child.complete(count: 1)
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 2))
    reporter.report(totalCount: 4)
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.125, completed: 0, of: 4))
  }

  // MARK: - A standalone reporter

  @Test func aStandaloneReporterStartsAtZeroOrAtItsTotal() {
    #expect(TaskRunner.Reporter().progress == .zero)
    #expect(TaskRunner.Reporter(totalCount: nil).progress == .zero)
    #expect(TaskRunner.Reporter(totalCount: 10).progress == RunProgress(completed: 0, of: 10))
    #expect(TaskRunner.Reporter(totalCount: 0).progress == RunProgress(completed: 0, of: 0))
    #expect(TaskRunner.Reporter(totalCount: 0).progress.fractionCompleted == 1)
  }

  @Test func aStandaloneReporterAndItsChildrenAreNeverCancelled() async throws {
    let reporter = TaskRunner.Reporter(totalCount: 2)
    let child = reporter.subprogress(assigningCount: 1).start(totalCount: 1_000)
    #expect(!reporter.isCancelled)
    #expect(!child.isCancelled)
    for _ in 0..<1_000 {
      try await reporter.checkpoint()
      try await child.checkpoint()
      child.complete(count: 1)
    }
    #expect(reporter.progress == RunProgress(completed: 1, of: 2))
  }

  @Test func copiesOfAReporterShareOneProgress() {
    let reporter = TaskRunner.Reporter(totalCount: 4)
    let copy = reporter
    copy.complete(count: 1)
    reporter.complete(count: 1)
    #expect(reporter.progress == RunProgress(completed: 2, of: 4))
    #expect(copy.progress == RunProgress(completed: 2, of: 4))
  }

  @Test func readingProgressChangesNothing() {
    let reporter = TaskRunner.Reporter(totalCount: 8)
    let child = reporter.subprogress(assigningCount: 4).start(totalCount: 4)
    child.complete(count: 1)
    reporter.complete(count: 2)
    let readings = (0..<100).map { _ in reporter.progress }
    #expect(Set(readings) == [RunProgress(fractionCompleted: 0.375, completed: 2, of: 8)])
  }

  @Test func aStandaloneReporterUnitTestsAFunctionThatTakesASubprogress() async throws {
    /// A library function, as the reporter's documentation shows it.
    func hashFiles(
      _ files: [String], subprogress: consuming TaskRunner.Subprogress? = nil
    ) async throws -> [String: Int] {
      let reporter = subprogress?.start(totalCount: files.count)
      var digests: [String: Int] = [:]
      for file in files {
        try await reporter?.checkpoint()
        digests[file] = file.utf8.count
        reporter?.complete(count: 1)
      }
      return digests
    }
    let files = (1...10).map { "file\($0)" }
    let reporter = TaskRunner.Reporter(totalCount: 10)
    let digests = try await hashFiles(files, subprogress: reporter.subprogress(assigningCount: 10))
    #expect(digests.count == 10)
    #expect(reporter.progress == RunProgress(completed: 10, of: 10))
  }

  // MARK: - Counts at every magnitude

  static let hugeTotals: [Int] = [
    1 << 31, (1 << 32) + 1, (1 << 53) + 1, (1 << 62) - 9, (1 << 62) - 8, (1 << 62) - 1, 1 << 62,
    (1 << 62) + 1, Int.max - 1, Int.max,
  ]

  @Test(arguments: hugeTotals)
  func completeCountsEveryUnitUpToAndAboveTwoToTheSixtyTwo(total: Int) {
    let reporter = TaskRunner.Reporter(totalCount: total)
    let half = total / 2
    reporter.complete(count: half)
    #expect(reporter.progress == RunProgress(completed: half, of: total))
    reporter.complete(count: total - half)
    #expect(reporter.progress == RunProgress(completed: total, of: total))
  }

  @Test(arguments: hugeTotals)
  func reportedCountsAreExactAtEveryMagnitude(total: Int) {
    let reporter = TaskRunner.Reporter()
    reporter.report(completed: total - 1, of: total)
    #expect(reporter.progress == RunProgress(completed: total - 1, of: total))
    reporter.reportIndeterminate(completed: total)
    #expect(reporter.progress == .indeterminate(completed: total))
    reporter.report(totalCount: total)
    #expect(reporter.progress == RunProgress(completed: total, of: total))
    reporter.report(completed: 5, of: total)
    #expect(reporter.progress == RunProgress(completed: 5, of: total))
  }

  @Test func countsAddedPastTwoToTheSixtyTwoStayClampedAtASmallTotal() {
    let reporter = TaskRunner.Reporter(totalCount: 10)
    reporter.complete(count: (1 << 62) - 8)
    #expect(reporter.progress == RunProgress(completed: 10, of: 10))
    reporter.complete(count: 8)
    #expect(reporter.progress == RunProgress(completed: 10, of: 10))
    reporter.complete(count: 1 << 62)
    #expect(reporter.progress == RunProgress(completed: 10, of: 10))
    reporter.report(totalCount: nil)
    #expect(reporter.progress == .indeterminate(completed: Int.max))
  }

  @Test func countsAddedPastTheLargestLockFreeTotalStayClampedAtIt() {
    let total = (1 << 62) - 9
    let reporter = TaskRunner.Reporter(totalCount: total)
    reporter.complete(count: total)
    #expect(reporter.progress == RunProgress(completed: total, of: total))
    reporter.complete(count: total)
    #expect(reporter.progress == RunProgress(completed: total, of: total))
    reporter.report(totalCount: nil)
    #expect(reporter.progress == .indeterminate(completed: 2 * total))
  }

  @Test func countsAddedPastIntMaxReadAsIntMaxUntilACountReplacesThem() {
    let reporter = TaskRunner.Reporter()
    reporter.complete(count: Int.max)
    reporter.complete(count: Int.max)
    #expect(reporter.progress == .indeterminate(completed: Int.max))
    reporter.report(totalCount: 10)
    #expect(reporter.progress == RunProgress(completed: 10, of: 10))
    reporter.report(completed: 3, of: 10)
    reporter.complete(count: 2)
    #expect(reporter.progress == RunProgress(completed: 5, of: 10))
    reporter.complete(count: Int.max)
    reporter.report(totalCount: Int.max)
    #expect(reporter.progress == RunProgress(completed: Int.max, of: Int.max))
  }

  /// A count kept in the words, or too large for them, survives every report that hides it.
  @Test(
    arguments: [3, (1 << 61) + 3],
    ["fraction", "indeterminate", "indeterminate count", "huge total"])
  func aCountSurvivesEveryReportThatHidesIt(count: Int, hiding: String) {
    let reporter = TaskRunner.Reporter()
    reporter.report(completed: count - 1, of: count + 10)
    reporter.complete(count: 1)
    switch hiding {
    case "fraction": reporter.report(fractionCompleted: 0.25)
    case "indeterminate": reporter.reportIndeterminate()
    case "indeterminate count": reporter.report(totalCount: nil)
    default: reporter.report(totalCount: Int.max)
    }
    reporter.complete(count: 2)
    reporter.report(totalCount: count + 10)
    #expect(reporter.progress == RunProgress(completed: count + 2, of: count + 10))
  }

  @Test func aWideCountSurvivesAFractionAndAnIndeterminateReport() {
    let reporter = TaskRunner.Reporter()
    reporter.report(completed: (1 << 62) + 1, of: Int.max)
    reporter.report(fractionCompleted: 0.5)
    reporter.complete(count: 2)
    reporter.report(totalCount: Int.max)
    #expect(reporter.progress == RunProgress(completed: (1 << 62) + 3, of: Int.max))
    reporter.reportIndeterminate()
    reporter.report(totalCount: 1 << 62)
    #expect(reporter.progress == RunProgress(completed: (1 << 62), of: 1 << 62))
    reporter.report(totalCount: nil)
    #expect(reporter.progress == .indeterminate(completed: (1 << 62) + 3))
  }

  @Test func countsAddedPastTwoToTheSixtyTwoWithoutATotalKeepCounting() {
    let reporter = TaskRunner.Reporter()
    reporter.complete(count: 1 << 61)
    #expect(reporter.progress == .indeterminate(completed: 1 << 61))
    reporter.complete(count: 1 << 61)
    #expect(reporter.progress == .indeterminate(completed: 1 << 62))
  }

  @Test(arguments: [1 << 62, Int.max])
  func aChildWithAHugeTotalShowsInItsParentAndFinishes(total: Int) {
    let parent = TaskRunner.Reporter(totalCount: 2)
    let child = parent.subprogress(assigningCount: 1).start(totalCount: total)
    child.report(completed: total / 2, of: total)
    let fraction = parent.progress.fractionCompleted ?? -1
    #expect(fraction.isClose(to: 0.25))
    #expect(parent.progress.completedCount == 0)
    child.report(completed: total, of: total)
    #expect(parent.progress == RunProgress(completed: 1, of: 2))
  }

  @Test func aChildWithATotalAboveTwoToTheSixtyTwoFinishesByCompleting() {
    let parent = TaskRunner.Reporter(totalCount: 2)
    let child = parent.subprogress(assigningCount: 1).start(totalCount: 1 << 62)
    child.complete(count: 1 << 61)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 2))
    child.complete(count: 1 << 61)
    #expect(parent.progress == RunProgress(completed: 1, of: 2))
  }

  @Test(arguments: [(1 << 62) - 9, 1 << 62, Int.max / 2])
  func aHugeAssignedCountAddsInFull(assigned: Int) {
    let parent = TaskRunner.Reporter(totalCount: Int.max)
    Self.skip(parent.subprogress(assigningCount: assigned))
    #expect(parent.progress == RunProgress(completed: assigned, of: Int.max))
    let implicit = TaskRunner.Reporter()
    Self.skip(implicit.subprogress(assigningCount: assigned))
    #expect(implicit.progress == RunProgress(completed: assigned, of: assigned))
  }

  // MARK: - Negative counts

  @Test(arguments: [-1, -1_000, Int.min])
  func negativeCountsNeverTakeAwayNorTrap(count: Int) {
    let reporter = TaskRunner.Reporter(totalCount: 10)
    reporter.complete(count: 3)
    reporter.complete(count: count)
    #expect(reporter.progress == RunProgress(completed: 3, of: 10))
    reporter.report(completed: count, of: 10)
    #expect(reporter.progress == RunProgress(completed: 0, of: 10))
    reporter.reportIndeterminate(completed: count)
    #expect(reporter.progress == .indeterminate(completed: 0))
    reporter.report(completed: 5, of: count)
    #expect(reporter.progress == RunProgress(completed: 0, of: 0))
    reporter.report(totalCount: count)
    #expect(reporter.progress == RunProgress(completed: 0, of: 0))
    #expect(TaskRunner.Reporter(totalCount: count).progress == RunProgress(completed: 0, of: 0))
  }

  @Test(arguments: [-1, Int.min])
  func aNegativeAssignedCountAddsNothingToAnImplicitTotal(count: Int) {
    let reporter = TaskRunner.Reporter()
    let child = reporter.subprogress(assigningCount: count).start(totalCount: 2)
    child.complete(count: 1)
    #expect(reporter.progress == .zero)
    withExtendedLifetime(reporter.subprogress(assigningCount: 2)) {
      #expect(reporter.progress == RunProgress(completed: 0, of: 2))
    }
    #expect(reporter.progress == RunProgress(completed: 2, of: 2))
    withExtendedLifetime(child) {}
  }

  // MARK: - The implicit total

  @Test func aReporterWithoutATotalFollowsItsOnlyChild() {
    let reporter = TaskRunner.Reporter()
    let child = reporter.subprogress(assigningCount: 1).start(totalCount: 4)
    #expect(reporter.progress == RunProgress(completed: 0, of: 1))
    child.complete(count: 1)
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 1))
    child.complete(count: 2)
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.75, completed: 0, of: 1))
    child.complete(count: 1)
    #expect(reporter.progress == RunProgress(completed: 1, of: 1))
  }

  @Test func theImplicitTotalIsTheSumOfTheCountsAssignedSoFar() {
    let reporter = TaskRunner.Reporter()
    let first = reporter.subprogress(assigningCount: 1).start(totalCount: 2)
    first.complete(count: 2)
    #expect(reporter.progress == RunProgress(completed: 1, of: 1))
    withExtendedLifetime(reporter.subprogress(assigningCount: 3)) {
      #expect(reporter.progress == RunProgress(completed: 1, of: 4))
      reporter.complete(count: 1)
      #expect(reporter.progress == RunProgress(completed: 2, of: 4))
    }
    #expect(reporter.progress == RunProgress(completed: 5, of: 4))
    #expect(reporter.progress.completedCount == 4)
  }

  @Test func aGivenTotalReplacesTheImplicitOne() {
    let reporter = TaskRunner.Reporter()
    let child = reporter.subprogress(assigningCount: 1).start(totalCount: 2)
    child.complete(count: 1)
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.5, completed: 0, of: 1))
    reporter.report(totalCount: 4)
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.125, completed: 0, of: 4))
    reporter.report(totalCount: nil)
    #expect(reporter.progress == .indeterminate(completed: 0))
  }

  @Test func assigningNothingGivesNoImplicitTotal() {
    let reporter = TaskRunner.Reporter()
    let child = reporter.subprogress(assigningCount: 0).start(totalCount: 4)
    child.complete(count: 2)
    #expect(reporter.progress == .zero)
    reporter.complete(count: 1)
    #expect(reporter.progress == .indeterminate(completed: 1))
  }

  @Test func aChildWithoutATotalFollowsItsSubprogressesStageByStage() {
    let parent = TaskRunner.Reporter(totalCount: 1)
    do {
      let child = parent.subprogress(assigningCount: 1).start(totalCount: nil)
      let download = child.subprogress(assigningCount: 1).start(totalCount: 2)
      download.complete(count: 1)
      #expect(parent.progress == RunProgress(fractionCompleted: 0.5, completed: 0, of: 1))
      download.complete(count: 1)
      // The child's total was never given: its counts do not finish it, so the next stage
      // still shows.
      let parse = child.subprogress(assigningCount: 1).start(totalCount: 4)
      parse.complete(count: 2)
      #expect(child.progress == RunProgress(fractionCompleted: 0.75, completed: 1, of: 2))
      #expect(parent.progress == RunProgress(fractionCompleted: 0.75, completed: 0, of: 1))
    }
    #expect(parent.progress == RunProgress(completed: 1, of: 1))
  }

  // MARK: - Fraction reports hide children

  @Test func aFractionReportHidesChildrenUntilCountsAreReportedAgain() {
    let reporter = TaskRunner.Reporter(totalCount: 4)
    let child = reporter.subprogress(assigningCount: 2).start(totalCount: 4)
    child.complete(count: 2)
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 4))
    reporter.report(fractionCompleted: 0.6)
    #expect(reporter.progress == 0.6)
    child.complete(count: 1)
    #expect(reporter.progress == 0.6)
    reporter.report(completed: 1, of: 4)
    // (1 + 2 × 3/4) / 4
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.625, completed: 1, of: 4))
  }

  @Test func aChildFinishingWhileItsParentShowsAFractionStillCounts() {
    let reporter = TaskRunner.Reporter(totalCount: 4)
    let child = reporter.subprogress(assigningCount: 2).start(totalCount: 1)
    reporter.report(fractionCompleted: 0.3)
    child.complete(count: 1)
    #expect(reporter.progress == 0.3)
    reporter.report(totalCount: 4)
    #expect(reporter.progress == RunProgress(completed: 2, of: 4))
    reporter.complete(count: 2)
    #expect(reporter.progress == RunProgress(completed: 4, of: 4))
  }

  @Test func anIndeterminateReportHidesChildrenUntilCountsAreReportedAgain() {
    let reporter = TaskRunner.Reporter()
    let child = reporter.subprogress(assigningCount: 2).start(totalCount: 4)
    child.complete(count: 1)
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 2))
    reporter.reportIndeterminate(completed: 0)
    #expect(reporter.progress == .indeterminate(completed: 0))
    reporter.report(completed: 0, of: 2)
    #expect(reporter.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 2))
  }
}
