import TaskProgress
import Testing

/// Composition read from standalone reporters: how a child's progress shows in its parent, what
/// adds to a completed count, and when a child is finished.
///
/// Every expected fraction here is exact in binary (quarters, eighths, sixteenths), so that the
/// values compare with `==`.
@Suite("Subprogress")
struct SubprogressTests {
  /// A callee that takes a subprogress, as a library function does: starts it with `total` and
  /// completes `completed` units, then returns its reporter.
  private static func start(
    _ subprogress: consuming TaskRunner.Subprogress, total: Int?, completing completed: Int = 0
  ) -> TaskRunner.Reporter {
    let reporter = subprogress.start(totalCount: total)
    if completed > 0 {
      reporter.complete(count: completed)
    }
    return reporter
  }

  /// A callee that works on part of its share and returns, releasing its reporter unfinished.
  private static func workPartly(
    _ subprogress: consuming TaskRunner.Subprogress, total: Int, completing completed: Int
  ) {
    let reporter = subprogress.start(totalCount: total)
    reporter.complete(count: completed)
    #expect(reporter.progress == RunProgress(completed: completed, of: total))
  }

  /// A callee that decides it has nothing to do and never starts its subprogress.
  private static func skip(_ subprogress: consuming TaskRunner.Subprogress) {}

  // MARK: - A reporter's fraction

  @Test func aChildsFractionShowsInItsParentWeightedByItsAssignedCount() {
    let parent = TaskRunner.Reporter(totalCount: 10)
    parent.complete(count: 2)
    let first = Self.start(parent.subprogress(assigningCount: 3), total: 4, completing: 1)
    let second = Self.start(parent.subprogress(assigningCount: 5), total: 10)
    second.report(completed: 5, of: 10)
    // (2 + 3 × 1/4 + 5 × 5/10) / 10
    #expect(parent.progress == RunProgress(fractionCompleted: 0.525, completed: 2, of: 10))
    #expect(first.progress == RunProgress(completed: 1, of: 4))
    #expect(second.progress == RunProgress(completed: 5, of: 10))
  }

  @Test func aStartedChildWithNothingDoneAddsNothing() {
    let parent = TaskRunner.Reporter(totalCount: 10)
    let child = Self.start(parent.subprogress(assigningCount: 6), total: 5)
    #expect(parent.progress == RunProgress(completed: 0, of: 10))
    #expect(child.progress == RunProgress(completed: 0, of: 5))
  }

  @Test func theFractionIsClampedToOneWhenChildrenPromiseMoreThanTheTotal() {
    let parent = TaskRunner.Reporter(totalCount: 4)
    parent.complete(count: 3)
    let child = Self.start(parent.subprogress(assigningCount: 4), total: 2, completing: 1)
    // (3 + 4 × 1/2) / 4 = 1.25, shown as 1 while the counts say 3 of 4.
    #expect(parent.progress == RunProgress(fractionCompleted: 1, completed: 3, of: 4))
    #expect(parent.progress.fractionCompleted == 1)
    #expect(child.progress == RunProgress(completed: 1, of: 2))
  }

  @Test func anIndeterminateChildAddsNothingToItsParent() {
    let parent = TaskRunner.Reporter(totalCount: 2)
    let sizeless = Self.start(parent.subprogress(assigningCount: 1), total: nil, completing: 5)
    #expect(sizeless.progress == .indeterminate(completed: 5))
    #expect(parent.progress == RunProgress(completed: 0, of: 2))

    let sized = Self.start(parent.subprogress(assigningCount: 1), total: 4, completing: 2)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 2))
    sized.reportIndeterminate(completed: 2)
    #expect(parent.progress == RunProgress(completed: 0, of: 2))
    sized.report(totalCount: 4)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 2))
    sized.report(totalCount: nil)
    #expect(sized.progress == .indeterminate(completed: 2))
    #expect(parent.progress == RunProgress(completed: 0, of: 2))
    sized.reportIndeterminate()
    #expect(parent.progress == RunProgress(completed: 0, of: 2))
  }

  @Test func aChildsFractionReportShowsInItsParent() {
    let parent = TaskRunner.Reporter(totalCount: 1)
    let child = Self.start(parent.subprogress(assigningCount: 1), total: 10)
    child.report(fractionCompleted: 0.5)
    #expect(child.progress == 0.5)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.5, completed: 0, of: 1))
    child.report(fractionCompleted: 0.25)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 1))
  }

  @Test func grandchildrenShowThroughTheirParents() {
    let root = TaskRunner.Reporter(totalCount: 4)
    let child = Self.start(root.subprogress(assigningCount: 2), total: 2)
    let grandchild = Self.start(child.subprogress(assigningCount: 1), total: 4, completing: 1)
    // The grandchild is at 1/4, the child at (1 × 1/4) / 2, the root at (2 × 1/8) / 4.
    #expect(grandchild.progress == RunProgress(completed: 1, of: 4))
    #expect(child.progress == RunProgress(fractionCompleted: 0.125, completed: 0, of: 2))
    #expect(root.progress == RunProgress(fractionCompleted: 0.0625, completed: 0, of: 4))
    child.complete(count: 1)
    // The child at (1 + 1/4) / 2, the root at (2 × 5/8) / 4.
    #expect(child.progress == RunProgress(fractionCompleted: 0.625, completed: 1, of: 2))
    #expect(root.progress == RunProgress(fractionCompleted: 0.3125, completed: 0, of: 4))
  }

  @Test func anIndeterminateParentHidesItsChildren() {
    let parent = TaskRunner.Reporter(totalCount: 2)
    let child = Self.start(parent.subprogress(assigningCount: 1), total: 2, completing: 1)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 2))
    parent.reportIndeterminate()
    #expect(parent.progress == .indeterminate())
    parent.reportIndeterminate(completed: 1)
    #expect(parent.progress == .indeterminate(completed: 1))
    parent.report(completed: 0, of: 2)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 2))
    #expect(child.progress == RunProgress(completed: 1, of: 2))
  }

  // MARK: - One completed count

  @Test func completeAndFinishedChildrenAddToOneCount() {
    let parent = TaskRunner.Reporter(totalCount: 10)
    parent.complete(count: 2)
    _ = Self.start(parent.subprogress(assigningCount: 3), total: 1, completing: 1)
    #expect(parent.progress == RunProgress(completed: 5, of: 10))
    parent.complete(count: 1)
    #expect(parent.progress == RunProgress(completed: 6, of: 10))
    Self.skip(parent.subprogress(assigningCount: 2))
    #expect(parent.progress == RunProgress(completed: 8, of: 10))
  }

  @Test func reportingCountsReplacesTheCountSharesAlreadyAddedIncluded() {
    let parent = TaskRunner.Reporter(totalCount: 10)
    _ = Self.start(parent.subprogress(assigningCount: 4), total: 1, completing: 1)
    #expect(parent.progress == RunProgress(completed: 4, of: 10))
    parent.report(completed: 1, of: 10)
    #expect(parent.progress == RunProgress(completed: 1, of: 10))
    parent.complete(count: 2)
    #expect(parent.progress == RunProgress(completed: 3, of: 10))
    Self.skip(parent.subprogress(assigningCount: 2))
    #expect(parent.progress == RunProgress(completed: 5, of: 10))
    parent.report(completed: 9, of: 10)
    #expect(parent.progress == RunProgress(completed: 9, of: 10))
  }

  @Test(arguments: [-1, -5, Int.min])
  func negativeCountsAndNegativeAssignedCountsCountAsZero(count: Int) {
    let parent = TaskRunner.Reporter(totalCount: 4)
    parent.complete(count: 1)
    parent.complete(count: count)
    #expect(parent.progress == RunProgress(completed: 1, of: 4))

    let child = Self.start(parent.subprogress(assigningCount: count), total: 2, completing: 1)
    #expect(parent.progress == RunProgress(completed: 1, of: 4))
    child.complete(count: 1)  // finishes, adding its share of 0
    #expect(parent.progress == RunProgress(completed: 1, of: 4))
    Self.skip(parent.subprogress(assigningCount: count))
    #expect(parent.progress == RunProgress(completed: 1, of: 4))
    Self.workPartly(parent.subprogress(assigningCount: count), total: 2, completing: 1)
    #expect(parent.progress == RunProgress(completed: 1, of: 4))
  }

  // MARK: - When a child is finished, and what it adds

  @Test func aChildFinishesWhenItsCountReachesItsTotalAndAddsItsShareOnce() {
    let parent = TaskRunner.Reporter(totalCount: 4)
    let child = Self.start(parent.subprogress(assigningCount: 2), total: 4, completing: 2)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 4))
    child.complete(count: 2)
    #expect(parent.progress == RunProgress(completed: 2, of: 4))
    child.complete(count: 5)
    #expect(parent.progress == RunProgress(completed: 2, of: 4))
    #expect(child.progress == RunProgress(completed: 4, of: 4))
  }

  @Test func laterReportsOfAFinishedChildNoLongerReachItsParent() {
    let parent = TaskRunner.Reporter(totalCount: 4)
    let child = Self.start(parent.subprogress(assigningCount: 2), total: 1, completing: 1)
    #expect(parent.progress == RunProgress(completed: 2, of: 4))
    child.report(completed: 0, of: 100)
    #expect(child.progress == RunProgress(completed: 0, of: 100))
    #expect(parent.progress == RunProgress(completed: 2, of: 4))
    child.report(fractionCompleted: 0)
    child.reportIndeterminate()
    child.report(totalCount: 1_000)
    let grandchild = Self.start(child.subprogress(assigningCount: 500), total: 2, completing: 1)
    #expect(child.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 1_000))
    #expect(parent.progress == RunProgress(completed: 2, of: 4))
    grandchild.complete(count: 1)
    #expect(parent.progress == RunProgress(completed: 2, of: 4))
  }

  @Test func reportingCompletedOfTotalFinishesAChild() {
    let parent = TaskRunner.Reporter(totalCount: 2)
    let child = Self.start(parent.subprogress(assigningCount: 1), total: nil)
    child.report(completed: 2, of: 4)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 2))
    child.report(completed: 3, of: 3)
    #expect(parent.progress == RunProgress(completed: 1, of: 2))
  }

  @Test func aFractionOfOneFinishesAChild() {
    let parent = TaskRunner.Reporter(totalCount: 2)
    let child = Self.start(parent.subprogress(assigningCount: 1), total: 10)
    child.report(fractionCompleted: 0.75)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.375, completed: 0, of: 2))
    child.report(fractionCompleted: 1)
    #expect(parent.progress == RunProgress(completed: 1, of: 2))
    child.report(fractionCompleted: 0.5)
    #expect(parent.progress == RunProgress(completed: 1, of: 2))
  }

  @Test(arguments: [0, -1, Int.min])
  func aChildStartedWithATotalOfZeroOrLessIsFinishedAtOnce(total: Int) {
    let parent = TaskRunner.Reporter(totalCount: 2)
    let child = parent.subprogress(assigningCount: 1).start(totalCount: total)
    #expect(child.progress == RunProgress(completed: 0, of: 0))
    #expect(parent.progress == RunProgress(completed: 1, of: 2))
    withExtendedLifetime(child) {}
  }

  @Test(arguments: [3, 2, 0, -4])
  func givingAChildATotalAtOrBelowItsCountFinishesIt(total: Int) {
    let parent = TaskRunner.Reporter(totalCount: 2)
    let child = Self.start(parent.subprogress(assigningCount: 1), total: nil, completing: 3)
    #expect(parent.progress == RunProgress(completed: 0, of: 2))
    child.report(totalCount: total)
    #expect(parent.progress == RunProgress(completed: 1, of: 2))
  }

  @Test func aChildWithoutATotalDoesNotFinishByCountsButWhenReleased() {
    let parent = TaskRunner.Reporter(totalCount: 2)
    do {
      let child = Self.start(parent.subprogress(assigningCount: 2), total: nil)
      child.complete(count: 1_000)
      withExtendedLifetime(child) {
        #expect(parent.progress == RunProgress(completed: 0, of: 2))
      }
    }
    #expect(parent.progress == RunProgress(completed: 2, of: 2))
  }

  @Test func releasingAnUnfinishedChildAddsItsShareOnce() {
    let parent = TaskRunner.Reporter(totalCount: 4)
    Self.workPartly(parent.subprogress(assigningCount: 2), total: 4, completing: 1)
    #expect(parent.progress == RunProgress(completed: 2, of: 4))
    #expect(parent.progress == RunProgress(completed: 2, of: 4))
    parent.complete(count: 1)
    #expect(parent.progress == RunProgress(completed: 3, of: 4))
  }

  @Test func aChildIsReleasedWhenItsLastCopyIs() {
    let parent = TaskRunner.Reporter(totalCount: 4)
    var first: TaskRunner.Reporter? = Self.start(
      parent.subprogress(assigningCount: 2), total: 4, completing: 2)
    do {
      let second = first
      first = nil
      withExtendedLifetime(second) {
        #expect(parent.progress == RunProgress(fractionCompleted: 0.25, completed: 0, of: 4))
      }
    }
    #expect(first == nil)
    #expect(parent.progress == RunProgress(completed: 2, of: 4))
  }

  @Test func aSubprogressDroppedWithoutStartAddsItsShare() {
    let parent = TaskRunner.Reporter(totalCount: 4)
    withExtendedLifetime(parent.subprogress(assigningCount: 3)) {
      #expect(parent.progress == RunProgress(completed: 0, of: 4))
    }
    #expect(parent.progress == RunProgress(completed: 3, of: 4))
    Self.skip(parent.subprogress(assigningCount: 1))
    #expect(parent.progress == RunProgress(completed: 4, of: 4))
  }

  @Test func aLibraryFunctionTakesAnOptionalSubprogress() {
    /// The documented shape of a library function: callers who show no progress pass nothing.
    func hashFiles(
      _ files: [String], subprogress: consuming TaskRunner.Subprogress? = nil
    ) -> Int {
      let reporter = subprogress?.start(totalCount: files.count)
      var hashed = 0
      for _ in files {
        hashed += 1
        reporter?.complete(count: 1)
      }
      return hashed
    }
    let parent = TaskRunner.Reporter(totalCount: 4)
    #expect(hashFiles(["a", "b"]) == 2)
    #expect(parent.progress == RunProgress(completed: 0, of: 4))
    #expect(hashFiles(["a", "b", "c"], subprogress: parent.subprogress(assigningCount: 3)) == 3)
    #expect(parent.progress == RunProgress(completed: 3, of: 4))
    #expect(hashFiles([], subprogress: parent.subprogress(assigningCount: 1)) == 0)
    #expect(parent.progress == RunProgress(completed: 4, of: 4))
  }

  @Test func aParentReachesOneWhenAllItsWorkAndChildrenAreDone() {
    let parent = TaskRunner.Reporter(totalCount: 12)
    parent.complete(count: 1)
    _ = Self.start(parent.subprogress(assigningCount: 2), total: 3, completing: 3)
    Self.workPartly(parent.subprogress(assigningCount: 2), total: 3, completing: 1)
    Self.skip(parent.subprogress(assigningCount: 2))
    _ = parent.subprogress(assigningCount: 1).start(totalCount: 0)
    let fractional = Self.start(parent.subprogress(assigningCount: 2), total: nil)
    #expect(parent.progress == RunProgress(completed: 8, of: 12))
    fractional.report(fractionCompleted: 1)
    #expect(parent.progress == RunProgress(completed: 10, of: 12))
    parent.complete(count: 2)
    #expect(parent.progress == RunProgress(completed: 12, of: 12))
    #expect(parent.progress.fractionCompleted == 1)
  }

  @Test func theCompletedCountIncludesFinishedChildrenAndIsClampedToTheTotal() {
    let parent = TaskRunner.Reporter(totalCount: 10)
    parent.complete(count: 6)
    let unfinished = Self.start(parent.subprogress(assigningCount: 4), total: 2, completing: 1)
    #expect(parent.progress == RunProgress(fractionCompleted: 0.8, completed: 6, of: 10))
    _ = Self.start(parent.subprogress(assigningCount: 3), total: 1, completing: 1)
    // 9 of 10 counted; the unfinished child's half of 4 shows in the fraction only: (9 + 2) / 10.
    #expect(parent.progress == RunProgress(fractionCompleted: 1, completed: 9, of: 10))
    parent.complete(count: 5)
    #expect(parent.progress == RunProgress(completed: 10, of: 10))
    withExtendedLifetime(unfinished) {}
  }
}
