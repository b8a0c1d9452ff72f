/// One source of frames for every client on the same clock, as a display link serves every view
/// on one display.
///
/// A client registers once and then asks for frames with ``setNeedsFrames(_:_:)``. Its frames fall
/// on a grid of its interval, counted from the ticker's origin, so clients with the same interval
/// share every wake-up: four hundred runners at 60 Hz cost sixty wake-ups a second, not twenty-four
/// thousand. One wake-up reads the clock once and runs every due client's frame with that time, in
/// the order the clients registered. Nothing is scheduled while no client needs frames, and asking
/// for frames costs the same whatever the number of clients.
@MainActor
final class FrameTicker {
  /// A client's place with the ticker.
  final class Registration {
    /// The client, loaded once a frame, when the frame is due.
    ///
    /// A weak load is the dearest step of a frame that has little to do; ``isRemoved`` answers
    /// every other question about the client.
    fileprivate weak var client: (any FrameClient)?
    /// Whether the client was removed, or found gone: it gets no more frames.
    fileprivate var isRemoved = false
    fileprivate let interval: Duration
    /// The order of registration: the order of every wake-up.
    fileprivate let order: UInt64
    /// The next frame's time, or `nil` while the client needs none.
    fileprivate var deadline: Duration?
    /// Whether the registration is in the ticker's list of scheduled ones.
    fileprivate var isListed = false

    fileprivate init(client: any FrameClient, interval: Duration, order: UInt64) {
      self.client = client
      self.interval = interval
      self.order = order
    }
  }

  private let timer: any FrameTimer
  /// The registrations that have a deadline, or had one since the last wake-up, in registration order.
  private var listed: [Registration] = []
  /// The number of clients with a frame scheduled.
  private(set) var scheduledClients = 0
  private var lastOrder: UInt64 = 0
  /// The deadline the timer is set for.
  private var armed: Duration?
  /// Whether a wake-up is under way: what ``atEndOfWakeUp(_:)`` asks, for a caller that would
  /// make its action only to have it dropped.
  private(set) var isWaking = false
  /// What runs at the end of the wake-up under way, after every frame of it; `nil` outside a
  /// wake-up.
  private var endOfWakeUp: [@MainActor (Duration) -> Void]?
  /// The last grid point computed, with the time and interval it was computed for: 128-bit
  /// divisions, the same for every client of a wake-up.
  private var lastGridPoint: (time: Duration, interval: Duration, point: Duration)?
  /// Whether registrations were listed during the wake-up, out of order.
  private var listedDuringWakeUp = false

  /// A ticker that wakes up when `timer` fires.
  ///
  /// - Parameters:
  ///   - timer: The timer of the ticker's clock.
  ///   - lastsForever: Whether the ticker lives as long as the program, as the shared tickers of
  ///     the standard clocks do: then the timer's handler holds it strongly. No weak reference
  ///     gives it a side table, through which every retain of it would go, and every runner and
  ///     group retains its ticker at each change (a third of a group's `setNeedsFrame`).
  init(timer: any FrameTimer, lastsForever: Bool = false) {
    self.timer = timer
    if lastsForever {
      timer.setHandler { self.wakeUp() }
    } else {
      timer.setHandler { [weak self] in self?.wakeUp() }
    }
  }

  /// The time on the ticker's clock.
  var now: Duration {
    timer.now()
  }

  /// Registers a client whose frames fall every `interval`; it needs none yet.
  ///
  /// - Parameters:
  ///   - client: The client, held weakly.
  ///   - interval: The time between its frames.
  /// - Returns: The client's registration.
  func register(_ client: any FrameClient, every interval: Duration) -> Registration {
    lastOrder += 1
    return Registration(client: client, interval: interval, order: lastOrder)
  }

  /// Runs `action` with the wake-up's time at the end of the wake-up under way, after every
  /// frame of it, its own frames included: how a group sums up what its runners' frames just
  /// read, whatever order they registered in.
  ///
  /// - Returns: `false`, keeping nothing, when no wake-up is under way.
  func atEndOfWakeUp(_ action: @escaping @MainActor (Duration) -> Void) -> Bool {
    guard endOfWakeUp != nil else { return false }
    endOfWakeUp?.append(action)
    return true
  }

  /// Schedules the client's next frame on its grid, unless one is scheduled; or, when `needed` is
  /// false, drops the scheduled one.
  func setNeedsFrames(_ registration: Registration, _ needed: Bool = true) {
    if !needed {
      guard registration.deadline != nil else { return }
      registration.deadline = nil
      scheduledClients -= 1
      if scheduledClients == 0, !isWaking {
        armed = nil
        timer.disarm()
      }
      return
    }
    // A client that asks again before its frame pays one load.
    guard registration.deadline == nil, !registration.isRemoved else { return }
    let deadline = nextGridPoint(after: now, interval: registration.interval)
    registration.deadline = deadline
    scheduledClients += 1
    list(registration)
    if !isWaking, armed.map({ deadline < $0 }) ?? true {
      armed = deadline
      timer.arm(at: deadline)
    }
  }

  /// Forgets a client that goes away.
  func remove(_ registration: Registration) {
    setNeedsFrames(registration, false)
    registration.client = nil
    registration.isRemoved = true
    if !isWaking, registration.isListed {
      listed.removeAll { $0 === registration }  // a wake-up would drop it, but none may come
    }
  }

  /// Adds a registration to the list, in registration order.
  private func list(_ registration: Registration) {
    guard !registration.isListed else { return }
    registration.isListed = true
    if isWaking {
      listed.append(registration)
      listedDuringWakeUp = true
      return
    }
    let index = listed.partitioningIndex { $0.order >= registration.order }
    listed.insert(registration, at: index)
  }

  /// One wake-up: every client whose frame is due gets it, with one reading of the clock, then
  /// what was asked for at the end of the wake-up runs, with the same time.
  private func wakeUp() {
    armed = nil
    let now = self.now
    isWaking = true
    endOfWakeUp = []
    // Registrations listed during the wake-up are served on their own deadline, later.
    for registration in listed.prefix(listed.count) {
      serve(registration, at: now)
    }
    while let actions = endOfWakeUp, !actions.isEmpty {
      endOfWakeUp = []
      for action in actions {
        action(now)
      }
    }
    endOfWakeUp = nil
    isWaking = false
    listed.removeAll { registration in
      guard registration.deadline == nil || registration.isRemoved else { return false }
      registration.isListed = false
      return true
    }
    if listedDuringWakeUp {
      listedDuringWakeUp = false
      listed.sort { $0.order < $1.order }
    }
    if let earliest = listed.lazy.compactMap(\.deadline).min() {
      armed = earliest
      timer.arm(at: earliest)
    } else {
      timer.disarm()
    }
  }

  /// Runs a registration's frame if it is due at `now`, and schedules the next one it asks for.
  private func serve(_ registration: Registration, at now: Duration) {
    guard let deadline = registration.deadline, deadline <= now + timer.tolerance else { return }
    registration.deadline = nil
    scheduledClients -= 1
    guard let client = registration.client else {
      // Gone without being removed: no more frames, and the list lets it go.
      registration.isRemoved = true
      return
    }
    // The frame may ask for the next one itself, through `setNeedsFrames`.
    if client.frame(at: now), registration.deadline == nil, !registration.isRemoved {
      registration.deadline = nextGridPoint(
        after: max(now, deadline), interval: registration.interval)
      scheduledClients += 1
    }
  }

  /// ``gridPoint(after:interval:)``, kept for the next caller: the clients of one wake-up, and
  /// those that ask between two, mostly share their time and interval.
  private func nextGridPoint(after time: Duration, interval: Duration) -> Duration {
    if let last = lastGridPoint, last.time == time, last.interval == interval {
      return last.point
    }
    let point = FrameTicker.gridPoint(after: time, interval: interval)
    lastGridPoint = (time, interval, point)
    return point
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
