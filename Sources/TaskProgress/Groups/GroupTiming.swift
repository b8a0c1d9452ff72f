/// How long some run of a group has been running, and how fast the group's work goes.
///
/// The stopwatch and the estimator are an ``ActiveRate``, as a run's are; this type adds what only
/// a group has: its position, the work of every runner added up, and a clock that runs while some
/// run is running, so that it stops only once every run under way is paused.
struct GroupTiming {
  /// The time during which some run was running, and the speed of the group's work over it.
  private var rate = ActiveRate()
  /// The work done while the group was followed: every runner's advances, added up.
  private var work = 0.0

  /// Starts or stops the running time at `now`.
  mutating func setRunning(_ running: Bool, at now: Duration) {
    if running {
      rate.start(at: now)
    } else {
      rate.stop(at: now)
    }
  }

  /// Records the group's position: a sample while some run is running; otherwise a move that
  /// the speed leaves out.
  ///
  /// `isActive` says whether some run is under way, running or paused; the estimate begins at
  /// the first position recorded while one is.
  mutating func record(advance: Double, isActive: Bool, at now: Duration) {
    if advance.isFinite {
      work += advance
    }
    if isActive {
      rate.record(work, at: now)
    } else {
      rate.skip(to: work, at: now)
    }
  }

  /// The speed and the time `remaining` units take at it, while some run is under way.
  func estimate(remaining: Double, isActive: Bool, at now: Duration) -> ActiveRate.Estimate {
    guard isActive else { return .unknown }
    return rate.estimate(remaining: remaining, at: now)
  }
}
