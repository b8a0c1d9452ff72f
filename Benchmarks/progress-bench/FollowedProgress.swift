import Foundation
import Synchronization
@_spi(Benchmarks) import TaskProgress
import TaskProgressFoundation

/// The case about `Foundation.Progress` followed by a reporter: what the thread that updates the
/// progress pays, and how often the main actor hears from the run.
extension Measure {
  /// The updates each run of (r) makes: 10 million, 1 million with `--quick`.
  nonisolated static func followedUpdates(quick: Bool) -> Int {
    quick ? 1_000_000 : 10_000_000
  }

  /// (r) A `Foundation.Progress` set `n` times from a thread of its own while the run's reporter
  /// follows it, next to `report(completed:of:)` loops of `n` on the same kind of thread, and
  /// the costs of `Progress` itself.
  ///
  /// Three runs, on the system clock with the default update interval and instant animation,
  /// so that no animation frame counts; each run's operation starts a `Thread` that makes the
  /// `n` updates and waits for it to end:
  ///
  /// - the followed run: `reporter.follow(progress)`, then `progress.completedUnitCount = i`
  ///   for `i` in `1...n`; its measurements under their own names;
  /// - the plain run: `reporter.report(completed: i, of: n)`, under `plain...`; it ends in a
  ///   few frames, since a report costs a few nanoseconds;
  /// - the matched run: the plain run's report, and the followed run's set on a `Progress`
  ///   that nobody follows, in every update, under `matched...`: a run of reports that lasts
  ///   as long as the followed one, so that the two can have the same number of frames.
  ///
  /// Each run counts the states its observer saw (`deliveries`), the updates an attached
  /// renderer received, frames included (`rendered`), the frame timer's wake-ups (`frames`)
  /// and its time from the call of `run` to its end (`run`). Beside them, in nanoseconds per
  /// update: a set on a `Progress` nobody follows (`progressSetCost`), and on the child of a
  /// parent (`childSetCost`), on a thread of their own; the followed run's set
  /// (`followedSetCost`) and the plain run's report (`reportCost`); and, on the main actor, the
  /// reads one poll of a followed progress makes (`pollReadCost`).
  static func followedProgress(n: Int) async -> Metrics {
    var metrics = await threadRun(n: n, loop: .followed)
    for (loop, prefix) in [(ThreadLoop.plain, "plain"), (.matched, "matched")] {
      let run = await threadRun(n: n, loop: loop)
      for (key, value) in run {
        metrics[prefix + key.prefix(1).uppercased() + key.dropFirst()] = value
      }
    }
    // A set on a child costs several times what a set costs: a tenth of the updates will do.
    let childSets = max(1, n / 10)
    metrics["updates"] = Double(n)
    metrics["progressSetCost"] = await timedSets(n: n, underAParent: false) / Double(n)
    metrics["childSetCost"] =
      await timedSets(n: childSets, underAParent: true) / Double(childSets)
    metrics["followedSetCost"] = metrics["wall"].map { $0 / Double(n) }
    metrics["reportCost"] = metrics["plainWall"].map { $0 / Double(n) }
    let reads = 1_000_000
    metrics["pollReadCost"] = progressReads(count: reads) / Double(reads)
    let finished = [metrics["finished"], metrics["plainFinished"], metrics["matchedFinished"]]
    metrics["finished"] = finished.allSatisfy { $0 == 1 } ? 1 : 0
    return metrics
  }

  /// What the thread of a run of (r) does in each update.
  private enum ThreadLoop {
    /// Sets a `Progress` the run's reporter follows.
    case followed
    /// Reports to the run's reporter.
    case plain
    /// Reports to the run's reporter, and sets a `Progress` nobody follows.
    case matched
  }

  /// One run whose operation waits for a loop of `n` updates on a `Thread` of its own.
  private static func threadRun(n: Int, loop: ThreadLoop) async -> Metrics {
    let renderer = CountingRenderer()
    var runTime: Int64 = 0
    var metrics = await observedRun(timesLoop: true) { runner, span in
      let token = runner.attach(renderer)
      // Not the update that attaching delivers at once.
      (renderer.updates, renderer.frames) = (0, 0)
      let start = nowNanoseconds()
      let outcome = await runner.run { reporter in
        let progress = Progress(totalUnitCount: Int64(n))
        switch loop {
        case .followed:
          reporter.follow(progress)
          await onThread {
            span.begin()
            for index in 1...n {
              progress.completedUnitCount = Int64(index)
            }
            span.end()
          }
        case .plain:
          await onThread {
            span.begin()
            for index in 1...n {
              reporter.report(completed: index, of: n)
            }
            span.end()
          }
        case .matched:
          await onThread {
            span.begin()
            for index in 1...n {
              reporter.report(completed: index, of: n)
              progress.completedUnitCount = Int64(index)
            }
            span.end()
          }
        }
        precondition(
          progress.completedUnitCount == (loop == .plain ? 0 : Int64(n)), "the thread lost sets")
      }
      runTime = nowNanoseconds() - start
      token.cancel()
      return outcome
    }
    metrics["rendered"] = Double(renderer.updates)
    metrics["renderedFrames"] = Double(renderer.frames)
    metrics["run"] = Double(runTime)
    return metrics
  }

  /// The time of `n` sets of `completedUnitCount` on a `Progress` nobody observes, on a thread
  /// of its own; with `underAParent`, on a child added to a parent with `addChild`, so that every
  /// set updates the parent's fraction too.
  private static func timedSets(n: Int, underAParent: Bool) async -> Double {
    let progress = Progress(totalUnitCount: Int64(n))
    let parent = Progress(totalUnitCount: 1)
    if underAParent {
      parent.addChild(progress, withPendingUnitCount: 1)
    }
    let wall = Atomic<Int64>(0)
    await onThread {
      let start = nowNanoseconds()
      for index in 1...n {
        progress.completedUnitCount = Int64(index)
      }
      wall.store(nowNanoseconds() - start, ordering: .relaxed)
    }
    precondition(progress.completedUnitCount == Int64(n), "Foundation.Progress lost sets")
    precondition(!underAParent || parent.fractionCompleted == 1, "the parent did not follow")
    return Double(wall.load(ordering: .relaxed))
  }

  /// The time of `count` reads, on the main actor, of what one poll of a followed progress
  /// reads: its flags, its counts and its fraction.
  private static func progressReads(count: Int) -> Double {
    let progress = Progress(totalUnitCount: 1_000)
    progress.completedUnitCount = 500
    var sum = 0.0
    let start = nowNanoseconds()
    for _ in 0..<count {
      if !progress.isCancelled, !progress.isFinished, !progress.isIndeterminate {
        sum += Double(progress.completedUnitCount + progress.totalUnitCount)
        sum += progress.fractionCompleted
      }
    }
    let wall = Double(nowNanoseconds() - start)
    precondition(sum == Double(count) * 1_500.5, "the reads were not made")
    return wall
  }

  /// Runs `body` on a new `Thread`, as code written before Swift concurrency updates a
  /// `Progress`, and returns when it ends.
  nonisolated static func onThread(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
      Thread {
        body()
        ended.resume()
      }.start()
    }
  }
}

/// A renderer that counts the updates it receives, and the frames among them.
@MainActor
final class CountingRenderer: ProgressRenderer {
  /// The updates received since this was last set to 0.
  var updates = 0
  /// The updates among them that were frames.
  var frames = 0

  /// Counts the update.
  func render(_ update: ProgressUpdate) {
    updates += 1
    if update.reason == .frame {
      frames += 1
    }
  }
}

extension Report {
  /// The target of (r), judged on its matched run.
  ///
  /// For the observer's states and for the renderer's updates, how far the followed run went
  /// over what its matched run allows, the most over every run, negative when under. Both runs
  /// deliver about one state per frame, so the matched run's count is scaled to the followed
  /// run's length first: a slow spell of the machine during one of the two runs of a child
  /// process makes that run longer, and its count with it. The allowance is
  /// `matched x (followed run / matched run) x 1.1 + 2`.
  var followedTargets: [Target] {
    let excess = [("states", "deliveries"), ("renderer updates", "rendered")].map { label, key in
      let matchedKey = "matched" + key.prefix(1).uppercased() + key.dropFirst()
      let excess = runs(.followedProgress).compactMap { run -> Double? in
        guard let followed = run[key], let matched = run[matchedKey], let length = run["run"],
          let matchedLength = run["matchedRun"], matchedLength > 0
        else { return nil }
        return followed - (matched * length / matchedLength * 1.1 + 2)
      }
      return (label, excess.max())
    }
    return [
      Target(
        "(r) A Progress followed while a thread sets it "
          + "\(Format.size(Measure.followedUpdates(quick: options.quick))) times costs the main "
          + "actor no more deliveries than a report() loop as long, the matched run: states and "
          + "renderer updates <= matched x (followed run time / matched run time) x 1.1 + 2 "
          + "(every run)",
        excess, { $0 <= 0 },
        { $0 > 0 ? "\(Format.number($0, "%.1f")) over" : "\(Format.number(-$0, "%.1f")) under" })
    ]
  }

  /// The lines of (r): the three runs side by side, and what an update costs.
  var followedProgressLines: [String] {
    let value = { (key: String) in median(.followedProgress, 0, key) }
    guard let updates = value("updates") else { return [] }
    let header = [
      "run", "loop", "ns/update", "run time", "states", "states/s", "renderer", "frames",
      "bound",
    ]
    let rows = [
      ("followed Progress", ""), ("plain report()", "plain"),
      ("report() + a Progress nobody follows", "matched"),
    ].map { name, prefix in
      let run = { (key: String) in
        value(prefix.isEmpty ? key : prefix + key.prefix(1).uppercased() + key.dropFirst())
      }
      return [name, Format.duration(run("wall"))]
        + [Format.number(run("wall").map { $0 / updates }, "%.2f")]
        + [Format.duration(run("run")), Format.count(run("deliveries"))]
        + [Format.number(combine(run("deliveries"), run("run")) { $0 / $1 * 1e9 }, "%.1f")]
        + ["rendered", "frames", "bound"].map { Format.count(run($0)) }
    }
    return [
      "",
      "(r) \(BenchCase.followedProgress.tagAndTitle.title): \(Format.count(updates)) updates on a "
        + "Thread in each run, on the system clock at the default update interval.",
      Format.table([header] + rows, leftAligned: 1),
      "  ns per update: Progress.completedUnitCount set with no observer "
        + Format.number(value("progressSetCost"), "%.1f") + ", followed "
        + Format.number(value("followedSetCost"), "%.1f") + ", on a child under a parent "
        + Format.number(value("childSetCost"), "%.1f") + "; report(completed:of:) "
        + Format.number(value("reportCost"), "%.2f") + ".",
      "  main actor: one poll's reads of the Progress (flags, counts, fraction) "
        + Format.number(value("pollReadCost"), "%.1f ns") + ", one per frame: "
        + Format.microseconds(combine(value("pollReadCost"), value("frames"), *))
        + " over the followed run's " + Format.count(value("frames")) + " frames.",
      """
      loop: the thread's updates; run time: from the call of run to its end. states: the \
      observer's calls; renderer: the updates an attached renderer received, a frame on every \
      update interval and each new state; bound: ceil(run / \(Format.duration(interval))) + 3. \
      The plain run ends within a few frames, so its states are mostly the start and the end; \
      the matched run makes the plain run's report and the followed run's set in every update, \
      so that it lasts about as long as the followed run: the target compares the two, the \
      matched run's counts scaled by the ratio of the two runs' times.
      """,
    ]
  }
}
