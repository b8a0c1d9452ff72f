/// Yields to other tasks now and then in a loop whose body may never suspend, so that a long run
/// of synchronous items does not hold a thread of the cooperative pool (the reason the
/// hand-written pattern calls `Task.yield()`).
///
/// Reading the clock on every item would cost more than a no-op item, so the pacer reads it
/// every `stride` items and adapts `stride` to read it about once a millisecond.
struct CooperativePacer {
  /// The longest the loop runs without offering to yield.
  static let budget: Duration = .milliseconds(10)
  private static let checkInterval: Duration = .milliseconds(1)
  private static let maximumStride = 1 << 16

  private var lastYield = ContinuousClock.now
  private var lastCheck = ContinuousClock.now
  private var stride = 1
  private var countdown = 1

  /// Counts one item, and yields if the budget since the last yield is spent.
  mutating func yieldIfDue() async {
    countdown -= 1
    guard countdown <= 0 else { return }
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
