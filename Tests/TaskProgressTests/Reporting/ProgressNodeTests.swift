import Foundation
import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// What a frame reads of a tree: the nodes a report marked, and the last reading of the rest.
@Suite("Progress nodes read by frames")
struct ProgressNodeTests {
  typealias Mark = ProgressNode.ChangeMark

  /// The marks of `nodes`, in order.
  static func marks(_ nodes: [ProgressNode]) -> [UInt8] {
    nodes.map { $0.changeMark.load(ordering: .relaxed) }
  }

  @Test func aReportMarksItsPathToTheRootAndTwoFramesClearIt() {
    let root = TaskRunner.Reporter(totalCount: 2)
    let left = root.subprogress(assigningCount: 1).start(totalCount: 10)
    let right = root.subprogress(assigningCount: 1).start(totalCount: 10)
    let nodes = [root.node, left.node, right.node]
    #expect(Self.marks(nodes) == [Mark.changed, Mark.changed, Mark.changed])

    var readings = [root.node.readChanges()]
    var marks = [Self.marks(nodes)]
    readings.append(root.node.readChanges())
    marks.append(Self.marks(nodes))
    left.report(completed: 5, of: 10)
    marks.append(Self.marks(nodes))
    readings.append(root.node.readChanges())
    marks.append(Self.marks(nodes))
    readings.append(root.node.readChanges())
    marks.append(Self.marks(nodes))

    #expect(
      marks == [
        [Mark.readOnce, Mark.readOnce, Mark.readOnce],
        [Mark.clean, Mark.clean, Mark.clean],
        // The report marks its own node and the root, not its sibling.
        [Mark.changed, Mark.changed, Mark.clean],
        [Mark.readOnce, Mark.readOnce, Mark.clean],
        [Mark.clean, Mark.clean, Mark.clean],
      ])
    #expect(
      readings == [
        RunProgress(completed: 0, of: 2), RunProgress(completed: 0, of: 2),
        RunProgress(fractionCompleted: 0.25, completed: 0, of: 2),
        RunProgress(fractionCompleted: 0.25, completed: 0, of: 2),
      ])
  }

  @Test func aSecondReportBeforeTheNextFrameLeavesTheMarksAsTheFirstSetThem() {
    let root = TaskRunner.Reporter(totalCount: 1)
    let child = root.subprogress(assigningCount: 1).start(totalCount: 4)
    _ = root.node.readChanges()
    _ = root.node.readChanges()
    child.complete(count: 1)
    let afterFirst = Self.marks([root.node, child.node])
    child.complete(count: 1)
    #expect(afterFirst == [Mark.changed, Mark.changed])
    #expect(Self.marks([root.node, child.node]) == afterFirst)
    #expect(root.node.readChanges() == RunProgress(fractionCompleted: 0.5, completed: 0, of: 1))
  }

  @Test func everyKindOfChangeReachesTheNextFrame() {
    let root = TaskRunner.Reporter()
    var readings: [RunProgress?] = []
    func frame() {
      let reading = root.node.readChanges()
      #expect(reading == root.node.read(), "a frame reads what a full reading does")
      readings.append(reading)
      _ = root.node.readChanges()  // the second frame, which leaves the tree clean
    }
    let stage = root.subprogress(assigningCount: 2)  // an implicit total of 2
    frame()
    let child = stage.start(totalCount: 4)
    child.report(fractionCompleted: 0.5)
    frame()
    child.reportIndeterminate(completed: nil)
    frame()
    child.report(totalCount: 4)  // counts again: 0 of 4
    child.complete(count: 2)
    frame()
    let grandchild = child.subprogress(assigningCount: 2).start(totalCount: 2)
    grandchild.complete(count: 1)
    frame()
    grandchild.complete(count: 1)  // finishes, and hands its 2 units to the child: 4 of 4
    frame()
    root.report(totalCount: 4)
    frame()
    _ = root.subprogress(assigningCount: 2)  // dropped unstarted: its 2 units are done
    frame()
    #expect(
      readings == [
        RunProgress(completed: 0, of: 2),
        RunProgress(fractionCompleted: 0.5, completed: 0, of: 2),
        RunProgress(completed: 0, of: 2),
        RunProgress(fractionCompleted: 0.5, completed: 0, of: 2),
        RunProgress(fractionCompleted: 0.75, completed: 0, of: 2),
        // The child finished when its count reached its total: 2 of the root's 2.
        RunProgress(completed: 2, of: 2),
        RunProgress(completed: 2, of: 4),
        RunProgress(completed: 4, of: 4),
      ])
  }

  @Test func aFrameKeepsTheLastReadingOfChildrenThatDidNotChange() {
    let root = TaskRunner.Reporter(totalCount: 100)
    let children = (0..<100).map { _ in
      root.subprogress(assigningCount: 1).start(totalCount: 2)
    }
    for child in children {
      child.complete(count: 1)
    }
    _ = root.node.readChanges()
    _ = root.node.readChanges()
    children[7].complete(count: 1)  // finishes
    children[42].report(completed: 0, of: 2)
    let changed = Set([7, 42])
    let marked = children.indices.filter {
      children[$0].node.changeMark.load(ordering: .relaxed) != Mark.clean
    }
    #expect(Set(marked) == changed)
    let frame = root.node.readChanges()
    #expect(frame == root.node.read())
    #expect(frame == RunProgress(fractionCompleted: 0.5, completed: 1, of: 100))
  }

  @Test func childrenAcrossSeveralChunksAreReadAndPrunedInOrder() {
    let size = 2 * ProgressNode.ChildList.chunkSize + 500
    let root = TaskRunner.Reporter(totalCount: size)
    let children = (0..<size).map { _ in
      root.subprogress(assigningCount: 1).start(totalCount: 4)
    }
    for (index, child) in children.enumerated() {
      // Every third one finishes; the others are a quarter done.
      child.complete(count: index % 3 == 0 ? 4 : 1)
    }
    let finished = (size + 2) / 3
    let expected = RunProgress(
      fractionCompleted: (Double(finished) + Double(size - finished) * 0.25) / Double(size),
      completed: finished, of: size)
    let frames = [root.node.readChanges(), root.node.readChanges()]
    // The frames passed the finished children and dropped them, keeping the order of the rest.
    let kept = root.node.shared.withLock { $0.children.chunks.flatMap { $0 } }
    #expect(frames == [expected, expected])
    #expect(root.node.read() == expected)
    #expect(
      kept.map(ObjectIdentifier.init)
        == children.enumerated().filter { $0.offset % 3 != 0 }
        .map { ObjectIdentifier($0.element.node) })
    #expect(root.node.shared.withLock { $0.children.count } == size - finished)
  }

  @Test func aFrameThatGaveUpReadsAgainOnTheNext() {
    let root = TaskRunner.Reporter(totalCount: 2)
    let child = root.subprogress(assigningCount: 2).start(totalCount: 4)
    child.complete(count: 1)
    _ = root.node.readChanges()
    _ = root.node.readChanges()
    // A hand-over left open, as if a child were finishing on another thread at this moment:
    // no reading of the node holds until it closes.
    child.node.version.wrappingAdd(ProgressWord.HandOver.opening, ordering: .relaxed)
    child.node.markChanged()
    let duringHandOver = root.node.readChanges()
    let marksAfterGivingUp = Self.marks([root.node, child.node])
    child.node.version.wrappingAdd(ProgressWord.HandOver.closing, ordering: .relaxed)
    #expect(duringHandOver == nil)
    #expect(marksAfterGivingUp == [Mark.changed, Mark.changed])
    #expect(root.node.readChanges() == RunProgress(fractionCompleted: 0.25, completed: 0, of: 2))
  }

  @Test func framesOnOneThreadAndReportsOnOthersEndWithTheLastReports() async {
    // Writers on threads of their own report while frames read; once they are done, the next
    // two frames show what they left, and no report is lost to a frame that read beside it.
    let root = TaskRunner.Reporter(totalCount: 8)
    let leaves = (0..<8).map { _ in root.subprogress(assigningCount: 1).start(totalCount: 1000) }
    let writersDone = Latch()
    let remaining = Locked(leaves.count)
    for (index, leaf) in leaves.enumerated() {
      Thread {
        for step in 1...999 {
          leaf.report(completed: step, of: 1000)
          if step % 100 == index {
            usleep(50)
          }
        }
        let last = remaining.withLock {
          $0 -= 1
          return $0 == 0
        }
        if last { writersDone.open() }
      }.start()
    }
    let frames = await OffThePoolFrames.read(root.node, until: writersDone)
    #expect(frames.finished, "the writers to finish, within 5 s")
    #expect(frames.frames > 0)
    let last = [root.node.readChanges(), root.node.readChanges()]
    for frame in last {
      #expect(frame?.completedCount == 0)
      #expect(frame?.totalCount == 8)
      #expect(frame?.fractionCompleted.map { abs($0 - 0.999) < 1e-12 } == true, "\(frame as Any)")
    }
  }
}

/// Frames read on a thread of their own until a latch opens: none of it holds a thread of the
/// pool.
enum OffThePoolFrames {
  static func read(
    _ node: ProgressNode, until done: Latch
  ) async -> (
    frames: Int, finished: Bool
  ) {
    await withCheckedContinuation { continuation in
      Thread {
        let deadline = Date().addingTimeInterval(5)
        var frames = 0
        while !done.isOpen, Date() < deadline {
          _ = node.readChanges()
          frames += 1
        }
        continuation.resume(returning: (frames, done.isOpen))
      }.start()
    }
  }
}
