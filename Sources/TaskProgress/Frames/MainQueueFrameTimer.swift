// The one use of Dispatch in the core: the main queue's timers need no thread of the cooperative
// pool, so frames keep coming while work that never suspends holds every thread of that pool.
import Dispatch

/// Frames on one of the system's clocks, from a timer on the main dispatch queue, which is the
/// main actor's executor.
///
/// The timer waits for a delay measured on `clock`, so the clock's time, not Dispatch's, decides
/// what a frame sees.
@MainActor
final class MainQueueFrameTimer<C: Clock<Duration>>: FrameTimer {
  private let clock: C
  private let origin: C.Instant
  private let source: any DispatchSourceTimer
  private var isArmed = false
  /// The deadline the source is set for, armed or not, until it fires.
  ///
  /// Disarming leaves the source set: a client that asks for frames again before that deadline
  /// (the next of a queue of short runs, say) re-arms it without a system call, and otherwise it
  /// fires once, does nothing, and is left unset. Setting a dispatch timer wakes Dispatch's
  /// manager thread, which cost more than a short run's own work.
  private var scheduledDeadline: Duration?

  init(clock: C) {
    self.clock = clock
    self.origin = clock.now
    source = DispatchSource.makeTimerSource(queue: .main)
    source.schedule(deadline: .distantFuture)
    source.activate()
  }

  /// A dispatch deadline is converted from the continuous clock and may land a little early.
  var tolerance: Duration { .microseconds(500) }

  func now() -> Duration {
    origin.duration(to: clock.now)
  }

  func setHandler(_ handler: @escaping @MainActor () -> Void) {
    source.setEventHandler { [weak self] in
      // A main-queue timer runs on the main thread, where the main actor runs.
      MainActor.assumeIsolated {
        guard let self else { return }
        self.scheduledDeadline = nil
        TaskRunner.countSystemFrameWakeUp()
        guard self.isArmed else { return }
        self.isArmed = false
        handler()
      }
    }
  }

  func arm(at deadline: Duration) {
    isArmed = true
    if scheduledDeadline == deadline {
      return
    }
    scheduledDeadline = deadline
    let delay = max(deadline - now(), .zero)
    let nanoseconds = Int(min(delay / .nanoseconds(1), Double(Int.max / 2)).rounded(.up))
    source.schedule(
      deadline: .now() + .nanoseconds(nanoseconds), repeating: .never, leeway: .microseconds(250))
  }

  func disarm() {
    isArmed = false
  }
}
