// `public` because the reporter's inlinable fast path stores into an `Atomic` from client code.
public import Synchronization

/// The latest-value mailbox between one run's reporter and its runner.
///
/// A report is one store of a 64-bit word into an `Atomic`: no lock, no allocation, no actor
/// hop, and no buffer that grows with the number of reports. The runner loads the word at most
/// once per update interval and keeps it only when it changed. Each run has its own mailbox, so
/// a reporter that outlives its run writes into a box nobody reads.
///
/// The word packs a whole ``RunProgress``:
///
/// | bits 63-62 | payload (bits 61-0)                                                   |
/// |------------|-----------------------------------------------------------------------|
/// | `00`       | a fraction in `0...1`, as its `Double` bit pattern (whose top two bits are 0) |
/// | `01`       | counts: completed in bits 61-31, total in bits 30-0 (`total < 2^31`)  |
/// | `10`       | indeterminate: bit 61 says a completed count follows in bits 60-0     |
/// | `11`       | a sequence number; the report is too wide for a word and waits in ``wide`` |
///
/// The wide path takes a lock. Only counts of two billion and more take it.
@usableFromInline
final class ProgressMailbox: Sendable {
  /// The latest report, encoded as the table above says.
  @usableFromInline let word: Atomic<UInt64>
  /// Whether the run was cancelled; read by ``TaskRunner/Reporter/isCancelled``.
  @usableFromInline let cancelled: Atomic<Bool>
  /// Reports whose counts do not fit in a word, with the sequence number of the last one.
  private let wide: Locked<(sequence: UInt64, progress: RunProgress)>
  /// When the run's work last gave other tasks a turn through a checkpoint, in nanoseconds
  /// since ``origin``.
  private let lastYield = Atomic<Int64>(0)
  /// When a frame of the runner last drained this mailbox, in nanoseconds since ``origin``.
  private let lastDrain = Atomic<Int64>(0)
  /// How late a frame may be before checkpoints yield to let it through, in nanoseconds.
  private let drainDeadline: Int64
  /// The instant the mailbox was made: the origin of the times above, on the continuous clock
  /// (real time, whatever clock the runner uses, since starving threads is a real-time matter).
  private let origin = ContinuousClock.now

  /// The word a new mailbox holds: fraction 0, the progress of a new run.
  static let initialWord = fractionTag
  /// How long a run's work may go without giving other tasks a turn at a checkpoint.
  static let yieldBudget: Duration = .milliseconds(10)

  /// Creates the mailbox of a run whose runner drains it every `updateInterval`.
  init(updateInterval: Duration = .seconds(1) / 60) {
    word = Atomic(ProgressMailbox.initialWord)
    cancelled = Atomic(false)
    wide = Locked((0, .zero))
    drainDeadline = ProgressMailbox.nanoseconds(updateInterval * 5 / 4)
  }

  private static func nanoseconds(_ duration: Duration) -> Int64 {
    Int64((duration / .nanoseconds(1)).rounded(.down))
  }

  private var elapsed: Int64 {
    ProgressMailbox.nanoseconds(origin.duration(to: .now))
  }

  /// Notes that a frame drained the mailbox now.
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
    if now - lastDrain.load(ordering: .relaxed) > drainDeadline {
      return true
    }
    let last = lastYield.load(ordering: .relaxed)
    guard now - last >= ProgressMailbox.nanoseconds(ProgressMailbox.yieldBudget) else {
      return false
    }
    return lastYield.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
  }

  @usableFromInline static let tagMask: UInt64 = 0b11 << 62
  @usableFromInline static let fractionTag: UInt64 = 0b00 << 62
  @usableFromInline static let countsTag: UInt64 = 0b01 << 62
  @usableFromInline static let indeterminateTag: UInt64 = 0b10 << 62
  @usableFromInline static let wideTag: UInt64 = 0b11 << 62
  @usableFromInline static let indeterminateHasCount: UInt64 = 1 << 61
  @usableFromInline static let countLimit = 1 << 31
  @usableFromInline static let indeterminateCountLimit = 1 << 61

  /// Whether the run was cancelled.
  @inlinable
  var isCancelled: Bool {
    cancelled.load(ordering: .relaxed)
  }

  /// Stores a report encoded in one word.
  @inlinable
  func store(_ word: UInt64) {
    self.word.store(word, ordering: .releasing)
  }

  /// Stores a report whose counts do not fit in one word.
  @usableFromInline
  func storeWide(_ progress: RunProgress) {
    wide.withLock { wide in
      wide.sequence &+= 1
      wide.progress = progress
      // Stored under the lock, so the word's sequence numbers follow the lock's order.
      word.store(
        ProgressMailbox.wideTag | (wide.sequence & ~ProgressMailbox.tagMask), ordering: .releasing)
    }
  }

  /// The current word: compare it with the last one to see whether anything new arrived.
  func load() -> UInt64 {
    word.load(ordering: .acquiring)
  }

  /// Decodes a word that ``load()`` returned.
  func progress(decoding word: UInt64) -> RunProgress {
    let payload = word & ~ProgressMailbox.tagMask
    switch word & ProgressMailbox.tagMask {
    case ProgressMailbox.fractionTag:
      return RunProgress(fractionCompleted: Double(bitPattern: payload))
    case ProgressMailbox.countsTag:
      return RunProgress(completed: Int(payload >> 31), of: Int(payload & 0x7FFF_FFFF))
    case ProgressMailbox.indeterminateTag:
      let hasCount = payload & ProgressMailbox.indeterminateHasCount != 0
      let count = payload & (ProgressMailbox.indeterminateHasCount - 1)
      return .indeterminate(completed: hasCount ? Int(count) : nil)
    default:
      return wide.withLock { $0.progress }
    }
  }
}
