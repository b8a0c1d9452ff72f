import Synchronization

/// A clock whose time moves only when you advance it, for tests that never wait in real time.
///
/// Give it to a ``TaskRunner`` and advance it by hand: every frame that falls due up to the new
/// time runs, in order, before ``advance(by:)`` returns. So coalescing, animation and anything a
/// renderer draws become plain functions of the time you set:
///
/// ```swift
/// import TaskProgress
/// import Testing
///
/// @MainActor @Test func barGlidesToTheReportedValue() async {
///   let clock = ManualClock()
///   let runner = TaskRunner(animation: ProgressAnimation(curve: .linear), clock: clock)
///   // ... the operation reports 0.5 and waits ...
///   clock.advance(by: .seconds(1) / 60)     // the runner reads the report
///   clock.advance(by: .milliseconds(175))   // half of the 0.35 s linear animation
///   #expect(abs(runner.displayedProgress - 0.25) < 1e-9)
/// }
/// ```
public final class ManualClock: Clock, Sendable {
  /// A point in the manual clock's time: an offset from its start.
  public struct Instant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// The time since the clock's start.
    public var offset: Duration

    /// Creates an instant at an offset from the clock's start.
    public init(offset: Duration = .zero) {
      self.offset = offset
    }

    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    /// The time from this instant to `other`.
    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }

    /// The offset, such as `0.25 seconds`.
    public var description: String {
      offset.description
    }
  }

  private enum Wake: Sendable {
    /// A task suspended in `sleep`.
    case sleeper(CheckedContinuation<Void, any Error>)
    /// A runner's frame, run on the main actor inside `advance`.
    case timer(@MainActor @Sendable () -> Void)
  }

  private struct Scheduled: Sendable {
    var id: UInt64
    var deadline: Instant
    var wake: Wake
  }

  private struct State: Sendable {
    var now: Instant
    var lastID: UInt64 = 0
    var scheduled: [Scheduled] = []
    /// Sleepers that have an id but have not stored their continuation yet.
    var registering: Set<UInt64> = []
    /// Sleepers cancelled while registering.
    var cancelledWhileRegistering: Set<UInt64> = []

    mutating func makeID() -> UInt64 {
      lastID += 1
      return lastID
    }

    /// Removes and returns the earliest entry due by `deadline`, oldest first among equals.
    mutating func popDue(by deadline: Instant) -> Scheduled? {
      var best: Int?
      for index in scheduled.indices where scheduled[index].deadline <= deadline {
        if let current = best, scheduled[current].deadline <= scheduled[index].deadline {
          continue
        }
        best = index
      }
      guard let best else { return nil }
      let due = scheduled.remove(at: best)
      now = max(now, due.deadline)
      return due
    }
  }

  private let state: Locked<State>

  /// Creates a clock that starts at `now`.
  public init(now: Instant = Instant()) {
    state = Locked(State(now: now))
  }

  /// The current time, which moves only through ``advance(by:)`` and ``advance(to:)``.
  public var now: Instant {
    state.withLock { $0.now }
  }

  /// The smallest step the clock can take: any.
  public var minimumResolution: Duration {
    .zero
  }

  /// The number of things waiting for the clock to reach a deadline: the tasks sleeping on it, and
  /// the frame timer that all its runners share while any of them needs frames.
  ///
  /// Zero means nothing would wake if the clock moved: use it to assert that an idle runner
  /// costs nothing.
  public var scheduledWakeUps: Int {
    state.withLock { $0.scheduled.count }
  }

  /// Suspends until the clock is advanced to `deadline`, or throws `CancellationError` when the
  /// task is cancelled first.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let id = state.withLock { state in
      let id = state.makeID()
      state.registering.insert(id)
      return id
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let outcome: Result<Void, any Error>? = state.withLock { state in
          state.registering.remove(id)
          if state.cancelledWhileRegistering.remove(id) != nil {
            return .failure(CancellationError())
          }
          if deadline <= state.now {
            return .success(())
          }
          state.scheduled.append(
            Scheduled(id: id, deadline: deadline, wake: .sleeper(continuation)))
          return nil
        }
        if let outcome {
          continuation.resume(with: outcome)
        }
      }
    } onCancel: {
      let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
        if state.registering.contains(id) {
          state.cancelledWhileRegistering.insert(id)
          return nil
        }
        guard let index = state.scheduled.firstIndex(where: { $0.id == id }),
          case .sleeper(let continuation) = state.scheduled.remove(at: index).wake
        else { return nil }
        return continuation
      }
      continuation?.resume(throwing: CancellationError())
    }
  }

  /// Moves the time forward by `duration`, waking everything due on the way, in deadline order.
  ///
  /// Runner frames due on the way run before this returns, each at its own deadline, and so do
  /// the frames they schedule within the span. A negative duration does nothing.
  @MainActor
  public func advance(by duration: Duration) {
    advance(to: now.advanced(by: max(duration, .zero)))
  }

  /// Moves the time forward to `deadline`, waking everything due on the way, in deadline order.
  ///
  /// A deadline in the past does nothing.
  @MainActor
  public func advance(to deadline: Instant) {
    while let due = state.withLock({ $0.popDue(by: deadline) }) {
      switch due.wake {
      case .sleeper(let continuation): continuation.resume()
      case .timer(let action): action()
      }
    }
    state.withLock { $0.now = max($0.now, deadline) }
  }

  /// Schedules `action` to run on the main actor inside the `advance` call that reaches
  /// `deadline`; returns an id for ``cancelTimer(_:)``.
  func scheduleTimer(
    at deadline: Instant, _ action: @escaping @MainActor @Sendable () -> Void
  ) -> UInt64 {
    state.withLock { state in
      let id = state.makeID()
      state.scheduled.append(Scheduled(id: id, deadline: deadline, wake: .timer(action)))
      return id
    }
  }

  /// Cancels a timer that has not run yet.
  func cancelTimer(_ id: UInt64) {
    state.withLock { state in
      state.scheduled.removeAll { $0.id == id }
    }
  }
}
