import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// The rules of a group's queue, without a group, a runner or a main actor.
@Suite("Queue state machine")
struct QueueStateMachineTests {
  /// Starts every item there is room for, as the queue does; returns them.
  private func startWhatFits(_ machine: inout QueueStateMachine) -> [Int] {
    var started: [Int] = []
    while let index = machine.startNext() {
      started.append(index)
    }
    return started
  }

  @Test func startsUpToTheLimitAndTheNextItemAsOneEnds() {
    var machine = QueueStateMachine(count: 5, maxConcurrency: 2, stopsOnFailure: false)
    let first = startWhatFits(&machine)
    #expect(first == [0, 1])
    let action = machine.itemEnded(1, as: .finished)
    guard case .startNext? = action else {
      Issue.record("\(String(describing: action))")
      return
    }
    let next = startWhatFits(&machine)
    #expect(next == [2])
    let again = machine.itemEnded(1, as: .finished)
    #expect(again == nil, "an item ends once")
    #expect(!machine.isOver)
  }

  @Test func aPausedQueueStartsNothingUntilResumed() {
    var machine = QueueStateMachine(count: 3, maxConcurrency: 1, stopsOnFailure: false)
    _ = startWhatFits(&machine)
    machine.pause()
    _ = machine.itemEnded(0, as: .finished)
    let whilePaused = startWhatFits(&machine)
    #expect(whilePaused == [])
    #expect(!machine.isOver)
    machine.resume()
    let resumed = startWhatFits(&machine)
    #expect(resumed == [1])
  }

  @Test func aCancelEndsTheWaitingItemsAndListsThoseUnderWay() {
    var machine = QueueStateMachine(count: 5, maxConcurrency: 2, stopsOnFailure: false)
    _ = startWhatFits(&machine)
    _ = machine.itemEnded(0, as: .finished)
    _ = startWhatFits(&machine)
    let removed = machine.remove(4)
    #expect(removed)
    let stop = machine.cancel()
    #expect(stop?.unstarted == [3])
    #expect(stop?.running == [1, 2])
    let secondCancel = machine.cancel()
    #expect(secondCancel == nil)
    let appended = machine.append(count: 1)
    #expect(appended == nil)
    machine.resume()
    let afterCancel = startWhatFits(&machine)
    #expect(afterCancel == [])
    _ = machine.itemEnded(1, as: .cancelled)
    #expect(!machine.isOver)
    _ = machine.itemEnded(2, as: .cancelled)
    let outcomes = machine.finishIfOver()
    #expect(outcomes == [.finished, .cancelled, .cancelled, .cancelled, .cancelled])
  }

  @Test func underStopTheFirstFailureStopsTheQueue() {
    var machine = QueueStateMachine(count: 4, maxConcurrency: 2, stopsOnFailure: true)
    _ = startWhatFits(&machine)
    guard case .stop(let stop)? = machine.itemEnded(0, as: .failed(TestError())) else {
      Issue.record("the failure did not stop the queue")
      return
    }
    #expect(stop.unstarted == [2, 3])
    #expect(stop.running == [1])
    #expect(machine.isStopped)
  }

  @Test func underContinueAFailureMakesRoomForTheNext() {
    var machine = QueueStateMachine(count: 3, maxConcurrency: 1, stopsOnFailure: false)
    _ = startWhatFits(&machine)
    let action = machine.itemEnded(0, as: .failed(TestError()))
    guard case .startNext? = action else {
      Issue.record("\(String(describing: action))")
      return
    }
    let next = startWhatFits(&machine)
    #expect(next == [1])
  }

  @Test func aLimitBelowOneIsOneAndAFinishedQueueTakesNoMore() {
    var machine = QueueStateMachine(count: 0, maxConcurrency: -3, stopsOnFailure: false)
    #expect(machine.maxConcurrency == 1)
    #expect(machine.isOver)
    let appended = machine.append(count: 2)
    #expect(appended == 0..<2)
    let started = startWhatFits(&machine)
    #expect(started == [0])
    let removedUnderWay = machine.remove(0)
    #expect(!removedUnderWay)
    let removedWaiting = machine.remove(1)
    #expect(removedWaiting)
    _ = machine.itemEnded(0, as: .finished)
    let outcomes = machine.finishIfOver()
    #expect(outcomes == [.finished, .cancelled])
    let again = machine.finishIfOver()
    #expect(again == nil, "once")
    let late = machine.append(count: 1)
    #expect(late == nil, "a finished queue takes no more items")
  }
}
