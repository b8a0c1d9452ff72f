import Synchronization

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
/// executor switch per item. The pacer reads the thread's CPU time where the system has one. A
/// loop suspended on the way, which counts as a yield, when it resumed on another thread, or
/// when another pacer's loop looked at the clock on its thread since it last did: two loops
/// never run on one thread at once. Four hundred runners whose items sleep 10 ms share a few
/// threads, and each finds the others' marks; counting the thread's time then, spent on the other
/// loops, made them yield after one item in two.
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
  /// This loop's mark on the threads it looks at the clock on.
  private let mark = PacerMark.next()
  private var lastCheck = ContinuousClock.now
  private var stride = 1
  @usableFromInline var countdown = 1

  @usableFromInline
  init() {
    PacerMark.swap(mark)
  }

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
    // Another loop's mark on this thread: this one was off it meanwhile, suspended. Its time
    // starts over, and the thread's clock (a system call on Linux) is read at the next check
    // that finds no other mark, not now.
    if PacerMark.swap(mark) != mark {
      busy = .zero
      lastRun = .unread
      return
    }
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
  /// The time, or `nil` when the clock was not read: the caller had just come to this thread.
  private let time: Duration?

  /// The calling thread, its clock not read: the start of a loop's time on it, which the next
  /// reading there takes as its start.
  static var unread: ThreadRunTime {
    #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    ThreadRunTime(thread: pthread_self(), time: nil)
    #else
    ThreadRunTime(time: nil)
    #endif
  }

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
      return ThreadRunTime(thread: thread, time: nil)
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
  ///
  /// An `earlier` time that was not read (the task had just come to the thread) gives zero, not
  /// the thread's whole life: the loop's time on it is counted from the next reading on.
  func ran(since earlier: ThreadRunTime) -> Duration? {
    #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    guard pthread_equal(thread, earlier.thread) != 0 else { return nil }
    #endif
    guard let time, let earlierTime = earlier.time else { return .zero }
    return time - earlierTime
  }
}

/// The mark of the pacer's loop that last looked at the clock on the calling thread.
///
/// Marks are numbers that no two loops share; `0` is no loop's. A loop that finds another's mark
/// on its thread was suspended since it last looked: a thread runs one task at a time.
enum PacerMark {
  private static let counter = Atomic<UInt>(0)

  /// A mark of a new loop's own.
  static func next() -> UInt {
    counter.add(1, ordering: .relaxed).newValue
  }

  #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
  /// The thread-specific slot of the marks, made once; `nil` if the system had none to give.
  private static let key: pthread_key_t? = {
    var key = pthread_key_t()
    return pthread_key_create(&key, nil) == 0 ? key : nil
  }()
  #endif

  /// Puts `mark` on the calling thread; returns the mark it had, `0` for none.
  ///
  /// Without a slot, it returns `mark`: no suspension is seen, and the loop counts its thread's
  /// time, which may make it yield more often than it needs to, never less.
  @discardableResult
  static func swap(_ mark: UInt) -> UInt {
    #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    guard let key else { return mark }
    let old = UInt(bitPattern: pthread_getspecific(key))
    if old != mark {
      _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: mark))
    }
    return old
    #else
    return mark
    #endif
  }
}
