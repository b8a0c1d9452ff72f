import Dispatch
import Foundation
import Testing

@testable import TaskProgress

@Suite("Cooperative pacer")
struct CooperativePacerTests {
  @Test func aLoopFindsTheMarkOfAnotherLoopThatRanOnItsThread() {
    let first = PacerMark.next()
    let second = PacerMark.next()
    #expect(first != second)
    #expect(first != 0 && second != 0)
    // One synchronous function runs on one thread throughout: these are this thread's marks.
    PacerMark.swap(first)
    #expect(PacerMark.swap(first) == first, "no other loop ran here: not suspended")
    #expect(PacerMark.swap(second) == first, "the second loop finds the first one's mark")
    #expect(PacerMark.swap(first) == second, "and the first, back, finds the second's")
  }

  @Test func aLoopThatComesToAThreadCountsItsTimeThereFromItsFirstReading() throws {
    let other = try #require(Self.onAnotherThread { ThreadRunTime.now() })
    // Here, on this thread: the loop came from another, so it was suspended on the way.
    let arrived = ThreadRunTime.now(after: other)
    #expect(arrived.ran(since: other) == nil)
    // The first reading here counts nothing: not the whole time this thread has run, which
    // would make the loop yield at once.
    var spin = 0
    for value in 0..<10_000 {
      spin &+= value
    }
    let first = ThreadRunTime.now(after: arrived)
    #expect(first.ran(since: arrived) == .zero)
    let second = ThreadRunTime.now(after: first)
    let ran = try #require(second.ran(since: first))
    #expect(ran >= .zero)
    #expect(spin != 0)
    // A loop that found another's mark starts over unread, here: its next reading is a start.
    let unread = ThreadRunTime.unread
    #expect(ThreadRunTime.now(after: unread).ran(since: unread) == .zero)
  }

  /// What `body` returns on a thread of its own, or `nil`, with an issue recorded, if the thread
  /// did not answer within 10 seconds.
  private static func onAnotherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
    let result = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      result.withLock { $0 = body() }
      done.signal()
    }
    thread.start()
    guard done.wait(timeout: .now() + .seconds(10)) == .success else {
      Issue.record("waited 10 s for a reading on another thread; none came")
      return nil
    }
    return result.withLock { $0 }
  }
}
