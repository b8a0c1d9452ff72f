import Foundation
import TaskProgress
import TaskProgressFoundation
import Testing

/// The scenarios of swift-corelibs-foundation's `TestProgress`, with their numbers, read through
/// the follow bridge: a reporter that follows the root of each `Progress` tree shows the tree's
/// `fractionCompleted`, children under way included, and never NaN.
///
/// Each test builds the tree as the original does and checks the mirrored fraction wherever the
/// original checks the parent's; the original's tolerance is 0.01, and where it compares exactly,
/// so does the port.
@Suite("Following a Progress: corelibs scenarios")
struct FollowingProgressScenarioTests {
  /// A value within the original tests' tolerance of `expected`.
  private func expectFraction(
    _ mirror: Mirror, _ expected: Double, tolerance: Double = 0.01,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let fraction = mirror.fraction
    #expect(fraction != nil, "indeterminate, expected \(expected)", sourceLocation: sourceLocation)
    if let fraction {
      #expect(
        abs(fraction - expected) <= tolerance, "\(fraction) is not \(expected)",
        sourceLocation: sourceLocation)
    }
  }

  @Test func aChildGivenTenOfAHundredAndHalfDoneShowsFivePercent() {
    let parent = rootProgress(total: 100)
    let mirror = Mirror(following: parent)
    parent.completedUnitCount = 50
    expectFraction(mirror, 0.5)
    parent.completedUnitCount = 0

    parent.becomeCurrent(withPendingUnitCount: 10)
    let child = Progress(totalUnitCount: 100)
    parent.resignCurrent()
    child.completedUnitCount = 50
    expectFraction(mirror, 0.05)
    // Its completed count does not count the unfinished child; the fraction does.
    #expect(mirror.progress.completedCount == 0)
    #expect(mirror.progress.totalCount == 100)

    parent.totalUnitCount = 200
    expectFraction(mirror, 0.5 * (10.0 / 200.0))
    child.totalUnitCount = 200
    expectFraction(mirror, (50.0 / 200.0) * (10.0 / 200))
    child.totalUnitCount = 100
    expectFraction(mirror, (50.0 / 100.0) * (10.0 / 200))
  }

  @Test func aSecondImplicitChildGetsNoneOfThePendingUnits() {
    let progress = rootProgress(total: 100)
    let mirror = Mirror(following: progress)
    progress.becomeCurrent(withPendingUnitCount: 100)
    let first = Progress(totalUnitCount: 5)
    let second = Progress(totalUnitCount: 5)
    progress.resignCurrent()
    expectFraction(mirror, 0)
    second.completedUnitCount = 5
    expectFraction(mirror, 0)
    first.completedUnitCount = 5
    expectFraction(mirror, 1)
    #expect(mirror.progress == RunProgress(completed: 100, of: 100))
  }

  @Test func anIndeterminateChildContributesNothing() {
    let parent = rootProgress(total: 1000)
    let mirror = Mirror(following: parent)
    parent.becomeCurrent(withPendingUnitCount: 100)
    let child = Progress(totalUnitCount: 10)
    parent.resignCurrent()

    child.completedUnitCount = 5
    expectFraction(mirror, 0.05)
    child.completedUnitCount = -1
    expectFraction(mirror, 0)
    child.completedUnitCount = 10
    expectFraction(mirror, 0.1)
    child.completedUnitCount = -1
    expectFraction(mirror, 0)
  }

  @Test func oneOfTwoChildrenTurningIndeterminateHalvesTheFraction() {
    let parent = rootProgress(total: 100)
    let mirror = Mirror(following: parent)
    parent.becomeCurrent(withPendingUnitCount: 50)
    let first = Progress(totalUnitCount: 2)
    parent.resignCurrent()
    parent.becomeCurrent(withPendingUnitCount: 50)
    let second = Progress(totalUnitCount: 2)
    parent.resignCurrent()
    expectFraction(mirror, 0)

    first.completedUnitCount = 1
    second.completedUnitCount = 1
    expectFraction(mirror, 0.5)
    first.completedUnitCount = -1
    expectFraction(mirror, 0.25)
    first.completedUnitCount = 1
    expectFraction(mirror, 0.5)
  }

  @Test func finishedChildrenFinishTheirParent() {
    let root = rootProgress(total: 2)
    let mirror = Mirror(following: root)
    let first = rootProgress(total: 1)
    let second = rootProgress(total: 1)
    root.addChild(first, withPendingUnitCount: 1)
    root.addChild(second, withPendingUnitCount: 1)
    first.completedUnitCount = 1
    expectFraction(mirror, 0.5)
    second.completedUnitCount = 1
    expectFraction(mirror, 1)
    #expect(mirror.progress == RunProgress(completed: 2, of: 2))
  }

  @Test func explicitChildrenAddTheirShares() {
    let parent = rootProgress(total: 100)
    let mirror = Mirror(following: parent)
    #expect(mirror.fraction == 0)
    let first = rootProgress(total: 100)
    parent.addChild(first, withPendingUnitCount: 10)
    first.completedUnitCount = 50
    #expect(mirror.fraction == 0.05)
    first.completedUnitCount = 100
    #expect(mirror.fraction == 0.10)
    let second = rootProgress(total: 100)
    parent.addChild(second, withPendingUnitCount: 90)
    second.completedUnitCount = 50
    #expect(mirror.fraction == 0.10 + 0.9 / 2.0)
    #expect(mirror.progress.completedCount == 10)
  }

  @Test func aChildAddedAlreadyUnderWayCountsAtOnce() {
    let parent = rootProgress(total: 2)
    let mirror = Mirror(following: parent)
    let first = rootProgress(total: 100)
    parent.addChild(first, withPendingUnitCount: 1)
    first.completedUnitCount = 50
    #expect(mirror.fraction == 0.25)
    let second = rootProgress(total: 100)
    second.completedUnitCount = 50
    parent.addChild(second, withPendingUnitCount: 1)
    #expect(mirror.fraction == 0.50)
  }

  @Test func aChildAddedAlreadyCompleteCountsAtOnce() {
    let parent = rootProgress(total: 2)
    let mirror = Mirror(following: parent)
    let child = rootProgress(total: 100)
    child.completedUnitCount = 100
    parent.addChild(child, withPendingUnitCount: 1)
    #expect(mirror.fraction == 0.5)
  }

  @Test(arguments: [true, false])
  func aGrandchildShowsThroughItsParent(explicit: Bool) {
    let parent = rootProgress(total: 100)
    let mirror = Mirror(following: parent)
    let child: Progress
    let grandchild: Progress
    if explicit {
      child = rootProgress(total: 100)
      parent.addChild(child, withPendingUnitCount: 100)
      grandchild = rootProgress(total: 100)
      child.addChild(grandchild, withPendingUnitCount: 100)
    } else {
      parent.becomeCurrent(withPendingUnitCount: 100)
      child = Progress(totalUnitCount: 100)
      parent.resignCurrent()
      child.becomeCurrent(withPendingUnitCount: 100)
      grandchild = Progress(totalUnitCount: 100)
      child.resignCurrent()
    }
    #expect(mirror.fraction == 0)
    grandchild.completedUnitCount = 50
    #expect(mirror.fraction == 0.50)
  }

  @Test func mixedExplicitAndImplicitChildrenReachOneSixthTwoSixthsThreeSixthsThenOne() {
    let parent = rootProgress(total: 3)
    let mirror = Mirror(following: parent)
    let first = rootProgress(total: 10)
    let second = rootProgress(total: 10)
    parent.addChild(first, withPendingUnitCount: 1)
    parent.addChild(second, withPendingUnitCount: 1)

    first.completedUnitCount = 5
    expectFraction(mirror, 1.0 / 6.0)
    second.completedUnitCount = 5
    expectFraction(mirror, 2.0 / 6.0)

    parent.becomeCurrent(withPendingUnitCount: 1)
    let third = Progress(totalUnitCount: 10)
    parent.resignCurrent()
    expectFraction(mirror, 2.0 / 6.0)
    third.completedUnitCount = 5
    expectFraction(mirror, 3.0 / 6.0)

    third.completedUnitCount = 10
    expectFraction(mirror, 2.0 / 6.0 + 1.0 / 3.0)
    #expect(mirror.progress.completedCount == 1)
    second.completedUnitCount = 10
    expectFraction(mirror, 1.0 / 6.0 + 2.0 / 3.0)
    first.completedUnitCount = 10
    expectFraction(mirror, 1)
    #expect(mirror.progress == RunProgress(completed: 3, of: 3))
  }

  /// The original's table of `(completed, total)` pairs, with whether Foundation calls each
  /// indeterminate and its fraction: the mirror is indeterminate exactly when Foundation says
  /// so, shows Foundation's fraction otherwise, and is never NaN.
  @Test(
    arguments: [
      (-1, -1, true, 0.0), (0, -1, true, 0.0), (1, -1, true, 0.0),
      (-1, 0, true, 0.0), (0, 0, true, 0.0), (1, 0, false, 1.0),
      (-1, 1, true, 0.0), (0, 1, false, 0.0), (1, 1, false, 1.0),
    ] as [(Int64, Int64, Bool, Double)])
  func theIndeterminateTableNeverYieldsNaN(
    completed: Int64, total: Int64, indeterminate: Bool, fraction: Double
  ) {
    // One progress through every pair, in order, as the original does, and a fresh one each.
    let progress = rootProgress(total: 0)
    progress.completedUnitCount = completed
    progress.totalUnitCount = total
    #expect(progress.isIndeterminate == indeterminate)
    let mirror = Mirror(following: progress)
    #expect(mirror.progress.isIndeterminate == indeterminate)
    if !indeterminate {
      #expect(mirror.fraction == fraction)
    }
    #expect(mirror.fraction.map { !$0.isNaN } ?? true)
    if indeterminate {
      // A count of 0 or below says nothing, and shows no count.
      #expect(mirror.progress.completedCount == (completed > 0 ? Int(completed) : nil))
    }
  }

  @Test func theWholeTableInSequenceOnOneProgressNeverYieldsNaN() {
    let table: [(Int64, Int64, Bool, Double)] = [
      (-1, -1, true, 0.0), (0, -1, true, 0.0), (1, -1, true, 0.0),
      (-1, 0, true, 0.0), (0, 0, true, 0.0), (1, 0, false, 1.0),
      (-1, 1, true, 0.0), (0, 1, false, 0.0), (1, 1, false, 1.0),
    ]
    let progress = Progress(parent: nil, userInfo: nil)
    let mirror = Mirror(following: progress)
    var seen: [Double?] = []
    for (completed, total, _, _) in table {
      progress.completedUnitCount = completed
      progress.totalUnitCount = total
      seen.append(mirror.fraction)
    }
    // Following ends when the progress finishes: at (1, 0), which is complete.
    #expect(seen == [nil, nil, nil, nil, nil, 1.0, 1.0, 1.0, 1.0])
  }
}
