import Foundation
import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressFoundation

/// The values a published progress shows for a run's progress, and the order in which they are
/// set, checked against Foundation's own `Progress` under a parent.
@Suite("Published values")
struct PublishedValuesTests {
  @Test(
    arguments: [
      (RunProgress(completed: 29, of: 100), PublishedValues(completed: 29, total: 100)),
      // Complete counts and a fraction of 1 stay short of finished until the run finishes.
      (RunProgress(completed: 0, of: 0), PublishedValues(completed: 9_999, total: 10_000)),
      (RunProgress(completed: 8, of: 8), PublishedValues(completed: 9_999, total: 10_000)),
      (RunProgress(completed: 3, of: 3), PublishedValues(completed: 10_001, total: 10_002)),
      (
        RunProgress(completed: 20_000, of: 20_000),
        PublishedValues(completed: 19_999, total: 20_000)
      ),
      (RunProgress(completed: .max, of: .max), PublishedValues(completed: .max - 1, total: .max)),
      (RunProgress(fractionCompleted: 0.29), PublishedValues(completed: 2_900, total: 10_000)),
      (RunProgress(fractionCompleted: 1), PublishedValues(completed: 9_999, total: 10_000)),
      (RunProgress.zero, PublishedValues(completed: 0, total: 10_000)),
      (.indeterminate(completed: 5), PublishedValues(completed: 5, total: -1)),
      (.indeterminate(), PublishedValues(completed: 0, total: -1)),
      // Beyond its counts: in a whole fraction of the run's units, or in them from 10,000 up.
      (
        RunProgress(fractionCompleted: 0.875, completed: 3, of: 4),
        PublishedValues(completed: 8_750, total: 10_000)
      ),
      (
        RunProgress(fractionCompleted: 0.5, completed: 1, of: 3),
        PublishedValues(completed: 5_001, total: 10_002)
      ),
      (
        RunProgress(fractionCompleted: 0.25, completed: 1, of: 20_000),
        PublishedValues(completed: 5_000, total: 20_000)
      ),
      // Children that promise more than the total: all but finished, since the counts are not.
      (
        RunProgress(fractionCompleted: 1, completed: 2, of: 3),
        PublishedValues(completed: 10_001, total: 10_002)
      ),
    ])
  func aRunsProgressIsPublishedAs(progress: RunProgress, expected: PublishedValues) {
    #expect(PublishedValues(progress) == expected)
  }

  @Test func aFinishedRunCountsToItsLastTotal() {
    #expect(PublishedValues.finished(total: 8) == PublishedValues(completed: 8, total: 8))
    #expect(PublishedValues.finished(total: nil) == PublishedValues(completed: 1, total: 1))
    #expect(PublishedValues.finished(total: 0) == PublishedValues(completed: 1, total: 1))
  }

  /// Near `Int.max`, a fraction times the total is beyond what an `Int64` holds: the units stay
  /// one short of the total instead of trapping.
  @Test func aFractionOfTheLargestTotalNeverTraps() {
    let progress = RunProgress(fractionCompleted: 1 - 1e-13, completed: .max - 1, of: .max)
    #expect(PublishedValues(progress) == PublishedValues(completed: .max - 1, total: .max))
  }

  @Test func aCountAloneIsOneStep() {
    let from = PublishedValues(completed: 3, total: 10)
    #expect(from.steps(to: PublishedValues(completed: 4, total: 10)) == [.completed(4)])
    #expect(from.steps(to: from) == [])
  }

  @Test func aNewTotalIsSetByWayOfMinusOne() {
    let from = PublishedValues(completed: 50, total: 100)
    #expect(
      from.steps(to: PublishedValues(completed: 150, total: 300))
        == [.total(-1), .completed(150), .total(300)])
    #expect(
      from.steps(to: PublishedValues(completed: 10, total: 20))
        == [.total(-1), .completed(10), .total(20)])
    #expect(
      from.steps(to: PublishedValues(completed: 50, total: 20))
        == [.total(-1), .total(20)])
  }

  @Test func indeterminateValuesNeedNoDetour() {
    let indeterminate = PublishedValues(completed: 5, total: -1)
    #expect(
      indeterminate.steps(to: PublishedValues(completed: 3, total: 4))
        == [.completed(3), .total(4)])
    #expect(
      PublishedValues(completed: 3, total: 4).steps(to: indeterminate)
        == [.total(-1), .completed(5)])
  }

  /// Random runs of values, set on a real `Progress` under a real parent, one property at a
  /// time.
  ///
  /// Every value in between keeps the parent's fraction at or below its value before and
  /// after, the progress finishes only at the last step of a finished target, and the parent
  /// always ends at the progress's share. Totals up to 2^62 and thousands of total changes keep
  /// corelibs' fraction bookkeeping from overflowing, which would trap.
  @Test(arguments: [1, 2, 3, 4])
  func noValueInBetweenSpikesAParent(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    let parent = Progress(parent: nil, userInfo: nil)
    parent.totalUnitCount = 4
    let writer = PublishedProgressWriter(Progress(parent: nil, userInfo: nil))
    parent.addChild(writer.progress, withPendingUnitCount: 2)
    var between: [Double] = []
    var finishedBetween = false
    writer.didSet = { values in
      between.append(parent.fractionCompleted)
      if writer.progress.isFinished { finishedBetween = true }
    }
    for index in 0..<2_000 {
      let target = PublishedValuesTests.randomValues(&random, finishing: index == 1_999)
      let before = parent.fractionCompleted
      between.removeAll()
      finishedBetween = false
      writer.show(target)
      let after = parent.fractionCompleted
      #expect(between.allSatisfy { $0 <= max(before, after) + 1e-12 }, "\(index): \(target)")
      #expect(!finishedBetween || target.isFinished, "\(index): \(target)")
      #expect(writer.values == target)
      let share = target.total > 0 ? Double(target.completed) / Double(target.total) : 0
      #expect(abs(after - share / 2) < 1e-9, "\(index): \(target) gives \(after)")
    }
    #expect(parent.completedUnitCount == 2)
    #expect(parent.fractionCompleted == 0.5)
  }

  /// Values of every kind: small and huge totals, indeterminate, and complete when `finishing`.
  private static func randomValues(_ random: inout SplitMix64, finishing: Bool) -> PublishedValues {
    let magnitude = random.next() % 4
    let total: Int64 =
      switch magnitude {
      case 0: Int64(random.next() % 10) + 1
      case 1: Int64(random.next() % 100_000) + 1
      case 2: Int64(random.next() % (1 << 62)) + 1
      default: -1
      }
    if finishing {
      return PublishedValues(completed: max(total, 1), total: max(total, 1))
    }
    guard total > 0 else {
      return PublishedValues(completed: Int64(random.next() % 1000), total: -1)
    }
    // Below the total: a run that is not finished.
    return PublishedValues(completed: Int64(random.next() % UInt64(total)), total: total)
  }
}

extension PublishedValues {
  /// Whether Foundation sees these values as finished: a count that reached a positive total.
  fileprivate var isFinished: Bool {
    total > 0 && completed >= total
  }
}
