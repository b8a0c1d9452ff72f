import Foundation
import TaskProgress
import TaskProgressTestSupport
import Testing

/// Trees far deeper than a call stack: reading, finishing and releasing walk them with loops, so
/// a chain of 100,000 subprogresses works as one of ten does.
///
/// A recursion overflowed an 8 MiB stack at 15,000 levels. `TASKPROGRESS_DEEP_TREE_DEPTH` sets
/// the depth: `TASKPROGRESS_DEEP_TREE_DEPTH=1000000 swift test --filter DeepTree` takes about 10 s
/// of work in a debug build, too long to hold a thread of the pool that other suites wait on.
@Suite("Reporters in deep trees")
struct DeepTreeTests {
  static let depth =
    ProcessInfo.processInfo.environment["TASKPROGRESS_DEEP_TREE_DEPTH"].flatMap(Int.init)
    ?? TestScale.count(100_000, sanitized: 20_000)

  /// A chain of `depth` reporters under `root`, each the only child of the one before, worth one
  /// unit of a total of 1; the last is the leaf.
  static func chain(under root: TaskRunner.Reporter, depth: Int) -> [TaskRunner.Reporter] {
    var chain = [root]
    chain.reserveCapacity(depth + 1)
    for _ in 0..<depth {
      chain.append(chain[chain.count - 1].subprogress(assigningCount: 1).start(totalCount: 2))
    }
    return chain
  }

  @Test func aDeepChainIsReadFinishedAndReleased() async {
    let readings = await onThreadsOfItsOwn { _ -> [RunProgress] in
      let root = TaskRunner.Reporter(totalCount: 2)
      var chain = Self.chain(under: root, depth: Self.depth)
      // The leaf halfway: the level above it is at a quarter, and each level above that at a
      // half of the one below, down to what a Double holds beside the level's own count.
      chain[chain.count - 1].report(completed: 1, of: 2)
      var readings = [chain[chain.count - 2].progress, root.progress]
      // Every level completes its other unit; the leaf completes last, and its completion goes
      // up the whole chain.
      for reporter in chain.dropLast() {
        reporter.complete(count: 1)
      }
      chain[chain.count - 1].report(completed: 2, of: 2)
      readings.append(root.progress)
      chain.removeAll()
      readings.append(root.progress)
      return readings
    }
    #expect(readings[0].fractionCompleted == 0.25)
    #expect(readings[1].fractionCompleted.map { $0 >= 0 && $0 < 0.25 } == true)
    #expect(
      readings.dropFirst(2) == [RunProgress(completed: 2, of: 2), RunProgress(completed: 2, of: 2)])
  }

  @Test func aDeepChainReleasedUnfinishedCompletesItsRoot() async {
    let readings = await onThreadsOfItsOwn { _ -> [RunProgress] in
      let root = TaskRunner.Reporter(totalCount: 1)
      var chain = Self.chain(under: root, depth: Self.depth)
      let before = root.progress
      // Released from the leaf up: each child's share counts as done when its reporter goes.
      while chain.count > 1 {
        chain.removeLast()
      }
      return [before, root.progress]
    }
    #expect(readings == [RunProgress(completed: 0, of: 1), RunProgress(completed: 1, of: 1)])
  }

  @Test func aRootReleasedLastTakesADeepChainWithIt() async {
    let reading = await onThreadsOfItsOwn { _ -> RunProgress? in
      var root: TaskRunner.Reporter? = TaskRunner.Reporter(totalCount: 1)
      var chain = Self.chain(under: root!, depth: Self.depth)
      // Bytes counted at the leaf: each level then holds its parent's amounts too, a second
      // chain as deep, which must go without one nested deinit per level either.
      chain[chain.count - 1].complete(bytes: 1)
      // Every child's reporter goes first, unread: the nodes are then held by their parents
      // only, and the root's release takes the whole chain, without one nested deinit per level.
      chain.removeAll()
      let reading = root?.progress
      root = nil
      return reading
    }
    #expect(reading == RunProgress(completed: 1, of: 1).withByteCount(completed: 1, total: nil))
  }
}
