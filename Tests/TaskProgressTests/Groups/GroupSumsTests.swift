import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// The sums a group keeps as its members' shares change, checked against the same shares added
/// up afresh.
@Suite("Group sums")
struct GroupSumsTests {
  typealias Share = TaskRunnerGroup.Share

  /// The weighted values, as a group's summary shows them.
  static func values(_ sums: TaskRunnerGroup.GroupSums) -> [Double] {
    [sums.total, sums.completed, sums.left, sums.fractionCompleted, sums.displayedProgress]
  }

  @Test func knownWeightsCountAsGivenAndTheOthersAsTheirMean() {
    let sums = TaskRunnerGroup.GroupSums([
      Share(weight: 100, fraction: 0.5, displayed: 0.25, isOpen: true, done: 0.5),
      Share(weight: 300, fraction: 1, displayed: 1, isOpen: false, done: 1),
      Share(weight: nil, fraction: 0.5, displayed: 0.5, isOpen: true, done: 0.5),
    ])
    // The third counts as 200: total 600, done 50 + 300 + 100, left 50 + 100.
    #expect(Self.values(sums) == [600, 450, 150, 0.75, (25 + 300 + 100) / 600])
    #expect(!sums.isTotalKnown)
    #expect(sums.weight(of: Share(weight: nil)) == 200)
  }

  @Test func weightsThatAddUpToNothingCountEveryMemberOnce() {
    let sums = TaskRunnerGroup.GroupSums([
      Share(weight: 0, fraction: 1, displayed: 1, isOpen: false, done: 1),
      Share(weight: 0, fraction: 0, displayed: 0, isOpen: true, done: 0),
    ])
    #expect(Self.values(sums) == [2, 1, 1, 0.5, 0.5])
    #expect(sums.weight(of: Share(weight: 0)) == 1)
  }

  @Test func noMembersSumToNothing() {
    #expect(Self.values(TaskRunnerGroup.GroupSums()) == [0, 0, 0, 0, 0])
    #expect(TaskRunnerGroup.GroupSums().isTotalKnown)
  }

  @Test func sharesChangedOneAtATimeSumAsTheSameSharesAddedAfresh() {
    var random = SplitMix64(seed: 21)
    let weights: [Double?] = [nil, 0, 1, 3, 1_000, 4_000_000_000]
    func randomShare() -> Share {
      let fraction = Double(random.next() % 1_001) / 1_000
      let isOpen = random.next() % 2 == 0
      return Share(
        weight: weights[Int(random.next() % UInt64(weights.count))], fraction: fraction,
        displayed: Double(random.next() % 1_001) / 1_000, isOpen: isOpen,
        done: isOpen ? fraction : 1)
    }
    var shares = (0..<200).map { _ in randomShare() }
    var kept = TaskRunnerGroup.GroupSums(shares)
    for _ in 0..<5_000 {
      let index = Int(random.next() % UInt64(shares.count))
      let new = randomShare()
      kept.remove(shares[index])
      kept.add(new)
      shares[index] = new
    }
    let afresh = TaskRunnerGroup.GroupSums(shares)
    #expect(kept.count == afresh.count)
    #expect(kept.isTotalKnown == afresh.isTotalKnown)
    for (kept, afresh) in zip(Self.values(kept), Self.values(afresh)) {
      #expect(abs(kept - afresh) <= 1e-6 * max(abs(afresh), 1), "kept \(kept), afresh \(afresh)")
    }
  }
}
