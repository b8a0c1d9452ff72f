import Foundation
import Synchronization
@_spi(Benchmarks) import TaskProgress

/// The measurements of the cases that scale with N: what a report costs, and what the pattern
/// TaskProgress replaces costs.
///
/// Loops run off the main actor, as a runner's operation does, and count with values captured
/// from outside: a loop on the main thread over a stack-allocated atomic measures something
/// else, since the optimizer may unroll it or delete it.
@MainActor
enum Measure {
  /// The runners' update interval: the default, one frame at 60 Hz.
  nonisolated static let updateInterval: Duration = .seconds(1) / 60
  /// The update interval in nanoseconds.
  nonisolated static let intervalNanoseconds = 1e9 / 60

  /// (a) The blog's pipeline, timed until the main-actor model holds 1.0.
  static func stream(n: Int) async -> Metrics {
    let view = StreamView()
    let start = nowNanoseconds()
    view.performTask(totalObjectCount: n)
    // Until every queued main-actor task has run, so that all of them are counted.
    while view.fullAt == nil || view.deliveries < n {
      try? await Task.sleep(for: .milliseconds(1))
    }
    let fullAt = view.fullAt ?? 0
    return [
      "wall": Double(fullAt - start), "deliveries": Double(view.deliveries),
      "latency": Double(fullAt - view.lastYieldAt),
    ]
  }

  /// (b) `completedUnitCount += 1` per item on a `Foundation.Progress`.
  static func foundationProgress(n: Int) async -> Metrics {
    let wall = await Task.detached {
      let progress = Progress(totalUnitCount: Int64(n))
      let start = nowNanoseconds()
      for _ in 0..<n {
        progress.completedUnitCount += 1
      }
      let wall = nowNanoseconds() - start
      // Reading the result keeps the loop alive.
      precondition(progress.completedUnitCount == Int64(n), "Foundation.Progress lost increments")
      return wall
    }.value
    return ["wall": Double(wall)]
  }

  /// (c) One releasing store per item into an atomic on the heap: the floor for any reporting.
  static func atomicStores(n: Int) async -> Metrics {
    let counter = Counter.make()
    let wall = await Task.detached {
      let start = nowNanoseconds()
      for index in 1...n {
        counter.value.store(index, ordering: .releasing)
      }
      return nowNanoseconds() - start
    }.value
    // The stored values depend on the index and are read back, so the loop cannot go.
    precondition(counter.value.load(ordering: .acquiring) == n, "the atomic lost stores")
    return ["wall": Double(wall)]
  }

  /// (d) and (f): `n` reports in one run, split evenly over `tasks` concurrent tasks.
  ///
  /// Timed from the first task's first report to the last task's last one, so that creating a
  /// task group does not count as reporting.
  static func reporterLoop(n: Int, tasks: Int) async -> Metrics {
    await observedRun(timesLoop: true) { runner, span in
      await runner.run { reporter in
        let reportSlice: @Sendable (Int) -> Void = { task in
          span.begin()
          for index in (n * task / tasks)..<(n * (task + 1) / tasks) {
            reporter.report(completed: index + 1, of: n)
          }
          span.end()
        }
        if tasks == 1 {
          reportSlice(0)
        } else {
          await withDiscardingTaskGroup { group in
            for task in 0..<tasks {
              group.addTask { reportSlice(task) }
            }
          }
        }
      }
    }
  }

  /// (e) `run(over: 0..<n)` with a no-op async item, from the call until the observer sees the
  /// end.
  static func runOver(n: Int) async -> Metrics {
    await observedRun { runner, span in
      // The item has exactly the blog's shape, `{ object in try await object.someTask() }`: any
      // other code in it, even a capture, costs 30-50 ns per item, so the collection notes the
      // time of the last item instead.
      await runner.run(over: ProbedRange(count: n, span: span)) { _ in await noOp() }
    }
  }

  /// (e') The work of (e) written by hand: a cancellation check, the no-op item and a report.
  static func handLoop(n: Int) async -> Metrics {
    await observedRun { runner, span in
      await runner.run { reporter in
        for item in 0..<n {
          if reporter.isCancelled { throw CancellationError() }
          await noOp()
          reporter.report(completed: item + 1, of: n)
        }
        span.end()
      }
    }
  }

  /// Runs `body` against a fresh runner with instant animation, so that no animation frame
  /// counts, and measures what reached one observer on the main actor.
  ///
  /// `body` marks in the span when its loops began and ended, and returns how the run ended. The
  /// wall time is the span of the loops with `timesLoop`, else from the start of the run until
  /// the observer saw it end. With `busyWindow`, it also measures the longest time without a
  /// `.running` update while all the loops ran, from the last one's start to the first one's end,
  /// edges included, so that a window without any update counts whole.
  static func observedRun(
    timesLoop: Bool = false, busyWindow: Bool = false,
    _ body: (TaskRunner, Span) async -> RunState
  ) async -> Metrics {
    let runner = TaskRunner(animation: .instant, updateInterval: updateInterval)
    let tally = Tally(observing: runner)
    let span = Span()
    let framesBefore = TaskRunner.systemFrameWakeUps
    let start = nowNanoseconds()
    let outcome = await body(runner, span)
    let frames = TaskRunner.systemFrameWakeUps - framesBefore
    tally.stop()

    let (end, marks) = (tally.end, span.times)
    let endedAt = end?.at ?? nowNanoseconds()
    let endToEnd = Double(endedAt - start)
    var metrics = [
      "wall": timesLoop ? Double(marks.lastEnd - marks.firstStart) : endToEnd,
      "deliveries": Double(tally.deliveries.count), "frames": Double(frames),
      // One delivery per interval the run lasted, plus the transitions: `running(0)`, and the
      // end, which delivers the run's last report, if no frame did, before the final state.
      "bound": (endToEnd / intervalNanoseconds).rounded(.up) + 3,
      "latency": Double(endedAt - marks.lastEnd),
      "maxGap": Double(longestGap(tally.deliveries.map(\.at))),
      "finished": end?.state == .finished && outcome == .finished ? 1 : 0,
    ]
    if busyWindow, marks.lastStart < marks.firstEnd {
      let updates = tally.deliveries.filter { $0.state.phase == .running }.map(\.at)
        .filter { $0 > marks.lastStart && $0 < marks.firstEnd }
      metrics["busy"] = Double(marks.firstEnd - marks.lastStart)
      metrics["busyUpdates"] = Double(updates.count)
      metrics["busyGap"] = Double(longestGap([marks.lastStart] + updates + [marks.firstEnd]))
    }
    return metrics
  }
}

/// A no-op async item: the stand-in for the blog's `try await object.someTask()`.
///
/// Not inlined, so that every call is a real call to a nonisolated async function, as a user's
/// `someTask()` in another file would be.
@inline(never)
func noOp() async {}

/// `0..<count`, which marks the span's end as iteration reaches the last item, so that the item
/// closure needs no code of its own.
struct ProbedRange: RandomAccessCollection, Sendable {
  /// The number of items.
  let count: Int
  /// Where the last item is marked.
  let span: Span

  var startIndex: Int { 0 }
  var endIndex: Int { count }

  subscript(position: Int) -> Int { position }

  func index(after index: Int) -> Int {
    if index + 1 == count {
      span.end()
    }
    return index + 1
  }

  func index(before index: Int) -> Int { index - 1 }
}

/// The blog's view, minus SwiftUI: its `performTask()` as written, and the
/// `@State private var progress` it draws.
///
/// Like a SwiftUI view it is isolated to the main actor, so the worker `Task { ... }` inherits the
/// main actor, as in the blog. Only the measurements are added.
@MainActor
final class StreamView {
  /// The value the progress view draws.
  private var progress: Float = 0
  /// How many main-actor tasks have stored a value into ``progress``.
  private(set) var deliveries = 0
  /// When the bar first showed 100 %.
  private(set) var fullAt: Int64?
  /// When the worker yielded its last value.
  private(set) var lastYieldAt: Int64 = 0

  /// The blog's `performTask()`, with no-op objects and `withAnimation` left out.
  func performTask(totalObjectCount: Int) {
    let (stream, continuation) = AsyncStream<Float>.makeStream()

    Task.detached {
      for await progress in stream {
        Task { @MainActor in
          self.progress = progress  // withAnimation { self.progress = progress }
          self.deliveries += 1
          if self.progress == 1, self.fullAt == nil {
            self.fullAt = nowNanoseconds()
          }
        }
      }
    }

    Task {
      defer { continuation.finish() }
      for index in 1...totalObjectCount {
        await noOp()  // try await object.someTask()
        continuation.yield(Float(index) / Float(totalObjectCount))
      }
      self.lastYieldAt = nowNanoseconds()
    }
  }
}

extension Report {
  /// The targets of (a) to (f), and those that every observed run is held to.
  var runnerTargets: [Target] {
    let observed = "every run of d, e, e', f, g, g', i"
    return [
      Target(
        "(d) report() costs at most 5 ns per call", perSize { perItem(.reporter, $0) },
        { $0 <= 5 }, { Format.number($0, "%.2f ns") }),
      Target(
        "(d) report() is within about 4x of the raw atomic store (c)",
        perSize { ratio(.reporter, .atomic, $0) }, { $0 <= 4 }, Format.ratio),
      Target(
        "(d) report() is at least 8x faster than Foundation.Progress (b)",
        perSize { ratio(.foundationProgress, .reporter, $0) }, { $0 >= 8 }, Format.ratio),
      Target(
        "(e) run(over:) is at least 100x faster than the AsyncStream pipeline (a)",
        [("N=\(Format.size(sizes[0]))", ratio(.stream, .runOver, sizes[0]))], { $0 >= 100 },
        Format.ratio),
      Target(
        "At most one main-actor delivery per update interval plus the transitions: the start, "
          + "and the end with the last report (\(observed))",
        worst { ($0["deliveries"] ?? 0) - ($0["bound"] ?? 0) }, { $0 <= 0 },
        { $0 > 0 ? "\(Format.count($0)) over the bound" : "\(Format.count(-$0)) under it" }),
      Target(
        "Memory flat: peak RSS grows by less than 1 MiB from N=\(Format.size(sizes[0])) to "
          + "N=\(Format.size(sizes[1])) (d, e, f)",
        [BenchCase.reporter, .runOver, .reporterX2, .reporterX8].map {
          let (low, high) = (median($0, sizes[0], "peakRSS"), median($0, sizes[1], "peakRSS"))
          return ("(\($0.tag))", combine(high, low, -))
        }, { $0 < 1_048_576 }, { Format.number($0, "%+.0f KiB", times: 1.0 / 1024) }),
      Target(
        "The final state reaches observers within one update interval (\(observed))",
        worst { $0["latency"] }, { $0 <= interval }, Format.duration),
      Target(
        "Observers hear from an active run at least every 2 update intervals, one of them slack "
          + "for timer jitter (every run of d, e, e', f, g')",
        worst(excluding: [.saturated, .busy]) { $0["maxGap"] }, { $0 <= 2 * interval },
        Format.duration),
      Target(
        "(f8) 8 concurrent reporters make at least as many reports per second as one (d)",
        perSize { ratio(.reporter, .reporterX8, $0) }, { $0 >= 1 }, Format.ratio),
    ]
  }

  /// The ratios of (a) to (f) at size `n` that are not targets.
  func runnerRatios(_ n: Int) -> [Comparison] {
    [
      (
        "(e') vs (a)", ratio(.stream, .handLoop, n),
        "the loop by hand reaches 100% this many times sooner"
      ),
      (
        "(e) vs (e')", ratio(.runOver, .handLoop, n),
        "run(over:) takes this many times as long as the loop by hand"
      ),
      (
        "(f2) vs (d)", ratio(.reporter, .reporterX2, n),
        "2 tasks make this many times as many reports per second as 1"
      ),
    ]
  }
}
