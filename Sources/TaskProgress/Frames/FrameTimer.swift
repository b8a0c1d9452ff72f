/// How a ``FrameTicker`` reads its clock and waits for its next deadline.
@MainActor
protocol FrameTimer: AnyObject {
  /// How early a wake-up may come and still serve a deadline, for timers that convert between
  /// clocks.
  var tolerance: Duration { get }
  /// The time since the timer's origin.
  func now() -> Duration
  /// Sets what runs, on the main actor, when the timer fires.
  func setHandler(_ handler: @escaping @MainActor () -> Void)
  /// Fires the handler once, at `deadline`; replaces any earlier deadline.
  func arm(at deadline: Duration)
  /// Cancels the deadline, if any.
  func disarm()
}

/// Frames on a ``ManualClock``: run synchronously inside its `advance` calls.
@MainActor
final class ManualFrameTimer: FrameTimer {
  private let clock: ManualClock
  private var handler: @MainActor () -> Void = {}
  private var scheduled: UInt64?

  init(clock: ManualClock) {
    self.clock = clock
  }

  var tolerance: Duration { .zero }

  /// Manual time is an offset from the clock's start, the same for every runner on it.
  func now() -> Duration {
    clock.now.offset
  }

  func setHandler(_ handler: @escaping @MainActor () -> Void) {
    self.handler = handler
  }

  func arm(at deadline: Duration) {
    disarm()
    scheduled = clock.scheduleTimer(at: ManualClock.Instant(offset: deadline)) { [weak self] in
      self?.scheduled = nil
      self?.handler()
    }
  }

  func disarm() {
    if let scheduled {
      clock.cancelTimer(scheduled)
      self.scheduled = nil
    }
  }
}

/// Frames on any other clock: a main-actor task that sleeps until the deadline.
///
/// Waking from a sleep takes a thread of the cooperative pool, so these frames wait while work
/// that never suspends holds every thread of the pool.
@MainActor
final class SleepingFrameTimer<C: Clock<Duration>>: FrameTimer {
  private let clock: C
  private let origin: C.Instant
  private var handler: @MainActor () -> Void = {}
  private var sleeper: Task<Void, Never>?
  /// Counts the deadlines set, so that a sleeper that woke just as it was cancelled, and whose
  /// deadline was replaced meanwhile, knows it is stale.
  private var generation: UInt64 = 0

  init(clock: C) {
    self.clock = clock
    self.origin = clock.now
  }

  var tolerance: Duration { .zero }

  func now() -> Duration {
    origin.duration(to: clock.now)
  }

  func setHandler(_ handler: @escaping @MainActor () -> Void) {
    self.handler = handler
  }

  func arm(at deadline: Duration) {
    disarm()
    let (clock, wakeUp, generation) = (clock, origin.advanced(by: deadline), generation)
    sleeper = Task { [weak self] in
      do {
        try await clock.sleep(until: wakeUp, tolerance: nil)
      } catch {
        return  // disarmed
      }
      guard let self, self.generation == generation else { return }
      self.sleeper = nil
      self.handler()
    }
  }

  func disarm() {
    generation &+= 1
    sleeper?.cancel()
    sleeper = nil
  }
}
