import Foundation
import Synchronization
import TaskProgress

/// The cases about the progress tree: a child's reports, `complete(count:)` alone and from many
/// tasks, a frame over many live children, and counts above 2^31.
extension Measure {
  /// (c') One relaxed `wrappingAdd` per item into an atomic on the heap: the floor for
  /// `complete(count:)`, which is one atomic read-modify-write.
  static func atomicAdds(n: Int) async -> Metrics {
    let counter = Counter.make()
    let wall = await Task.detached {
      let start = nowNanoseconds()
      for _ in 0..<n {
        counter.value.wrappingAdd(1, ordering: .relaxed)
      }
      return nowNanoseconds() - start
    }.value
    // The sum is read back, so the loop cannot go.
    precondition(counter.value.load(ordering: .acquiring) == n, "the atomic lost additions")
    return ["wall": Double(wall)]
  }

  /// (c'8) (c') from 8 concurrent tasks: the floor for (l).
  ///
  /// The `n` additions are split evenly over the tasks, all on one atomic: what the hardware
  /// makes of one counter that several cores add to. Timed from the first task's first addition
  /// to the last task's last one.
  static func contendedAtomicAdds(n: Int) async -> Metrics {
    let counter = Counter.make()
    let span = Span()
    await Task.detached {
      await withDiscardingTaskGroup { group in
        for task in 0..<8 {
          group.addTask {
            span.begin()
            for _ in (n * task / 8)..<(n * (task + 1) / 8) {
              counter.value.wrappingAdd(1, ordering: .relaxed)
            }
            span.end()
          }
        }
      }
    }.value
    precondition(counter.value.load(ordering: .acquiring) == n, "the atomic lost additions")
    let marks = span.times
    return ["wall": Double(marks.lastEnd - marks.firstStart)]
  }

  /// (j) A child's `report(completed:of:)` in a loop, and beside it the same loop on the run's
  /// own reporter.
  ///
  /// The child is started from the run's reporter with
  /// `subprogress(assigningCount: 1).start(totalCount: n)` and reports `i` of `n` for `i` in
  /// `1...n`; only the loop is timed, as in (d). `rootReports` is the same loop on the run's own
  /// reporter. Both loops are the same code, so that their ratio is what a child costs; (d), a loop
  /// written differently, can differ by the code the compiler makes of it.
  static func childReporterLoop(n: Int) async -> Metrics {
    await onAChildBesideTheRoot(rootKey: "rootReports") { await reportLoop(n: n, onAChild: $0) }
  }

  /// `report(completed: i, of: n)` for `i` in `1...n` in one run, on the run's reporter or on a
  /// child of it; only the loop is timed.
  private static func reportLoop(n: Int, onAChild: Bool) async -> Metrics {
    await observedRun(timesLoop: true) { runner, span in
      await runner.run { root in
        let reporter = onAChild ? root.subprogress(assigningCount: 1).start(totalCount: n) : root
        // A synchronous closure, as (d)'s loop is: the same loop in the async operation itself
        // can keep its state in the task's frame and cost more per report.
        let loop: @Sendable () -> Void = {
          span.begin()
          for index in 0..<n {
            reporter.report(completed: index + 1, of: n)
          }
          span.end()
        }
        loop()
      }
    }
  }

  /// (n) (d) with the counts of a 5 GiB file in bytes, totals and counts above 2^31, and
  /// beside it the same loop with small counts, `smallCounts`.
  ///
  /// Both loops are the same code, `report(completed: index + 1, of: total)` for the last `n`
  /// indices below `total`, with a `total` of 5 GiB or of `n`: only the size of the numbers
  /// differs. (A loop written differently from (d)'s can cost a nanosecond or two more or less
  /// per report by the code the compiler makes of it, whatever the numbers.)
  static func byteCountLoop(n: Int) async -> Metrics {
    let small = await countLoop(n: n, total: n)
    var metrics = await countLoop(n: n, total: 5 << 30)
    metrics["smallCounts"] = small["wall"]
    return metrics
  }

  /// (o) `report(message:)` with the text the run shows already, `n` times, on a text too long
  /// to be stored inline (`longText`) and a short one (`wall`); beside them, the same loop with
  /// `report(completed:of:)` (`plainReports`), and with a new text on every call out of 64
  /// (`changedText`), which takes the board's lock each time.
  static func messageLoop(n: Int) async -> Metrics {
    let texts = (0..<64).map { "Hashing IMG_\(1000 + $0).jpg" }
    let long = "Hashing the photo library, folder 2026-11 (holiday)"
    // Each loop is written out, as (d)'s is: a closure called per report would cost more than
    // the report.
    var metrics = await messages { reporter in
      for _ in 0..<n { reporter.report(message: "Hashing") }
    }
    metrics["longText"] = await messages { reporter in
      for _ in 0..<n { reporter.report(message: long) }
    }["wall"]
    metrics["plainReports"] = await messages { reporter in
      for index in 0..<n { reporter.report(completed: index + 1, of: n) }
    }["wall"]
    metrics["changedText"] = await messages { reporter in
      for index in 0..<n { reporter.report(message: texts[index & 63]) }
    }["wall"]
    return metrics
  }

  /// `loop(reporter)` in one run, after one report of a message; only the loop is timed.
  private static func messages(
    _ loop: @escaping @Sendable (TaskRunner.Reporter) -> Void
  ) async -> Metrics {
    await observedRun(timesLoop: true) { runner, span in
      await runner.run { reporter in
        reporter.report(message: "Hashing")
        span.begin()
        loop(reporter)
        span.end()
      }
    }
  }

  /// `report(completed: index + 1, of: total)` for `index` in `total - n ..< total` in one run;
  /// only the loop is timed.
  private static func countLoop(n: Int, total: Int) async -> Metrics {
    await observedRun(timesLoop: true) { runner, span in
      await runner.run { reporter in
        // A synchronous closure, as (d)'s loop is (see `reportLoop`).
        let loop: @Sendable () -> Void = {
          span.begin()
          for index in (total - n)..<total {
            reporter.report(completed: index + 1, of: total)
          }
          span.end()
        }
        loop()
      }
    }
  }

  /// (k) and (l): `n` calls of `complete(count: 1)` on the run's reporter, whose total is `n`,
  /// split evenly over `tasks` concurrent tasks; timed from the first task's first call to the
  /// last task's last one.
  static func completeLoop(n: Int, tasks: Int) async -> Metrics {
    await observedRun(timesLoop: true) { runner, span in
      await runner.run { reporter in
        reporter.report(totalCount: n)
        let completeSlice: @Sendable (Int) -> Void = { task in
          span.begin()
          for _ in (n * task / tasks)..<(n * (task + 1) / tasks) {
            reporter.complete(count: 1)
          }
          span.end()
        }
        if tasks == 1 {
          completeSlice(0)
        } else {
          await withDiscardingTaskGroup { group in
            for task in 0..<tasks {
              group.addTask { completeSlice(task) }
            }
          }
        }
        // Every completion counted: the run's last state shows n of n.
        precondition(reporter.progress == RunProgress(completed: n, of: n), "lost completions")
      }
    }
  }

  /// The live children of (m).
  nonisolated static let drainedChildren = 10_000
  /// The children of (m) that move before each frame.
  nonisolated static let movedPerFrame = 10
  /// The depth of (m)'s chain.
  nonisolated static let chainDepth = 1_000

  /// (m) One runner frame over a run whose reporter has 10,000 started, unfinished children,
  /// each at 50 of 100 units, 10 of which moved since the last frame; the same frame when none
  /// moved; frames over a chain of subprogresses 1,000 levels deep, unchanged and with its leaf
  /// moved; and a read of `progress` on a standalone reporter with the 10,000 children.
  ///
  /// The runner runs on a `ManualClock`, so that a frame is `advance(by:)` one update interval
  /// on the main actor: it reads the tree, publishes the new state to one observer and moves the
  /// display, as a frame on the system clock does. Medians over `frames` frames after a warm-up.
  static func drainFrame(frames: Int) async -> Metrics {
    var metrics: Metrics = ["children": Double(drainedChildren)]
    let wide = await frameTimes(frames: frames) { root in
      let children = startHalfDoneChildren(of: root)
      var moves = 0
      return { changes in
        guard changes else { return }
        for _ in 0..<movedPerFrame {
          children[moves % children.count].complete(count: 1)
          moves += 1
        }
      }
    }
    metrics["frame"] = wide.changed[wide.changed.count / 2]
    metrics["frameP90"] = wide.changed[wide.changed.count * 9 / 10]
    metrics["frameMax"] = wide.changed[wide.changed.count - 1]
    metrics["unchangedFrame"] = wide.unchanged[wide.unchanged.count / 2]
    metrics["deliveries"] = wide.deliveries

    let deep = await frameTimes(frames: frames) { root in
      var chain = [root]
      for _ in 0..<chainDepth {
        // Each level is its child alone, so that the leaf's moves show at the root.
        chain.append(chain[chain.count - 1].subprogress(assigningCount: 1).start(totalCount: 1))
      }
      let leaf = chain[chain.count - 1]
      var step = 0
      return { changes in
        _ = chain  // the chain lives as long as the frames
        guard changes else { return }
        step += 1
        leaf.report(completed: step % 999, of: 1000)
      }
    }
    metrics["deepChangedFrame"] = deep.changed[deep.changed.count / 2]
    metrics["deepUnchangedFrame"] = deep.unchanged[deep.unchanged.count / 2]

    let standalone = TaskRunner.Reporter()
    let standaloneChildren = startHalfDoneChildren(of: standalone)
    var reads: [Double] = []
    var sum = 0.0
    for read in -20..<frames {
      let start = nowNanoseconds()
      sum += standalone.progress.fractionCompleted ?? 0
      if read >= 0 {
        reads.append(Double(nowNanoseconds() - start))
      }
    }
    precondition(sum > 0 && standaloneChildren.count == drainedChildren, "nothing was read")
    reads.sort()
    metrics["progressRead"] = reads[reads.count / 2]
    metrics["finished"] = wide.finished && deep.finished ? 1 : 0
    return metrics
  }

  /// The sorted times of `frames` runner frames after a change made by `move(true)` before each,
  /// and of `frames` more with no change (`move(false)`), over a run whose tree `build` makes
  /// from its reporter; whether every changed frame published a new state and the run finished.
  private static func frameTimes(
    frames: Int,
    build: (TaskRunner.Reporter) -> (Bool) -> Void
  ) async -> (changed: [Double], unchanged: [Double], deliveries: Double, finished: Bool) {
    let clock = ManualClock()
    let runner = TaskRunner(animation: .instant, updateInterval: updateInterval, clock: clock)
    let tally = Tally(observing: runner)
    let handedOut = Mutex<TaskRunner.Reporter?>(nil)
    let (release, releaser) = AsyncStream<Void>.makeStream()
    let run = Task {
      await runner.run { reporter in
        handedOut.withLock { $0 = reporter }
        for await _ in release {}
      }
    }
    var root = handedOut.withLock { $0 }
    while root == nil {
      await Task.yield()
      root = handedOut.withLock { $0 }
    }
    guard let root else { return ([0], [0], 0, false) }
    let move = build(root)

    var changed: [Double] = []
    var unchanged: [Double] = []
    for frame in -20..<(2 * frames) {
      let changes = frame < frames
      move(changes)
      let start = nowNanoseconds()
      clock.advance(by: updateInterval)
      let time = Double(nowNanoseconds() - start)
      if frame >= 0 && changes {
        changed.append(time)
      } else if frame >= frames + 2 {
        // Two frames after the last change: the first of them still reads what changed.
        unchanged.append(time)
      }
    }
    let deliveries = tally.deliveries.count
    releaser.finish()
    let outcome = await run.value
    tally.stop()
    return (
      changed.sorted(), unchanged.sorted(), Double(deliveries),
      outcome == .finished && deliveries >= frames
    )
  }

  /// Starts the children of (m) under `reporter`, each at 50 of 100 units.
  private static func startHalfDoneChildren(
    of reporter: TaskRunner.Reporter
  ) -> [TaskRunner
    .Reporter]
  {
    (0..<drainedChildren).map { _ in
      let child = reporter.subprogress(assigningCount: 1).start(totalCount: 100)
      child.report(completed: 50, of: 100)
      return child
    }
  }
}

extension Report {
  /// The name of the target of (k), which the report explains when it fails.
  static let completeTargetName = "(k) complete(count: 1) is within 4x of the raw atomic store (c)"

  /// The name of the target of (l), which the report explains when it fails.
  static let contendedTargetName =
    "(l) 8 tasks completing one reporter keep at least half the completions per second of one "
    + "task (k): wall (l) / wall (k) for the same N in total"

  /// The targets of (j) to (o).
  var compositionTargets: [Target] {
    [
      Target(
        "(j) A child's report() is within 1.5x of the run's own reporter's, in the same loop",
        perSize { ratio(.childReporter, $0, to: "rootReports") }, { $0 <= 1.5 }, Format.ratio),
      Target(
        Self.completeTargetName, perSize { ratio(.complete, .atomic, $0) }, { $0 <= 4 },
        Format.ratio),
      Target(
        Self.contendedTargetName,
        perSize { ratio(.completeX8, .complete, $0) }, { $0 <= 2 }, Format.ratio),
      Target(
        "(m) One runner frame over \(Format.count(Double(Measure.drainedChildren))) live "
          + "children, \(Measure.movedPerFrame) of which moved, takes at most 50 µs (median frame)",
        [("frame", median(.drain, 0, "frame"))], { $0 <= 50_000 }, Format.microseconds),
      Target(
        "(m) A frame over an unchanged chain \(Format.count(Double(Measure.chainDepth))) levels "
          + "deep takes at most 2 µs (median frame)",
        [("deepUnchangedFrame", median(.drain, 0, "deepUnchangedFrame"))], { $0 <= 2_000 },
        Format.microseconds),
      Target(
        "(n) report() with counts above 2^31 (a 5 GiB file in bytes) is within 1.2x of the same "
          + "loop with small counts",
        perSize { ratio(.bytes, $0, to: "smallCounts") }, { $0 <= 1.2 }, Format.ratio),
      Target(
        "(o) report(message:) with the text the run shows already costs at most 1.5x a "
          + "report(completed:of:) in the same loop (short text; long text in the table below)",
        perSize { ratio(.message, $0, to: "plainReports") }, { $0 <= 1.5 }, Format.ratio),
    ]
  }

  /// The ratios of (j) to (o) at size `n` that are not targets.
  func compositionRatios(_ n: Int) -> [Comparison] {
    [
      (
        "(j) vs (d)", ratio(.childReporter, .reporter, n),
        "a child's report() in (j)'s loop takes this many times as long as (d)'s root report()"
      ),
      (
        "(c') vs (c)", ratio(.atomicAdd, .atomic, n),
        "a raw Atomic<Int>.wrappingAdd takes this many times as long as a store"
      ),
      (
        "(k) vs (c')", ratio(.complete, .atomicAdd, n),
        "complete(count: 1) takes this many times as long as a raw wrappingAdd"
      ),
      (
        "(c'8) vs (c')", ratio(.atomicAddX8, .atomicAdd, n),
        "8 tasks adding to one atomic take this many times as long as 1 for the same N"
      ),
      (
        "(l) vs (c'8)", ratio(.completeX8, .atomicAddX8, n),
        "8 tasks completing one reporter take this many times as long as 8 raw adders"
      ),
      (
        "(o) short text", perItem(.message, n),
        "ns per unchanged report(message:) of a 7-byte text, kept by its bytes"
      ),
      (
        "(o) long text", perItem(.message, n, "longText"),
        "ns per unchanged report(message:) of a 51-byte text, kept by its storage's address"
      ),
      (
        "(o) changed text", perItem(.message, n, "changedText"),
        "ns per report(message:) with a new text each call (one lock each)"
      ),
      (
        "(o) plain", perItem(.message, n, "plainReports"),
        "ns per report(completed:of:) in (o)'s loop"
      ),
      (
        "(n) vs (d)", ratio(.bytes, .reporter, n),
        "(n)'s loop with counts above 2^31 takes this many times as long as (d)'s, a loop "
          + "written differently"
      ),
    ]
  }

  /// The medians of (m).
  var drainDetails: [String] {
    let times = [
      "frame", "frameP90", "frameMax", "unchangedFrame", "deepChangedFrame", "deepUnchangedFrame",
      "progressRead",
    ]
    return detailLine(
      .drain, ["children"] + times + ["deliveries"], times: Set(times),
      in: Format.microseconds)
  }

  /// What the medians of (m) are; it follows ``poolNote``.
  static let drainNote = """
    (m) frame: one runner frame, measured as ManualClock.advance(by:) one update interval on the \
    main actor (read the tree, publish the state to one observer), over a run whose reporter has \
    10,000 started, unfinished children at 50/100, ten of them moving before each frame; median, \
    90th percentile and worst of 200 frames (50 with --quick). unchangedFrame: the same frame \
    when nothing moved, which keeps the last reading of the tree. deepChangedFrame and \
    deepUnchangedFrame: frames over a chain of subprogresses 1,000 levels deep, with the leaf \
    moved before each and with nothing moved. progressRead: the median time of \
    reporter.progress on a standalone reporter with the 10,000 children, which reads them all.
    """

  /// Why (k) and (l) miss their targets when they do: what atomic additions cost here.
  var compositionNotes: [String] {
    let failed = { (name: String) in
      targets.contains { $0.name == name && $0.status == "FAIL" }
    }
    let complete = sizes.compactMap { n -> String? in
      guard let add = ratio(.atomicAdd, .atomic, n), let complete = ratio(.complete, .atomicAdd, n)
      else { return nil }
      return "at N=\(Format.size(n)) the raw wrappingAdd (c') costs \(Format.number(add, "%.1fx"))"
        + " the store (c), and complete(count: 1) (k) \(Format.ratio(complete)) the add"
    }
    let contended = sizes.compactMap { n -> String? in
      guard let raw = ratio(.atomicAddX8, .atomicAdd, n),
        let x8 = ratio(.completeX8, .atomicAddX8, n)
      else { return nil }
      return "at N=\(Format.size(n)) 8 tasks of raw wrappingAdd (c'8) take "
        + "\(Format.ratio(raw)) as long as one (c'), and (l) \(Format.ratio(x8)) as long as (c'8)"
    }
    let completeNote = """
        Why (k) misses 4x the store: complete(count:) is one atomic read-modify-write, by design, \
      so that concurrent workers never lose a count. On x86-64 that is a lock-prefixed \
      instruction (lock xadd), which costs several nanoseconds against well under one for a \
      plain store, whatever the code around it does; the floor that matters for (k) is the raw \
      add (c'). Here \(complete.isEmpty ? "(c') did not run" : complete.joined(separator: "; ")).
      """
    let contendedNote = """
        Why (l) misses 2x: every completion is an atomic add to the reporter's one counter, so \
      that none is lost. When tasks on different cores add to one counter, each add waits for \
      the cache line to move between the cores, whatever the code around it does. Here \
      \(contended.isEmpty ? "(c'8) did not run" : contended.joined(separator: "; ")).
      """
    return (failed(Self.completeTargetName) ? [completeNote] : [])
      + (failed(Self.contendedTargetName) ? [contendedNote] : [])
  }
}
