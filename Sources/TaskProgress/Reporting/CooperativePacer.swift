/// Yields to other tasks now and then in a loop whose body may never suspend, so that a long run
/// of synchronous items does not hold a thread of the cooperative pool (the reason the
/// hand-written pattern calls `Task.yield()`).
///
/// Reading the clock on every item would cost more than a no-op item, so the pacer reads it
/// every `stride` items and adapts `stride` to read it about once a millisecond. Counting an
/// item is one decrement, inlined into the caller's loop and synchronous: an `async` call per
/// item would cost an async frame and an executor check, more than the work of a no-op item.
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
  private static let maximumStride = 1 << 16

  private var lastYield = ContinuousClock.now
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

  /// Looks at the clock, adapts the stride, and yields if the budget since the last yield is spent.
  @usableFromInline
  mutating func yieldIfDue() async {
    let now = ContinuousClock.now
    let sinceCheck = lastCheck.duration(to: now)
    if sinceCheck < CooperativePacer.checkInterval {
      stride = min(stride * 2, CooperativePacer.maximumStride)
    } else if sinceCheck > CooperativePacer.checkInterval * 2 {
      stride = max(stride / 2, 1)
    }
    countdown = stride
    lastCheck = now
    if lastYield.duration(to: now) >= CooperativePacer.budget {
      await Task.yield()
      lastYield = ContinuousClock.now
    }
  }
}
