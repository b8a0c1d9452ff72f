import TaskProgress
import TaskProgressTestSupport
import Testing

/// Foundation's `ProgressManager` tests (swiftlang/swift-foundation,
/// `Tests/FoundationEssentialsTests/ProgressManager/ProgressManagerTests.swift`), ported with their
/// numbers to standalone reporters.
///
/// Where our semantics answer differently, the comment above the test says how and why. In short:
/// a fraction is clamped to `0...1` and a completed count to its total (ProgressManager reports
/// 13 of 10 as 1.3); a reporter without a total that hands out subprogresses takes their assigned
/// counts as its total instead of staying indeterminate; a count-less reporter is `.zero` and one
/// that counts without a total is indeterminate with its count, where ProgressManager says 0.0.
@Suite("ProgressManager scenarios", .timeLimit(TestScale.timeLimit(minutes: 2)))
struct ProgressManagerScenarioTests {
  // MARK: - Helpers, as in the original

  /// `doBasicOperationV1`, `V2` and `V3`: starts the subprogress with `total` and completes it
  /// one unit at a time, checking the child's own progress after each unit.
  private static func doBasicOperation(
    total: Int, reportTo subprogress: consuming TaskRunner.Subprogress
  ) {
    let reporter = subprogress.start(totalCount: total)
    for index in 1...total {
      reporter.complete(count: 1)
      #expect(reporter.progress == RunProgress(completed: index, of: total))
      #expect(reporter.progress.fractionCompleted == Double(index) / Double(total))
    }
  }

  /// `doSomething(amount:subprogress:)`.
  private static func doSomething(amount: Int, subprogress: consuming TaskRunner.Subprogress) {
    let reporter = subprogress.start(totalCount: amount)
    for _ in 1...amount {
      reporter.complete(count: 1)
    }
  }

  /// `makeUnfinishedChild(subprogress:)`: does 2 of 3 units, then releases its reporter.
  private static func makeUnfinishedChild(subprogress: consuming TaskRunner.Subprogress) {
    let reporter = subprogress.start(totalCount: 3)
    reporter.complete(count: 2)
    #expect(reporter.progress.fractionCompleted == 2.0 / 3.0)
  }

  /// `makeFinishedChild(subprogress:)`.
  private static func makeFinishedChild(subprogress: consuming TaskRunner.Subprogress) {
    let reporter = subprogress.start(totalCount: 2)
    reporter.complete(count: 2)
  }

  /// Reads `reporter` `times` times, giving other tasks a turn between readings.
  private static func read(
    _ reporter: TaskRunner.Reporter, times: Int
  ) async -> [RunProgress] {
    var readings: [RunProgress] = []
    for _ in 0..<times {
      readings.append(reporter.progress)
      await Task.yield()
    }
    return readings
  }

  /// Whether readings of a tree whose reports only add never go back: counts never drop, and a
  /// fraction drops by floating-point rounding at most.
  private static func neverGoBack(_ readings: [RunProgress]) -> Bool {
    zip(readings, readings.dropFirst()).allSatisfy { earlier, later in
      (later.completedCount ?? 0) >= (earlier.completedCount ?? 0)
        && (later.fractionCompleted ?? 0) >= (earlier.fractionCompleted ?? 0) - 1e-9
    }
  }

  /// Whether every reading is a valid clamped progress of `total`.
  private static func areClamped(_ readings: [RunProgress], total: Int) -> Bool {
    readings.allSatisfy { reading in
      reading.totalCount == total && (0...total).contains(reading.completedCount ?? -1)
        && (0...1).contains(reading.fractionCompleted ?? -1)
    }
  }

  // MARK: - Totals

  // Ported from `totalCountNil`. ProgressManager says fraction 0.0 and indeterminate; ours is
  // indeterminate too, with no fraction at all (`nil`) and the count kept.
  @Test func totalCountNil() {
    let overall = TaskRunner.Reporter(totalCount: nil)
    overall.complete(count: 10)
    #expect(overall.progress == .indeterminate(completed: 10))
    #expect(overall.progress.completedCount == 10)
    #expect(overall.progress.totalCount == nil)
    #expect(overall.progress.isIndeterminate)
  }

  // Ported from `totalCountReset`.
  @Test func totalCountReset() {
    let overall = TaskRunner.Reporter(totalCount: 10)
    overall.complete(count: 5)
    #expect(overall.progress == RunProgress(completed: 5, of: 10))
    #expect(overall.progress.fractionCompleted == 0.5)

    overall.report(totalCount: nil)
    overall.complete(count: 1)
    #expect(overall.progress == .indeterminate(completed: 6))
    #expect(overall.progress.isIndeterminate)

    overall.report(totalCount: 12)
    overall.complete(count: 2)
    #expect(overall.progress == RunProgress(completed: 8, of: 12))
    #expect(overall.progress.fractionCompleted == 8.0 / 12.0)
  }

  // Ported from `totalCountNilWithChild`. ProgressManager keeps the parent indeterminate with
  // 2 done (fraction 0.0) until it gets a total; ours takes the counts assigned to subprogresses as
  // the total (the "implicit total"), so that a run whose root never gave one still shows its
  // children: the parent is 2 of 2 at once. Both say 2 of 5 (0.4) once the total is 5.
  @Test func totalCountNilWithChild() {
    let overall = TaskRunner.Reporter(totalCount: nil)
    #expect(overall.progress == .zero)

    let progress1 = overall.subprogress(assigningCount: 2)
    let manager1 = progress1.start(totalCount: 1)
    manager1.complete(count: 1)
    #expect(manager1.progress == RunProgress(completed: 1, of: 1))
    #expect(overall.progress == RunProgress(completed: 2, of: 2))

    overall.report(totalCount: 5)
    #expect(overall.progress == RunProgress(completed: 2, of: 5))
    #expect(overall.progress.fractionCompleted == 0.4)
  }

  // Ported from `totalCountFinishesWithLessCompletedCount`. ProgressManager says 13 of 10, a
  // fraction of 1.3; ours clamps the count to the total and the fraction to 1.
  @Test func totalCountFinishesWithLessCompletedCount() {
    let overall = TaskRunner.Reporter(totalCount: 10)
    overall.complete(count: 5)
    let progress1 = overall.subprogress(assigningCount: 8)
    let manager1 = progress1.start(totalCount: 1)
    manager1.complete(count: 1)
    #expect(overall.progress == RunProgress(completed: 10, of: 10))
    #expect(overall.progress.fractionCompleted == 1)
    // The count beyond the total was kept: a larger total shows all 13.
    overall.report(totalCount: 20)
    #expect(overall.progress == RunProgress(completed: 13, of: 20))
  }

  // Ported from `childTotalCountReset`.
  @Test func childTotalCountReset() {
    let overall = TaskRunner.Reporter(totalCount: 1)
    let childManager = overall.subprogress(assigningCount: 1).start(totalCount: 4)
    childManager.complete(count: 2)
    #expect(overall.progress.fractionCompleted == 0.5)
    #expect(!childManager.progress.isIndeterminate)

    childManager.report(totalCount: nil)
    #expect(overall.progress == RunProgress(completed: 0, of: 1))
    #expect(childManager.progress == .indeterminate(completed: 2))

    childManager.report(totalCount: 5)
    childManager.complete(count: 2)
    #expect(overall.progress == RunProgress(fractionCompleted: 0.8, completed: 0, of: 1))
    #expect(childManager.progress == RunProgress(completed: 4, of: 5))

    childManager.complete(count: 1)
    #expect(overall.progress == RunProgress(completed: 1, of: 1))
  }

  // MARK: - Trees

  // Ported from `discreteManager`.
  @Test func discreteManager() {
    let manager = TaskRunner.Reporter(totalCount: 3)
    Self.doBasicOperation(total: 8, reportTo: manager.subprogress(assigningCount: 3))
    #expect(manager.progress == RunProgress(completed: 3, of: 3))
    #expect(manager.progress.fractionCompleted == 1)
  }

  // Ported from `emptyDiscreteManager`. ProgressManager's fresh manager without a total is
  // indeterminate; ours is `.zero` until something is reported.
  @Test func emptyDiscreteManager() {
    let manager = TaskRunner.Reporter(totalCount: nil)
    #expect(manager.progress == .zero)
    manager.report(totalCount: 10)
    #expect(manager.progress == RunProgress(completed: 0, of: 10))
    Self.doBasicOperation(total: 8, reportTo: manager.subprogress(assigningCount: 10))
    #expect(manager.progress == RunProgress(completed: 10, of: 10))
  }

  // Ported from `twoLevelTreeWithTwoChildren`.
  @Test func twoLevelTreeWithTwoChildren() {
    let overall = TaskRunner.Reporter(totalCount: 2)
    Self.doBasicOperation(total: 8, reportTo: overall.subprogress(assigningCount: 1))
    #expect(overall.progress == RunProgress(completed: 1, of: 2))
    #expect(overall.progress.fractionCompleted == 0.5)
    Self.doBasicOperation(total: 7, reportTo: overall.subprogress(assigningCount: 1))
    #expect(overall.progress == RunProgress(completed: 2, of: 2))
    #expect(overall.progress.fractionCompleted == 1)
  }

  // Ported from `twoLevelTreeWithMultipleChildren`.
  @Test func twoLevelTreeWithMultipleChildren() {
    let overall = TaskRunner.Reporter(totalCount: 3)
    Self.doBasicOperation(total: 8, reportTo: overall.subprogress(assigningCount: 1))
    #expect(overall.progress == RunProgress(completed: 1, of: 3))
    #expect(overall.progress.fractionCompleted == 1.0 / 3.0)
    Self.doBasicOperation(total: 7, reportTo: overall.subprogress(assigningCount: 1))
    #expect(overall.progress == RunProgress(completed: 2, of: 3))
    #expect(overall.progress.fractionCompleted == 2.0 / 3.0)
    Self.doBasicOperation(total: 11, reportTo: overall.subprogress(assigningCount: 1))
    #expect(overall.progress == RunProgress(completed: 3, of: 3))
    #expect(overall.progress.fractionCompleted == 1)
  }

  // Ported from `threeLevelTree`.
  @Test func threeLevelTree() {
    let overall = TaskRunner.Reporter(totalCount: 100)
    #expect(overall.progress.fractionCompleted == 0)
    let child1 = overall.subprogress(assigningCount: 100)
    let manager1 = child1.start(totalCount: 100)
    let grandchild1 = manager1.subprogress(assigningCount: 100)
    let grandchildManager1 = grandchild1.start(totalCount: 100)
    #expect(overall.progress == RunProgress(completed: 0, of: 100))

    grandchildManager1.complete(count: 50)
    #expect(manager1.progress == RunProgress(fractionCompleted: 0.5, completed: 0, of: 100))
    #expect(overall.progress == RunProgress(fractionCompleted: 0.5, completed: 0, of: 100))

    grandchildManager1.complete(count: 50)
    #expect(grandchildManager1.progress == RunProgress(completed: 100, of: 100))
    #expect(manager1.progress == RunProgress(completed: 100, of: 100))
    #expect(overall.progress == RunProgress(completed: 100, of: 100))
  }

  // Ported from `fourLevelTree`.
  @Test func fourLevelTree() {
    let overall = TaskRunner.Reporter(totalCount: 100)
    #expect(overall.progress.fractionCompleted == 0)
    let child1 = overall.subprogress(assigningCount: 100)
    let manager1 = child1.start(totalCount: 100)
    let grandchild1 = manager1.subprogress(assigningCount: 100)
    let grandchildManager1 = grandchild1.start(totalCount: 100)
    #expect(overall.progress.fractionCompleted == 0)
    let greatGrandchild1 = grandchildManager1.subprogress(assigningCount: 100)
    let greatGrandchildManager1 = greatGrandchild1.start(totalCount: 100)

    greatGrandchildManager1.complete(count: 50)
    #expect(overall.progress == RunProgress(fractionCompleted: 0.5, completed: 0, of: 100))

    greatGrandchildManager1.complete(count: 50)
    #expect(greatGrandchildManager1.progress == RunProgress(completed: 100, of: 100))
    #expect(grandchildManager1.progress == RunProgress(completed: 100, of: 100))
    #expect(manager1.progress == RunProgress(completed: 100, of: 100))
    #expect(overall.progress == RunProgress(completed: 100, of: 100))
  }

  // Ported from `fiveThreadsMutatingAndReading`.
  @Test func fiveThreadsMutatingAndReading() async {
    let manager = TaskRunner.Reporter(totalCount: 10)
    let readings = await withTaskGroup(of: [RunProgress].self) { group in
      for amount in [5, 8, 7, 6] {
        group.addTask {
          Self.doSomething(amount: amount, subprogress: manager.subprogress(assigningCount: 1))
          return []
        }
      }
      group.addTask { await Self.read(manager, times: 100) }
      var readings: [RunProgress] = []
      for await batch in group { readings += batch }
      return readings
    }
    #expect(readings.allSatisfy { ($0.fractionCompleted ?? 1) <= 0.4 })
    #expect(Self.neverGoBack(readings))
    #expect(manager.progress == RunProgress(completed: 4, of: 10))
  }

  // MARK: - Children that go away

  // Ported from `unfinishedChild`: a child released at 2 of 3 counts as done.
  @Test func unfinishedChild() {
    let manager = TaskRunner.Reporter(totalCount: 2)
    manager.complete(count: 1)
    #expect(manager.progress.fractionCompleted == 0.5)
    Self.makeUnfinishedChild(subprogress: manager.subprogress(assigningCount: 1))
    #expect(manager.progress == RunProgress(completed: 2, of: 2))
  }

  // Ported from `unfinishedGrandchild`.
  @Test func unfinishedGrandchild() {
    let manager = TaskRunner.Reporter(totalCount: 1)
    let child = manager.subprogress(assigningCount: 1).start(totalCount: 1)
    Self.makeUnfinishedChild(subprogress: child.subprogress(assigningCount: 1))
    #expect(manager.progress == RunProgress(completed: 1, of: 1))
    #expect(child.progress == RunProgress(completed: 1, of: 1))
  }

  // Ported from `unfinishedGreatGrandchild`.
  @Test func unfinishedGreatGrandchild() {
    let manager = TaskRunner.Reporter(totalCount: 1)
    let child = manager.subprogress(assigningCount: 1).start(totalCount: 1)
    let grandchild = child.subprogress(assigningCount: 1).start(totalCount: 1)
    Self.makeUnfinishedChild(subprogress: grandchild.subprogress(assigningCount: 1))
    #expect(manager.progress == RunProgress(completed: 1, of: 1))
    #expect(grandchild.progress == RunProgress(completed: 1, of: 1))
  }

  // Ported from `finishedChildUnreadBeforeDeinit`.
  @Test func finishedChildUnreadBeforeDeinit() {
    let manager = TaskRunner.Reporter(totalCount: 2)
    manager.complete(count: 1)
    #expect(manager.progress.fractionCompleted == 0.5)
    Self.makeFinishedChild(subprogress: manager.subprogress(assigningCount: 1))
    #expect(manager.progress == RunProgress(completed: 2, of: 2))
  }

  // Ported from `finishedChildReadBeforeDeinit`: finishing and then going away counts once.
  @Test func finishedChildReadBeforeDeinit() {
    let manager = TaskRunner.Reporter(totalCount: 2)
    manager.complete(count: 1)
    #expect(manager.progress.fractionCompleted == 0.5)
    var child: TaskRunner.Reporter? = manager.subprogress(assigningCount: 1).start(totalCount: 1)
    child?.complete(count: 1)
    #expect(manager.progress == RunProgress(completed: 2, of: 2))
    child = nil
    #expect(manager.progress == RunProgress(completed: 2, of: 2))
    // Counted once: with room above the total, the count is still 2.
    manager.report(totalCount: 4)
    #expect(manager.progress == RunProgress(completed: 2, of: 4))
  }

  // Ported from `uninitializedSubprogress`: a subprogress dropped without `start` counts as done.
  @Test func uninitializedSubprogress() {
    let manager = TaskRunner.Reporter(totalCount: 2)
    manager.complete(count: 1)
    withExtendedLifetime(manager.subprogress(assigningCount: 1)) {
      #expect(manager.progress == RunProgress(completed: 1, of: 2))
    }
    #expect(manager.progress == RunProgress(completed: 2, of: 2))
  }

  // Ported from `deallocatedChild`: a released child is counted once, however often the parent
  // is read afterwards.
  @Test func deallocatedChild() {
    let manager = TaskRunner.Reporter(totalCount: 100)
    var child: TaskRunner.Reporter? = manager.subprogress(assigningCount: 50).start(
      totalCount: 10)
    child?.complete(count: 5)
    let fractionBeforeDeallocation = manager.progress
    #expect(
      fractionBeforeDeallocation == RunProgress(fractionCompleted: 0.25, completed: 0, of: 100))

    child = nil
    for _ in 1...10 {
      _ = manager.progress
    }
    let fractionAfterDeallocation = manager.progress
    #expect(fractionAfterDeallocation == RunProgress(completed: 50, of: 100))

    manager.complete(count: 50)
    #expect(manager.progress == RunProgress(completed: 100, of: 100))
  }

  // MARK: - Thread safety

  // Ported from `concurrentBasicPropertiesAccess`.
  @Test func concurrentBasicPropertiesAccess() async {
    let manager = TaskRunner.Reporter(totalCount: 10)
    manager.complete(count: 5)
    let readings = await withTaskGroup(of: [RunProgress].self) { group in
      for _ in 1...5 {
        group.addTask { await Self.read(manager, times: 10) }
      }
      var readings: [RunProgress] = []
      for await batch in group { readings += batch }
      return readings
    }
    #expect(readings.count == 50)
    #expect(readings.allSatisfy { $0 == RunProgress(completed: 5, of: 10) })
  }

  // Ported from `concurrentMultipleChildrenUpdatesAndParentReads`.
  @Test func concurrentMultipleChildrenUpdatesAndParentReads() async {
    let manager = TaskRunner.Reporter(totalCount: 100)
    let child1 = manager.subprogress(assigningCount: 30).start(totalCount: 10)
    let child2 = manager.subprogress(assigningCount: 40).start(totalCount: 8)
    let child3 = manager.subprogress(assigningCount: 30).start(totalCount: 6)
    let readings = await withTaskGroup(of: [RunProgress].self) { group in
      for (child, units) in [(child1, 10), (child2, 8), (child3, 6)] {
        group.addTask {
          for _ in 1...units { child.complete(count: 1) }
          return []
        }
      }
      group.addTask { await Self.read(manager, times: 50) }
      group.addTask {
        for _ in 1...30 {
          _ = child1.progress
          _ = child2.progress
          _ = child3.progress
        }
        return []
      }
      var readings: [RunProgress] = []
      for await batch in group { readings += batch }
      return readings
    }
    #expect(child1.progress == RunProgress(completed: 10, of: 10))
    #expect(child2.progress == RunProgress(completed: 8, of: 8))
    #expect(child3.progress == RunProgress(completed: 6, of: 6))
    #expect(manager.progress == RunProgress(completed: 100, of: 100))
    #expect(Self.neverGoBack(readings))
    #expect(Self.areClamped(readings, total: 100))
  }

  // Ported from `concurrentSingleChildUpdatesAndParentReads`; the original's 1 ms sleeps every 10
  // units are yields here, so that nothing depends on time.
  @Test func concurrentSingleChildUpdatesAndParentReads() async {
    let manager = TaskRunner.Reporter(totalCount: 50)
    let child = manager.subprogress(assigningCount: 50).start(totalCount: 100)
    let readings = await withTaskGroup(of: [RunProgress].self) { group in
      group.addTask {
        for index in 1...100 {
          child.complete(count: 1)
          if index % 10 == 0 { await Task.yield() }
        }
        return []
      }
      group.addTask { await Self.read(manager, times: 200) }
      group.addTask { await Self.read(child, times: 150) }
      var readings: [RunProgress] = []
      for await batch in group where batch.first?.totalCount == 50 {
        readings += batch
      }
      return readings
    }
    #expect(child.progress == RunProgress(completed: 100, of: 100))
    #expect(manager.progress == RunProgress(completed: 50, of: 50))
    #expect(readings.count == 200)
    #expect(Self.neverGoBack(readings))
    #expect(Self.areClamped(readings, total: 50))
  }

  // Ported from `concurrentGrandchildrenUpdates`: each child finishes by its own units plus its
  // grandchild's share (5 + 5 of 10, 4 + 4 of 8, 3 + 3 of 6).
  @Test func concurrentGrandchildrenUpdates() async {
    let parent = TaskRunner.Reporter(totalCount: 60)
    let child1 = parent.subprogress(assigningCount: 20).start(totalCount: 10)
    let child2 = parent.subprogress(assigningCount: 20).start(totalCount: 8)
    let child3 = parent.subprogress(assigningCount: 20).start(totalCount: 6)
    let grandchild1 = child1.subprogress(assigningCount: 5).start(totalCount: 4)
    let grandchild2 = child2.subprogress(assigningCount: 4).start(totalCount: 3)
    let grandchild3 = child3.subprogress(assigningCount: 3).start(totalCount: 2)
    let work = [
      (grandchild1, 4), (grandchild2, 3), (grandchild3, 2), (child1, 5), (child2, 4), (child3, 3),
    ]
    let readings = await withTaskGroup(of: [RunProgress].self) { group in
      for (reporter, units) in work {
        group.addTask {
          for _ in 1...units { reporter.complete(count: 1) }
          return []
        }
      }
      group.addTask { await Self.read(parent, times: 100) }
      var readings: [RunProgress] = []
      for await batch in group { readings += batch }
      return readings
    }
    #expect(grandchild1.progress == RunProgress(completed: 4, of: 4))
    #expect(grandchild2.progress == RunProgress(completed: 3, of: 3))
    #expect(grandchild3.progress == RunProgress(completed: 2, of: 2))
    #expect(child1.progress == RunProgress(completed: 10, of: 10))
    #expect(child2.progress == RunProgress(completed: 8, of: 8))
    #expect(child3.progress == RunProgress(completed: 6, of: 6))
    #expect(parent.progress == RunProgress(completed: 60, of: 60))
    #expect(Self.neverGoBack(readings))
  }

  // Ported from `concurrentReadDuringIndeterminateToDeterminateTransition`; the original's 1 ms
  // sleep before the total is set is a yield here.
  @Test func concurrentReadDuringIndeterminateToDeterminateTransition() async {
    let manager = TaskRunner.Reporter(totalCount: nil)
    await withTaskGroup(of: Void.self) { group in
      group.addTask { _ = await Self.read(manager, times: 50) }
      group.addTask {
        for _ in 1...10 { manager.complete(count: 1) }
      }
      group.addTask {
        await Task.yield()
        manager.report(totalCount: 20)
        _ = await Self.read(manager, times: 30)
      }
    }
    #expect(manager.progress == RunProgress(completed: 10, of: 20))
    #expect(!manager.progress.isIndeterminate)
  }

  // Ported from `concurrentReadDuringExcessiveCompletion`: 20 completes on a total of 5 while
  // another task reads. ProgressManager ends at 20 of 5, a fraction of 4.0; ours at 5 of 5 and 1,
  // and no reading is ever outside the total.
  @Test func concurrentReadDuringExcessiveCompletion() async {
    let manager = TaskRunner.Reporter(totalCount: 5)
    let readings = await withTaskGroup(of: [RunProgress].self) { group in
      group.addTask {
        for _ in 1...20 {
          manager.complete(count: 1)
          await Task.yield()
        }
        return []
      }
      group.addTask { await Self.read(manager, times: 100) }
      var readings: [RunProgress] = []
      for await batch in group { readings += batch }
      return readings
    }
    #expect(readings.count == 100)
    #expect(Self.areClamped(readings, total: 5))
    #expect(Self.neverGoBack(readings))
    #expect(manager.progress == RunProgress(completed: 5, of: 5))
    #expect(manager.progress.fractionCompleted == 1)
    // The count past the total was kept.
    manager.report(totalCount: 40)
    #expect(manager.progress == RunProgress(completed: 20, of: 40))
  }

  // The same 20 completes, each from a task of its own.
  @Test func twentyConcurrentCompletes() async {
    let manager = TaskRunner.Reporter(totalCount: 5)
    await withTaskGroup(of: Void.self) { group in
      for _ in 1...20 {
        group.addTask { manager.complete(count: 1) }
      }
    }
    #expect(manager.progress == RunProgress(completed: 5, of: 5))
    manager.report(totalCount: 20)
    #expect(manager.progress == RunProgress(completed: 20, of: 20))
  }

  // Ported from `concurrentChildrenDeinitializationAndParentReads`: 10 tasks each make 5
  // short-lived children of 2 units that complete 2 or 3 of 3 and go away; the original's sleeps
  // are yields here.
  @Test func concurrentChildrenDeinitializationAndParentReads() async {
    let manager = TaskRunner.Reporter(totalCount: 100)
    let readings = await withTaskGroup(of: [RunProgress].self) { group in
      for _ in 1...10 {
        group.addTask {
          for index in 1...5 {
            do {
              let child = manager.subprogress(assigningCount: 2).start(totalCount: 3)
              child.complete(count: 2 + index % 2)
            }
            await Task.yield()
          }
          return []
        }
      }
      group.addTask { await Self.read(manager, times: 300) }
      var readings: [RunProgress] = []
      for await batch in group { readings += batch }
      return readings
    }
    #expect(readings.count == 300)
    #expect(Self.neverGoBack(readings))
    #expect(Self.areClamped(readings, total: 100))
    #expect(manager.progress == RunProgress(completed: 100, of: 100))
    #expect(manager.progress.fractionCompleted == 1)
  }

  // Ported from `concurrentSubprogressCreation`: 20 tasks each make 10 short-lived children of 5
  // units (200 children), which sum to 1000.
  @Test func concurrentSubprogressCreation() async {
    let manager = TaskRunner.Reporter(totalCount: 1000)
    await withTaskGroup(of: Void.self) { group in
      for _ in 1...20 {
        group.addTask {
          for _ in 1...10 {
            let child = manager.subprogress(assigningCount: 5).start(totalCount: 4)
            child.complete(count: 4)
            #expect(child.progress == RunProgress(completed: 4, of: 4))
            let reading = manager.progress
            #expect(reading.completedCount.map { $0 >= 5 && $0 <= 1000 } == true)
            await Task.yield()
          }
        }
      }
    }
    #expect(manager.progress == RunProgress(completed: 1000, of: 1000))
  }
}
