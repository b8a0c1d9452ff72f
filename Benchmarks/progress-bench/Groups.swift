import Synchronization
import TaskProgress

/// The cases about groups: what one frame of many runners and their group costs, and how often
/// the group sums them up.
extension Measure {
  /// (p) One wake-up of the frame ticker over `n` running runners, with and without a group.
  ///
  /// Two sets of `n` runners, each on a `ManualClock` of its own, each runner in a run that
  /// waits; the runners of the second set are in one `TaskRunnerGroup` on their clock, with a
  /// renderer attached that notes the group's events. Before each frame every runner reports a
  /// new count, so that every runner's frame has a new state to publish and the group a new sum;
  /// the frame is `clock.advance(by:)` one update interval on the main actor: every runner's
  /// frame, then the group's late pass, in one wake-up of the ticker. The frames of the two sets
  /// alternate, so that a slow spell hits both alike.
  ///
  /// Measures, per frame: the whole wake-up with the group (`frame`) and without it
  /// (`frameNoGroup`), and the group's pass alone (`groupPass`): from the renderer's last event
  /// of the last runner's frame to the `.frame` event that ends the pass. Counts the group's
  /// passes in every frame, `.frame` events, and the runners' updates it relayed.
  static func groupFrames(n: Int, frames: Int) async -> Metrics {
    let bare = await HeldRuns(count: n, clock: ManualClock())
    let clock = ManualClock()
    let group = TaskRunnerGroup(updateInterval: updateInterval, clock: clock)
    let grouped = await HeldRuns(count: n, clock: clock) { group.add($0) }
    let probe = PassProbe(lastRunner: grouped.runners[n - 1])
    group.attach(probe)

    var (times, bareTimes, passes) = ([Double](), [Double](), [Double]())
    var (fewestPasses, mostPasses) = (Int.max, Int.min)
    var (fewestUpdates, mostUpdates) = (Int.max, Int.min)
    var allRunning = true
    let warmUp = 20
    for frame in -warmUp..<frames {
      bare.reportStep(frame + warmUp + 1)
      var start = nowNanoseconds()
      bare.clock.advance(by: updateInterval)
      let bareTime = Double(nowNanoseconds() - start)

      grouped.reportStep(frame + warmUp + 1)
      let (passesBefore, updatesBefore) = (probe.passes, probe.updates)
      start = nowNanoseconds()
      clock.advance(by: updateInterval)
      let time = Double(nowNanoseconds() - start)
      guard frame >= 0 else { continue }
      times.append(time)
      bareTimes.append(bareTime)
      passes.append(Double(probe.passEndedAt - probe.lastRunnerAt))
      let (framePasses, updates) = (probe.passes - passesBefore, probe.updates - updatesBefore)
      (fewestPasses, mostPasses) = (min(fewestPasses, framePasses), max(mostPasses, framePasses))
      (fewestUpdates, mostUpdates) = (min(fewestUpdates, updates), max(mostUpdates, updates))
      allRunning = allRunning && probe.summary?.counts.running == n
    }
    let fraction = probe.summary?.fractionCompleted ?? 0
    let bareFinished = await bare.release()
    let finished = await grouped.release() && bareFinished

    times.sort()
    bareTimes.sort()
    passes.sort()
    return [
      "frame": times[times.count / 2], "frameP90": times[times.count * 9 / 10],
      "frameMax": times[times.count - 1], "frameNoGroup": bareTimes[bareTimes.count / 2],
      "groupPass": passes[passes.count / 2], "groupPassP90": passes[passes.count * 9 / 10],
      "passesMin": Double(fewestPasses), "passesMax": Double(mostPasses),
      "updatesMin": Double(fewestUpdates), "updatesMax": Double(mostUpdates),
      // Every run stayed running through every frame, the sums followed the reports, and every
      // run finished when released.
      "finished": finished && allRunning && fraction > 0 ? 1 : 0,
    ]
  }
}

/// Runners on one `ManualClock`, each in a run that waits until it is released, and the
/// reporters their runs handed out.
@MainActor
struct HeldRuns {
  /// The clock of every runner.
  let clock: ManualClock
  /// The runners, in the order they were made.
  let runners: [TaskRunner]
  /// The reporter of each runner's run, in the same order.
  let reporters: [TaskRunner.Reporter]
  /// The total count of every run.
  let total: Int
  private let releasers: [AsyncStream<Void>.Continuation]
  private let runs: [Task<RunState, Never>]

  /// Makes `count` runners with instant animation and the default update interval, hands each
  /// to `prepare` (to add it to a group, or set its unit), starts their runs and waits until
  /// every run has handed out its reporter.
  init(
    count: Int, clock: ManualClock, total: Int = 1_000_000,
    prepare: (TaskRunner) -> Void = { _ in }
  ) async {
    self.clock = clock
    self.total = total
    runners = (0..<count).map { _ in
      TaskRunner(animation: .instant, updateInterval: Measure.updateInterval, clock: clock)
    }
    runners.forEach(prepare)
    let handedOut = Mutex<[TaskRunner.Reporter?]>(Array(repeating: nil, count: count))
    var releasers: [AsyncStream<Void>.Continuation] = []
    var runs: [Task<RunState, Never>] = []
    for (index, runner) in runners.enumerated() {
      // A stream per run: one stream has one consumer.
      let (release, releaser) = AsyncStream<Void>.makeStream()
      releasers.append(releaser)
      runs.append(
        Task {
          await runner.run { reporter in
            handedOut.withLock { $0[index] = reporter }
            for await _ in release {}
          }
        })
    }
    self.releasers = releasers
    self.runs = runs
    let deadline = nowNanoseconds() + 60_000_000_000
    var reporters: [TaskRunner.Reporter] = []
    while reporters.count < count {
      try? await Task.sleep(for: .milliseconds(1))
      reporters = handedOut.withLock { $0.compactMap(\.self) }
      precondition(nowNanoseconds() < deadline, "the runs did not start within 60 s")
    }
    self.reporters = reporters
  }

  /// Every run reports `step` steps done, each run at a pace of its own, from 1 to 7 ten
  /// thousandths of its total per step, so that the reports differ from run to run and from
  /// frame to frame.
  func reportStep(_ step: Int) {
    let unit = max(1, total / 10_000)
    for (index, reporter) in reporters.enumerated() {
      reporter.report(completed: min(step * (1 + index % 7) * unit, total), of: total)
    }
  }

  /// Ends every run; returns whether each finished.
  func release() async -> Bool {
    for releaser in releasers {
      releaser.finish()
    }
    var finished = true
    for run in runs {
      finished = await run.value == .finished && finished
    }
    return finished
  }
}

/// A renderer of a group that notes when its passes end, and when the last runner's frame
/// relayed its last update: the time between the two is the group's pass.
@MainActor
final class PassProbe: GroupRenderer {
  /// The runner whose frame comes last in a wake-up: the one that joined the ticker last.
  private let lastRunner: ObjectIdentifier
  /// The `.frame` events so far: one per pass.
  private(set) var passes = 0
  /// The runners' updates relayed so far.
  private(set) var updates = 0
  /// When the last runner's latest update came, in ``nowNanoseconds()``.
  private(set) var lastRunnerAt: Int64 = 0
  /// When the latest pass ended, in ``nowNanoseconds()``.
  private(set) var passEndedAt: Int64 = 0
  /// The summary of the latest pass, once there was one.
  private(set) var summary: TaskRunnerGroup.Summary?

  /// A probe whose pass times start at `lastRunner`'s updates.
  init(lastRunner: TaskRunner) {
    self.lastRunner = ObjectIdentifier(lastRunner)
  }

  /// Counts the event, and notes the time of the ones that bound a pass.
  func render(_ event: TaskRunnerGroup.Event) {
    switch event {
    case .updated(let member, _):
      updates += 1
      if member.id == lastRunner {
        lastRunnerAt = nowNanoseconds()
      }
    case .frame(let summary, _, _):
      passEndedAt = nowNanoseconds()
      passes += 1
      self.summary = summary
    case .left:
      break
    }
  }
}

extension Report {
  /// The target of (p): one pass of the group in every frame of every run, at every N.
  var groupTargets: [Target] {
    let deviations = BenchCase.group.sizes(options).map { n in
      // The most the passes in one frame differed from 1, over every frame of every run.
      let deviation = runs(.group, n).compactMap { run in
        combine(run["passesMin"], run["passesMax"]) { max(abs($0 - 1), abs($1 - 1)) }
      }.max()
      return ("N=\(Format.count(Double(n)))", deviation)
    }
    return [
      Target(
        "(p) A group sums up its runners in exactly one pass per frame, at every N (every frame "
          + "of every run)",
        deviations, { $0 == 0 },
        { $0 == 0 ? "1 pass in every frame" : "off by up to \(Format.count($0))" })
    ]
  }

  /// The table of (p), one row per N, and its legend.
  var groupTable: [String] {
    let groupSizes = BenchCase.group.sizes(options).filter { median(.group, $0, "frame") != nil }
    guard !groupSizes.isEmpty else { return [] }
    let header = [
      "N", "wake-up", "p90", "no group", "group pass", "pass share", "group cost", "per runner",
      "passes/frame", "updates/frame",
    ]
    let table = groupSizes.map { n in
      let frame = median(.group, n, "frame")
      let pass = median(.group, n, "groupPass")
      let bare = median(.group, n, "frameNoGroup")
      return ["\(Format.count(Double(n)))"]
        + [frame, median(.group, n, "frameP90"), bare, pass].map(Format.microseconds)
        + [Format.percent(combine(pass, frame, /)), Format.microseconds(combine(frame, bare, -))]
        + [Format.number(frame.map { $0 / Double(n) }, "%.2f µs", times: 1e-3)]
        + ["passes", "updates"].map { key in
          // The fewest and the most over every run: `1` when they agree, `1-3` when they do not.
          let all = runs(.group, n)
          guard let low = all.compactMap({ $0[key + "Min"] }).min(),
            let high = all.compactMap({ $0[key + "Max"] }).max()
          else { return "-" }
          return low == high ? Format.count(low) : "\(Format.count(low))-\(Format.count(high))"
        }
    }
    return [
      "",
      "(p) N running runners on a ManualClock, each reporting before every frame, in one "
        + "TaskRunnerGroup; medians of one wake-up over \(options.quick ? 50 : 200) frames.",
      Format.table([header] + table, leftAligned: 0),
      """
      wake-up: ManualClock.advance(by:) one update interval: every runner's frame, then the \
      group's pass; p90: its 90th percentile. no group: the same wake-up over N runners in no \
      group, frames interleaved. group pass: the pass alone, from the last runner's last update \
      to the end of the pass; pass share: group pass / wake-up. group cost: wake-up - no \
      group, the pass and the runners' updates relayed to the group. per runner: wake-up / N. \
      passes/frame, updates/frame: the fewest and the most the group made and relayed in one \
      frame, over every run.
      """,
    ]
  }
}
