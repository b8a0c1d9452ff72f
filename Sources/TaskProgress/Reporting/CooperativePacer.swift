#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
// Where Glibc's `timespec` is declared, for its members.
import SwiftOverlayShims
#elseif canImport(Musl)
import Musl
#endif

/// Yields to other tasks now and then in a loop whose body may never suspend, so that a long run
/// of synchronous items does not hold a thread of the cooperative pool (the reason the
/// hand-written pattern calls `Task.yield()`).
///
/// Reading the clock on every item would cost more than a no-op item, so the pacer reads it
/// every `stride` items and adapts `stride` to read it about once a millisecond. Counting an
/// item is one decrement, inlined into the caller's loop and synchronous: an `async` call per
/// item would cost an async frame and an executor check, more than the work of a no-op item.
///
/// The budget counts the time the thread ran, not the time that passed: an item that suspends
/// (a download, a sleep) gave its thread back already, and yielding after it would only add an
/// executor switch per item. The pacer reads the thread's CPU time where the system has one; a
/// loop that resumed on another thread suspended on the way, which counts as a yield.
///
/// <!-- snippet: skip (an internal type, which only its module can use) -->
/// ```swift
/// if pacer.countItem() { await pacer.yieldIfDue() }
/// ```
@usableFromInline
struct CooperativePacer {
  /// The longest the loop runs without offering to yield.
  static let budget = RunSignals.yieldBudget
  private static let checkInterval: Duration = .milliseconds(1)
  /// Twice ``checkInterval``, computed once: `Duration` arithmetic is 128-bit.
  private static let slowCheckInterval: Duration = .milliseconds(2)
  private static let maximumStride = 1 << 16

  /// The time the thread ran since the loop last yielded or suspended.
  private var busy: Duration = .zero
  private var lastRun = ThreadRunTime.now()
  private var lastCheck = ContinuousClock.now
  private var stride = 1
  @usableFromInline var countdown = 1

  @usableFromInline
  init() {}

  /// Counts one item; returns whether it is time to look at the clock with ``yieldIfDue()``.
  @inlinable
  mutating func countItem() -> Bool {
    countdown &-= 1
    return countdown <= 0
  }

  /// Looks at the clock, adapts the stride, and yields if the thread ran its budget since the
  /// loop last gave it up.
  @usableFromInline
  mutating func yieldIfDue() async {
    let now = ContinuousClock.now
    let sinceCheck = lastCheck.duration(to: now)
    if sinceCheck < CooperativePacer.checkInterval {
      stride = min(stride * 2, CooperativePacer.maximumStride)
    } else if sinceCheck > CooperativePacer.slowCheckInterval {
      stride = max(stride / 2, 1)
    }
    countdown = stride
    lastCheck = now
    let run = ThreadRunTime.now(after: lastRun)
    busy = run.ran(since: lastRun).map { busy + $0 } ?? .zero
    lastRun = run
    if busy >= CooperativePacer.budget {
      await Task.yield()
      busy = .zero
      lastRun = ThreadRunTime.now()
    }
  }
}

/// The thread the caller runs on and the time it ran, or the time that passed where the system
/// has no clock of a thread's own.
struct ThreadRunTime {
  #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
  private let thread: pthread_t
  #endif
  private let time: Duration

  /// Now, on the calling thread.
  static func now() -> ThreadRunTime {
    #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    now(after: nil)
    #else
    ThreadRunTime(time: ContinuousClock.now - origin)
    #endif
  }

  /// Now, on the calling thread; when it is not the thread of `earlier`, without reading the
  /// thread's clock (a system call on Linux), whose time would not count.
  static func now(after earlier: ThreadRunTime?) -> ThreadRunTime {
    #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    let thread = pthread_self()
    if let earlier, pthread_equal(thread, earlier.thread) == 0 {
      return ThreadRunTime(thread: thread, time: .zero)
    }
    var spec = timespec()
    if clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec) == 0 {
      return ThreadRunTime(
        thread: thread, time: .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec)))
    }
    // No clock of the thread's own: the time that passed, which counts a suspension as work.
    return ThreadRunTime(thread: thread, time: ContinuousClock.now - origin)
    #else
    ThreadRunTime(time: ContinuousClock.now - origin)
    #endif
  }

  private static let origin = ContinuousClock.now

  /// The time the thread ran since `earlier`; `nil` when this is another thread, which the task
  /// reached by suspending.
  func ran(since earlier: ThreadRunTime) -> Duration? {
    #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    guard pthread_equal(thread, earlier.thread) != 0 else { return nil }
    #endif
    return time - earlier.time
  }
}
