import Synchronization

/// The active run's task and the scheduled frame, reachable from the runner's `deinit`, which is
/// not on the main actor.
final class RunLifetime: Sendable {
  private let active = Locked<(task: Task<Void, Never>, mailbox: ProgressMailbox)?>(nil)
  private let frame = Locked<ScheduledWakeUp?>(nil)

  /// Remembers the scheduled frame, cancelling the one it replaces if asked.
  func setFrameTimer(_ wakeUp: ScheduledWakeUp?, cancellingThePreviousOne: Bool = false) {
    let previous = frame.withLock { frame in
      defer { frame = wakeUp }
      return frame
    }
    if cancellingThePreviousOne {
      previous?.cancel()
    }
  }

  /// Remembers the run that is now active.
  func begin(_ task: Task<Void, Never>, mailbox: ProgressMailbox) {
    active.withLock { $0 = (task, mailbox) }
  }

  /// Forgets the active run, cancelling it if asked.
  func end(cancelling: Bool) {
    guard let run = active.withLock({ $0.take() }), cancelling else { return }
    run.mailbox.cancelled.store(true, ordering: .relaxed)
    run.task.cancel()
  }
}
