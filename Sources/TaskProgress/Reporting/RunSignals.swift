// `public` because the reporter's inlinable fast path reads an `Atomic` from client code.
public import Synchronization

/// What every reporter of one run shares: whether the run was cancelled or paused, its status
/// text, and the pacing of its checkpoints against the runner's frames.
///
/// Each run has its own signals, so a reporter that outlives its run reads a flag nobody clears.
@usableFromInline
final class RunSignals: Sendable {
  /// Whether the run was cancelled; read by ``TaskRunner/Reporter/isCancelled``.
  @usableFromInline let cancelled = Atomic<Bool>(false)
  /// Whether the run is paused: checkpoints and the `over:` loops wait while it is.
  ///
  /// Written through ``setPaused(_:)`` only; see ``isPaused``.
  @usableFromInline let paused = Atomic<Bool>(false)
  /// The tasks waiting for the run to resume.
  private let pauseWaiters = Locked(PauseWaiters())
  /// The run's status text.
  @usableFromInline let messages = MessageBoard()
  /// What the run's reporters mirror from elsewhere, polled on the run's frames.
  let sources = ProgressSources()
  /// When the run's work last gave other tasks a turn through a checkpoint, in nanoseconds
  /// since ``origin``.
  private let lastYield = Atomic<Int64>(0)
  /// When a frame of the runner last read the run's reports, in nanoseconds since ``origin``.
  private let lastFrame = Atomic<Int64>(0)
  /// How late a frame may be before checkpoints yield to let it through, in nanoseconds; `nil`
  /// for a reporter that no runner reads.
  private let frameDeadline: Int64?
  /// The instant the signals were made: the origin of the times above, on the continuous clock
  /// (real time, whatever clock the runner uses, since starving threads is a real-time matter).
  private let origin = ContinuousClock.now

  /// How long a run's work may go without giving other tasks a turn at a checkpoint.
  static let yieldBudget: Duration = .milliseconds(10)

  /// Creates the signals of a run whose runner reads it every `updateInterval`, or, for `nil`,
  /// of a standalone reporter that no runner reads.
  init(updateInterval: Duration? = .seconds(1) / 60) {
    frameDeadline = updateInterval.map { RunSignals.nanoseconds($0 * 5 / 4) }
  }

  private static func nanoseconds(_ duration: Duration) -> Int64 {
    // From the components, not `duration / .nanoseconds(1)`: a division in 128 bits and a
    // `Double`, on every frame and checkpoint. Durations here are since the signals were made
    // and never near Int64's 292 years of nanoseconds.
    let (seconds, attoseconds) = duration.components
    return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
  }

  private var elapsed: Int64 {
    RunSignals.nanoseconds(origin.duration(to: .now))
  }

  /// Whether the run was cancelled.
  @inlinable
  var isCancelled: Bool {
    cancelled.load(ordering: .relaxed)
  }

  /// Whether the run is paused, as reporters on any thread read it.
  ///
  /// It mirrors the runner's own answer, the active run's ``RunTiming/isPaused`` in its
  /// ``RunStateMachine``, which reporters can't read from other threads. The runner alone writes
  /// it, from the ``RunStateMachine/PauseChange`` values the machine returns: at a pause, at a
  /// resume, and back to `false` when the operation ends the run while paused, so that the tasks
  /// still waiting at a checkpoint go on. A cancelled run keeps the value and wakes its waiters
  /// through ``cancel()`` instead. A standalone reporter, which no runner reads, is never paused.
  @inlinable
  var isPaused: Bool {
    paused.load(ordering: .relaxed)
  }

  /// Cancels the run: sets the flag reporters read, and wakes the tasks waiting while paused.
  func cancel() {
    cancelled.store(true, ordering: .relaxed)
    resumeWaiters()
  }

  /// Pauses or resumes the run; resuming wakes the tasks waiting at checkpoints.
  ///
  /// Only the runner calls it, with what its machine answered (see ``isPaused``).
  func setPaused(_ isPaused: Bool) {
    paused.store(isPaused, ordering: .relaxed)
    if !isPaused {
      resumeWaiters()
    }
  }

  /// Suspends the calling task while the run is paused.
  ///
  /// It waits until the run resumes or is cancelled, or the task itself is cancelled, and holds
  /// no thread meanwhile.
  @usableFromInline
  func waitWhilePaused() async {
    let id = pauseWaiters.withLock { $0.makeID() }
    await withTaskCancellationHandler {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
        let waits = pauseWaiters.withLock { waiters in
          // Under the lock that `setPaused(false)`, `cancel()` and the cancellation handler take:
          // whichever comes first, the waiter is resumed exactly once.
          guard isPaused, !isCancelled, !Task.isCancelled else { return false }
          waiters.waiting[id] = continuation
          return true
        }
        if !waits {
          continuation.resume()
        }
      }
    } onCancel: {
      pauseWaiters.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
    }
  }

  /// How many tasks wait for the run to resume: what tests watch.
  var waitingTaskCount: Int {
    pauseWaiters.withLock { $0.waiting.count }
  }

  private func resumeWaiters() {
    let waiting = pauseWaiters.withLock { waiters in
      defer { waiters.waiting.removeAll() }
      return Array(waiters.waiting.values)
    }
    for continuation in waiting {
      continuation.resume()
    }
  }

  /// The tasks waiting for a paused run, by an identity of their own.
  private struct PauseWaiters: Sendable {
    var waiting: [UInt64: UnsafeContinuation<Void, Never>] = [:]
    var lastID: UInt64 = 0

    mutating func makeID() -> UInt64 {
      lastID += 1
      return lastID
    }
  }

  /// Notes that a frame read the run's reports now.
  func markFrame() {
    markFrame(at: elapsed)
  }

  /// ``markFrame()`` at a given time, in nanoseconds since ``origin``: what tests drive.
  func markFrame(at now: Int64) {
    lastFrame.store(now, ordering: .relaxed)
  }

  /// Whether a checkpoint should yield now: while a frame is overdue, every caller yields, so
  /// that the frame's wake-up gets a thread; otherwise one caller per ``yieldBudget``.
  @usableFromInline
  func shouldYield() -> Bool {
    shouldYield(at: elapsed)
  }

  /// ``shouldYield()`` at a given time, in nanoseconds since ``origin``: what tests drive.
  func shouldYield(at now: Int64) -> Bool {
    if let frameDeadline, now - lastFrame.load(ordering: .relaxed) > frameDeadline {
      return true
    }
    let last = lastYield.load(ordering: .relaxed)
    guard now - last >= RunSignals.nanoseconds(RunSignals.yieldBudget) else {
      return false
    }
    return lastYield.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
  }
}
