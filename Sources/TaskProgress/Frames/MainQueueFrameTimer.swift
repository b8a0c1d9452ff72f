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
        guard let self, self.isArmed else { return }
        self.isArmed = false
        TaskRunner.countSystemFrameWakeUp()
        handler()
      }
    }
  }

  func arm(at deadline: Duration) {
    let delay = max(deadline - now(), .zero)
    let nanoseconds = Int(min(delay / .nanoseconds(1), Double(Int.max / 2)).rounded(.up))
    isArmed = true
    source.schedule(
      deadline: .now() + .nanoseconds(nanoseconds), repeating: .never, leeway: .microseconds(250))
  }

  func disarm() {
    isArmed = false
    source.schedule(deadline: .distantFuture)
  }
}
