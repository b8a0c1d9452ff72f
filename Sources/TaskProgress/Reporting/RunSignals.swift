// `public` because the reporter's inlinable fast path reads an `Atomic` from client code.
public import Synchronization

/// What every reporter of one run shares: whether the run was cancelled, and the pacing of its
/// checkpoints against the runner's frames.
///
/// Each run has its own signals, so a reporter that outlives its run reads a flag nobody clears.
@usableFromInline
final class RunSignals: Sendable {
  /// Whether the run was cancelled; read by ``TaskRunner/Reporter/isCancelled``.
  @usableFromInline let cancelled = Atomic<Bool>(false)
  /// When the run's work last gave other tasks a turn through a checkpoint, in nanoseconds
  /// since ``origin``.
  private let lastYield = Atomic<Int64>(0)
  /// When a frame of the runner last drained the run's reports, in nanoseconds since ``origin``.
  private let lastDrain = Atomic<Int64>(0)
  /// How late a frame may be before checkpoints yield to let it through, in nanoseconds; `nil`
  /// for a reporter that no runner drains.
  private let drainDeadline: Int64?
  /// The instant the signals were made: the origin of the times above, on the continuous clock
  /// (real time, whatever clock the runner uses, since starving threads is a real-time matter).
  private let origin = ContinuousClock.now

  /// How long a run's work may go without giving other tasks a turn at a checkpoint.
  static let yieldBudget: Duration = .milliseconds(10)

  /// Creates the signals of a run whose runner drains it every `updateInterval`, or, for `nil`,
  /// of a standalone reporter that no runner drains.
  init(updateInterval: Duration? = .seconds(1) / 60) {
    drainDeadline = updateInterval.map { RunSignals.nanoseconds($0 * 5 / 4) }
  }

  private static func nanoseconds(_ duration: Duration) -> Int64 {
    Int64((duration / .nanoseconds(1)).rounded(.down))
  }

  private var elapsed: Int64 {
    RunSignals.nanoseconds(origin.duration(to: .now))
  }

  /// Whether the run was cancelled.
  @inlinable
  var isCancelled: Bool {
    cancelled.load(ordering: .relaxed)
  }

  /// Notes that a frame drained the run now.
  func markDrained() {
    markDrained(at: elapsed)
  }

  /// ``markDrained()`` at a given time, in nanoseconds since ``origin``: what tests drive.
  func markDrained(at now: Int64) {
    lastDrain.store(now, ordering: .relaxed)
  }

  /// Whether a checkpoint should yield now: while a frame is overdue, every caller yields, so
  /// that the frame's wake-up gets a thread; otherwise one caller per ``yieldBudget``.
  @usableFromInline
  func shouldYield() -> Bool {
    shouldYield(at: elapsed)
  }

  /// ``shouldYield()`` at a given time, in nanoseconds since ``origin``: what tests drive.
  func shouldYield(at now: Int64) -> Bool {
    if let drainDeadline, now - lastDrain.load(ordering: .relaxed) > drainDeadline {
      return true
    }
    let last = lastYield.load(ordering: .relaxed)
    guard now - last >= RunSignals.nanoseconds(RunSignals.yieldBudget) else {
      return false
    }
    return lastYield.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
  }
}
