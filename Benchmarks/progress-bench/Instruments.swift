import Synchronization
import TaskProgress

/// The instant every timestamp in a process is measured from.
private let epoch = ContinuousClock.now

/// The time since the process's first timestamp, in nanoseconds on the continuous clock.
///
/// Timestamps taken on different threads compare directly, so one task can store the instant of
/// its last report in an atomic and an observer on the main actor can subtract it from its own.
func nowNanoseconds() -> Int64 {
  epoch.duration(to: .now).nanosecondsInt64
}

extension Duration {
  /// The duration in nanoseconds, with its fraction.
  var nanoseconds: Double {
    Double(components.seconds) * 1e9 + Double(components.attoseconds) * 1e-9
  }

  /// The duration in whole nanoseconds.
  var nanosecondsInt64: Int64 {
    components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
  }
}

/// A no-op async item: the stand-in for the seed's `try await object.someTask()`.
///
/// Not inlined, so every call is a real call to a nonisolated async function, as a user's
/// `someTask()` in another file would be.
@inline(never)
func noOp() async {}

/// Counts the calls a ``CountingClock`` receives, from any thread.
final class WakeUpCounter: Sendable {
  private let sleepCalls = Atomic<Int>(0)
  private let sleepReturns = Atomic<Int>(0)

  /// The number of `sleep` calls so far: one per frame the runner scheduled.
  var sleeps: Int { sleepCalls.load(ordering: .acquiring) }

  /// The number of `sleep` calls that returned, normally or cancelled: one per wake-up.
  var wakeUps: Int { sleepReturns.load(ordering: .acquiring) }

  func sleepBegan() {
    sleepCalls.add(1, ordering: .releasing)
  }

  func sleepEnded() {
    sleepReturns.add(1, ordering: .releasing)
  }
}

/// The continuous clock, with every `sleep` counted: a runner built on it shows how often it
/// schedules a frame, and so how often it wakes the main actor.
///
/// A ``TaskRunner`` on any clock other than a `ManualClock` runs each frame from a main-actor task
/// that sleeps on the clock until the frame's deadline, so one `sleep` is one scheduled frame.
struct CountingClock: Clock {
  typealias Instant = ContinuousClock.Instant

  /// Where the calls are counted.
  let counter: WakeUpCounter
  private let base = ContinuousClock()

  init(counter: WakeUpCounter) {
    self.counter = counter
  }

  var now: Instant { base.now }

  var minimumResolution: Duration { base.minimumResolution }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    counter.sleepBegan()
    defer { counter.sleepEnded() }
    try await base.sleep(until: deadline, tolerance: tolerance)
  }
}

/// What an operation running off the main actor measures and hands back to the benchmark.
final class OperationProbe: Sendable {
  private let loop = Atomic<Int64>(0)
  private let lastReport = Atomic<Int64>(0)
  private let reports = Atomic<Int>(0)

  /// How many reports the operation made, when it counted them itself.
  var reportCount: Int { reports.load(ordering: .acquiring) }

  /// How long the timed loop took, in nanoseconds.
  var loopNanoseconds: Int64 { loop.load(ordering: .acquiring) }

  /// When the last report was made, as ``nowNanoseconds()`` measures it.
  var lastReportAt: Int64 { lastReport.load(ordering: .acquiring) }

  func recordLoop(_ duration: Duration) {
    loop.store(duration.nanosecondsInt64, ordering: .releasing)
  }

  func recordLastReport() {
    lastReport.store(nowNanoseconds(), ordering: .releasing)
  }

  func recordReports(_ count: Int) {
    reports.store(count, ordering: .releasing)
  }
}

/// Counts the states a runner delivers to one observer, notes the longest silence between two
/// of them, and when the observer saw the run end.
@MainActor
final class DeliveryTally {
  /// The observer's calls after the one `observe` makes at once: progress deliveries plus
  /// transitions.
  private(set) var deliveries = 0
  /// The longest time between two deliveries, in nanoseconds: how long observers went without
  /// news of the run.
  private(set) var longestGap: Int64 = 0
  /// When the observer saw a terminal state, as ``nowNanoseconds()`` measures it.
  private(set) var endedAt: Int64?
  /// The terminal state the observer saw.
  private(set) var terminalState: RunState?
  private var lastDeliveryAt: Int64?
  private var token: ObservationToken?

  /// Observes `runner`; the call `observe` makes at once is not counted.
  init(observing runner: TaskRunner) {
    token = runner.observe { [weak self] state in
      self?.record(state)
    }
    deliveries = 0
    lastDeliveryAt = nil
  }

  /// Stops observing.
  func stop() {
    token?.cancel()
    token = nil
  }

  private func record(_ state: RunState) {
    let now = nowNanoseconds()
    deliveries += 1
    if let lastDeliveryAt {
      longestGap = max(longestGap, now - lastDeliveryAt)
    }
    lastDeliveryAt = now
    switch state.phase {
    case .finished, .failed, .cancelled:
      if endedAt == nil {
        endedAt = now
        terminalState = state
      }
    case .idle, .running:
      break
    }
  }
}

/// The span from the first of several tasks starting its loop to the last one ending it.
final class ReportingWindow: Sendable {
  private let firstStart = Atomic<Int64>(.max)
  private let lastEnd = Atomic<Int64>(.min)

  /// Marks a task's loop starting now.
  func begin() {
    firstStart.min(nowNanoseconds(), ordering: .relaxed)
  }

  /// Marks a task's loop ending now.
  func end() {
    lastEnd.max(nowNanoseconds(), ordering: .relaxed)
  }

  /// The span from the first start to the last end.
  var duration: Duration {
    .nanoseconds(lastEnd.load(ordering: .relaxed) - firstStart.load(ordering: .relaxed))
  }
}

/// `0..<n` that notes the time in a probe as iteration reaches its last item: the moment the
/// last item starts, a no-op before its report, without any code in the item closure.
struct ProbedRange: RandomAccessCollection, Sendable {
  let base: Range<Int>
  let probe: OperationProbe

  init(_ base: Range<Int>, probe: OperationProbe) {
    self.base = base
    self.probe = probe
  }

  var startIndex: Int { base.lowerBound }
  var endIndex: Int { base.upperBound }

  subscript(position: Int) -> Int { position }

  func index(after index: Int) -> Int {
    let next = index + 1
    if next == base.upperBound {
      probe.recordLastReport()
    }
    return next
  }

  func index(before index: Int) -> Int { index - 1 }
}
