/// One source of frames for every client on the same clock, as a display link serves every view
/// on one display.
///
/// A client asks for frames with ``setNeedsFrames(_:every:)``. Its frames fall on a grid of its
/// interval, counted from the ticker's origin, so clients with the same interval share every
/// wake-up: four hundred runners at 60 Hz cost sixty wake-ups a second, not twenty-four thousand.
/// One wake-up reads the clock once and runs every due client's frame with that time, in the
/// order the clients first asked. Nothing is scheduled while no client needs frames.
@MainActor
final class FrameTicker {
  private struct Slot {
    let id: ObjectIdentifier
    weak var client: (any FrameClient)?
    var interval: Duration
    /// The next frame's time, or `nil` while the client needs none.
    var deadline: Duration?
  }

  private let timer: any FrameTimer
  /// The clients in the order they first asked for frames: the order of every pass.
  private var slots: [Slot] = []
  /// The deadline the timer is set for.
  private var armed: Duration?
  private var isTicking = false

  init(timer: any FrameTimer) {
    self.timer = timer
    timer.setHandler { [weak self] in self?.tick() }
  }

  /// The time on the ticker's clock.
  var now: Duration {
    timer.now()
  }

  /// The number of clients with a frame scheduled.
  var scheduledClients: Int {
    slots.count { $0.deadline != nil && $0.client != nil }
  }

  /// Schedules `client`'s next frame on its grid, unless one is scheduled; or, when `needed` is
  /// false, drops the scheduled one.
  func setNeedsFrames(_ client: any FrameClient, every interval: Duration, _ needed: Bool = true) {
    let id = ObjectIdentifier(client)
    let index: Int
    if let found = slots.firstIndex(where: { $0.id == id && $0.client != nil }) {
      index = found
    } else if needed {
      slots.append(Slot(id: id, client: client, interval: interval))
      index = slots.count - 1
    } else {
      return
    }
    slots[index].interval = interval
    if !needed {
      slots[index].deadline = nil
    } else if slots[index].deadline == nil {
      slots[index].deadline = FrameTicker.gridPoint(after: now, interval: interval)
    }
    rearm()
  }

  /// Forgets a client that goes away.
  func remove(_ client: any FrameClient) {
    let id = ObjectIdentifier(client)
    guard let index = slots.firstIndex(where: { $0.id == id }) else { return }
    if isTicking {
      slots[index].deadline = nil  // the pass compacts the slots when it ends
    } else {
      slots.remove(at: index)
      rearm()
    }
  }

  /// One wake-up: every client whose frame is due gets it, with one reading of the clock.
  private func tick() {
    armed = nil
    let now = self.now
    isTicking = true
    // Slots added during the pass are served on their own deadline, later.
    var index = 0
    while index < slots.count {
      let slot = slots[index]
      index += 1
      guard let deadline = slot.deadline, deadline <= now + timer.tolerance,
        let client = slot.client
      else { continue }
      slots[index - 1].deadline = nil
      let wantsMore = client.frame(at: now)
      // The frame may have asked for the next one already, or been dropped by its client.
      if wantsMore, let current = slots.firstIndex(where: { $0.id == slot.id }),
        slots[current].deadline == nil
      {
        slots[current].deadline = FrameTicker.gridPoint(
          after: max(now, deadline), interval: slots[current].interval)
      }
    }
    isTicking = false
    slots.removeAll { $0.client == nil }
    rearm()
  }

  /// Sets the timer for the earliest deadline, or clears it when no frame is due.
  private func rearm() {
    guard !isTicking else { return }  // the pass re-arms when it ends
    let earliest = slots.lazy.filter { $0.client != nil }.compactMap(\.deadline).min()
    guard earliest != armed else { return }
    armed = earliest
    if let earliest {
      timer.arm(at: earliest)
    } else {
      timer.disarm()
    }
  }

  /// The first point of the grid `k × interval` strictly after `time`.
  static func gridPoint(after time: Duration, interval: Duration) -> Duration {
    let step = attoseconds(interval)
    guard step > 0 else { return time }
    let next = (attoseconds(time) / step + 1) * step
    let second: Int128 = 1_000_000_000_000_000_000
    return Duration(
      secondsComponent: Int64(next / second), attosecondsComponent: Int64(next % second))
  }

  private static func attoseconds(_ duration: Duration) -> Int128 {
    let (seconds, attoseconds) = duration.components
    return Int128(seconds) * 1_000_000_000_000_000_000 + Int128(attoseconds)
  }
}
