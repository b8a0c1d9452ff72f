import Foundation
import Synchronization
import TaskProgress

/// The instant every timestamp in a process is measured from.
private let epoch = ContinuousClock.now

/// The time since the process's first timestamp, in nanoseconds.
///
/// Timestamps taken on different threads compare directly: a task notes the instant of its last
/// report, and an observer on the main actor subtracts it from its own.
func nowNanoseconds() -> Int64 {
  let elapsed = epoch.duration(to: .now).components
  return elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000
}

/// The longest time between two consecutive `times`, or 0 with fewer than two.
func longestGap(_ times: [Int64]) -> Int64 {
  zip(times.dropFirst(), times).map { $0 - $1 }.max() ?? 0
}

/// An atomic counter on the heap, shared between tasks as a progress counter is.
final class Counter: Sendable {
  /// The count.
  let value = Atomic<Int>(0)

  /// Makes a counter out of line, so that it cannot live on the stack, where the optimizer may
  /// see that nothing else reads it and delete the stores.
  @inline(never)
  static func make() -> Counter {
    Counter()
  }
}

/// When one or more concurrent loops began and ended, in ``nowNanoseconds()``.
final class Span: Sendable {
  private let marks = Mutex(
    (firstStart: Int64.max, lastStart: Int64.min, firstEnd: Int64.max, lastEnd: Int64.min))

  /// Marks a loop beginning now.
  func begin() {
    let now = nowNanoseconds()
    marks.withLock {
      ($0.firstStart, $0.lastStart) = (min($0.firstStart, now), max($0.lastStart, now))
    }
  }

  /// Marks a loop ending now, after its last report.
  func end() {
    let now = nowNanoseconds()
    marks.withLock { ($0.firstEnd, $0.lastEnd) = (min($0.firstEnd, now), max($0.lastEnd, now)) }
  }

  /// The first and the last time a loop began, and the first and the last time one ended.
  var times: (firstStart: Int64, lastStart: Int64, firstEnd: Int64, lastEnd: Int64) {
    marks.withLock { $0 }
  }
}

/// What one observer of a runner received on the main actor, and when.
@MainActor
final class Tally {
  /// Every call but the one `observe` makes at once, which reports the state before the run.
  private(set) var deliveries: [(at: Int64, state: RunState)] = []
  private var token: ObservationToken?

  /// Observes `runner`.
  init(observing runner: TaskRunner) {
    token = runner.observe { [weak self] in self?.deliveries.append((nowNanoseconds(), $0)) }
    deliveries.removeAll()
  }

  /// The first terminal state, and when it arrived.
  var end: (at: Int64, state: RunState)? { deliveries.first { $0.state.phase.isTerminal } }

  /// Stops observing.
  func stop() {
    token = nil
  }
}

/// The CPU time, user and system, this process has used, in nanoseconds.
func cpuNanoseconds() -> Double {
  var usage = rusage()
  getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  let times = [usage.ru_utime, usage.ru_stime].map {
    Double($0.tv_sec) * 1e9 + Double($0.tv_usec) * 1e3
  }
  return times[0] + times[1]
}

/// This process's peak resident set size (`VmHWM` in `/proc/self/status`), in bytes.
func peakResidentBytes() -> Double? {
  let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
  let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
  return line?.split(separator: " ").dropFirst().first.flatMap { Double($0) }.map { $0 * 1024 }
}
