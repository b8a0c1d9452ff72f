/// A cancellable wake-up scheduled on a runner's clock.
struct ScheduledWakeUp: Sendable {
  let cancel: @Sendable () -> Void
}

/// The runner's view of its injected clock: time as a `Duration` since the runner was created,
/// and a way to run a frame on the main actor at a given time.
///
/// A ``ManualClock`` runs frames synchronously inside its `advance` calls, so tests are exact.
/// Any other clock runs each frame from a main-actor task that sleeps until the deadline.
struct RunnerClock: Sendable {
  /// The time since the runner was created.
  let now: @Sendable () -> Duration
  /// Runs the action on the main actor once the time reaches the deadline.
  let schedule:
    @MainActor @Sendable (_ deadline: Duration, _ action: @escaping @MainActor @Sendable () -> Void)
      -> ScheduledWakeUp

  init<C: Clock<Duration>>(_ clock: C) {
    let origin = clock.now
    now = { origin.duration(to: clock.now) }
    if let manual = clock as? ManualClock {
      let manualOrigin = (origin as? ManualClock.Instant) ?? manual.now
      schedule = { deadline, action in
        let id = manual.scheduleTimer(at: manualOrigin.advanced(by: deadline), action)
        return ScheduledWakeUp { manual.cancelTimer(id) }
      }
    } else {
      schedule = { deadline, action in
        let task = Task { @MainActor in
          do {
            try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil)
          } catch {
            return
          }
          TaskRunner.countSystemFrameWakeUp()
          action()
        }
        return ScheduledWakeUp { task.cancel() }
      }
    }
  }
}
