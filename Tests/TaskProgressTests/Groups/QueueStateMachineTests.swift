import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// The rules of a group's queue, without a group, a runner or a main actor.
@Suite("Queue state machine")
struct QueueStateMachineTests {
  @Test func startsUpToTheLimitAndTheNextItemAsOneEnds() {
    var machine = QueueStateMachine(count: 5, maxConcurrency: 2, stopsOnFailure: false)
    let r1 = machine.itemsToStart()
    #expect(r1 == [0, 1])
    let r2 = machine.itemsToStart()
    #expect(r2 == [])
    guard case .start(let next)? = machine.itemEnded(1, as: .finished) else {
      Issue.record("no items to start")
      return
    }
    #expect(next == [2])
    let r3 = machine.itemEnded(1, as: .finished)
    #expect(r3 == nil, "an item ends once")
    #expect(machine.outcomes == nil)
  }

  @Test func aPausedQueueStartsNothingUntilResumed() {
    var machine = QueueStateMachine(count: 3, maxConcurrency: 1, stopsOnFailure: false)
    let r4 = machine.itemsToStart()
    #expect(r4 == [0])
    machine.pause()
    guard case .start(let next)? = machine.itemEnded(0, as: .finished) else {
      Issue.record("no action")
      return
    }
    #expect(next == [])
    #expect(!machine.isOver)
    let r5 = machine.resume()
    #expect(r5 == [1])
  }

  @Test func aCancelEndsTheWaitingItemsAndListsThoseUnderWay() {
    var machine = QueueStateMachine(count: 5, maxConcurrency: 2, stopsOnFailure: false)
    let r6 = machine.itemsToStart()
    #expect(r6 == [0, 1])
    _ = machine.itemEnded(0, as: .finished)
    let r7 = machine.remove(4)
    #expect(r7)
    let stop = machine.cancel()
    #expect(stop?.unstarted == [3])
    #expect(stop?.running == [1, 2])
    let r8 = machine.cancel()
    #expect(r8 == nil)
    let r9 = machine.append(count: 1)
    #expect(r9 == nil)
    let r10 = machine.resume()
    #expect(r10 == [])
    _ = machine.itemEnded(1, as: .cancelled)
    #expect(!machine.isOver)
    _ = machine.itemEnded(2, as: .cancelled)
    let outcomes = machine.finishIfOver()
    #expect(outcomes == [.finished, .cancelled, .cancelled, .cancelled, .cancelled])
  }

  @Test func underStopTheFirstFailureStopsTheQueue() {
    var machine = QueueStateMachine(count: 4, maxConcurrency: 2, stopsOnFailure: true)
    let r11 = machine.itemsToStart()
    #expect(r11 == [0, 1])
    guard case .stop(let stop)? = machine.itemEnded(0, as: .failed(TestError())) else {
      Issue.record("the failure did not stop the queue")
      return
    }
    #expect(stop.unstarted == [2, 3])
    #expect(stop.running == [1])
    #expect(machine.isStopped)
  }

  @Test func underContinueAFailureStartsTheNext() {
    var machine = QueueStateMachine(count: 3, maxConcurrency: 1, stopsOnFailure: false)
    let r12 = machine.itemsToStart()
    #expect(r12 == [0])
    guard case .start(let next)? = machine.itemEnded(0, as: .failed(TestError())) else {
      Issue.record("no action")
      return
    }
    #expect(next == [1])
  }

  @Test func aLimitBelowOneIsOneAndAnEmptyQueueIsOverAtOnce() {
    var machine = QueueStateMachine(count: 0, maxConcurrency: -3, stopsOnFailure: false)
    #expect(machine.maxConcurrency == 1)
    let r13 = machine.itemsToStart()
    #expect(r13 == [])
    #expect(machine.isOver)
    let appended = machine.append(count: 2)
    #expect(appended?.added == 0..<2)
    #expect(appended?.start == [0])
    let r14 = machine.remove(0)
    #expect(!r14, "under way")
    let r15 = machine.remove(1)
    #expect(r15)
    _ = machine.itemEnded(0, as: .finished)
    let outcomes = machine.finishIfOver()
    #expect(outcomes == [.finished, .cancelled])
    let again = machine.finishIfOver()
    #expect(again == nil, "once")
    let late = machine.append(count: 1)
    #expect(late == nil, "a finished queue takes no more items")
  }
}
