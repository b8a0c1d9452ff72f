/// One thing the benchmark measures, in a child process of its own so that its peak memory is
/// its own; each round runs the cases in this order.
enum BenchCase: String, CaseIterable, Encodable {
  case empty
  case stream
  case foundationProgress = "foundation-progress"
  case atomic
  case reporter
  case runOver = "run-over"
  case handLoop = "hand-loop"
  case reporterX2 = "reporter-x2"
  case reporterX8 = "reporter-x8"
  case atomicAdd = "atomic-add"
  case atomicAddX8 = "atomic-add-x8"
  case childReporter = "child-reporter"
  case complete
  case completeX8 = "complete-x8"
  case drain
  case bytes
  case message
  case group
  case bars
  case followedProgress = "follow-progress"
  case saturated
  case saturatedCheckpoints = "saturated-checkpoints"
  case many
  case manyBare = "many-bare"
  case busy
  case idle
  case childComplete = "child-complete"
  case queue
  case queueBare = "queue-bare"
  case manyChildren = "children"
  case manyChildrenRare = "children-rare"
  case manyItems = "items"
  case manyItemsUnwatched = "items-unwatched"
  case manyItemsBare = "items-bare"
  case groupQueue = "group-queue"
  case groupQueueBare = "group-queue-bare"

  /// The short name the report uses, and what the case measures.
  var tagAndTitle: (tag: String, title: String) {
    switch self {
    case .empty: ("empty", "empty child (baseline RSS)")
    case .stream: ("a", "AsyncStream + Task per value")
    case .foundationProgress: ("b", "Foundation.Progress += 1")
    case .atomic: ("c", "Atomic<Int>.store (floor)")
    case .reporter: ("d", "Reporter.report, 1 task")
    case .runOver: ("e", "run(over:) no-op items")
    case .handLoop: ("e'", "run {} hand-written loop")
    case .reporterX2: ("f2", "Reporter.report, 2 tasks")
    case .reporterX8: ("f8", "Reporter.report, 8 tasks")
    case .atomicAdd: ("c'", "Atomic<Int>.wrappingAdd (floor)")
    case .atomicAddX8: ("c'8", "Atomic<Int>.wrappingAdd, 8 tasks")
    case .childReporter: ("j", "child Reporter.report, 1 task")
    case .complete: ("k", "Reporter.complete(count: 1)")
    case .completeX8: ("l", "complete(count: 1), 8 tasks")
    case .drain: ("m", "a frame over 10,000 children")
    case .bytes: ("n", "Reporter.report, counts > 2^31")
    case .message: ("o", "report(message:), unchanged text")
    case .group: ("p", "N runners in a group: one frame")
    case .bars: ("q", "TerminalGroupRenderer, 50 bars")
    case .followedProgress: ("r", "Reporter.follow(Progress), set from a thread")
    case .saturated: ("g", "8 tasks report for 0.5 s")
    case .saturatedCheckpoints: ("g'", "(g) + checkpoint() every 4,096")
    case .many: ("h", "N runners, 5 ms sleep steps")
    case .manyBare: ("h'", "N bare tasks + one ticker")
    case .busy: ("i", "busy pool, one run, no checkpoint")
    case .idle: ("idle", "idle runner wake-ups")
    case .childComplete: ("k'", "child Reporter.complete(count: 1)")
    case .queue: ("s", "queue of trivial runs in a group, drawn")
    case .queueBare: ("s0", "queue of trivial runs, no group")
    case .manyChildren: ("t", "N unfinished children, frames at 60 Hz")
    case .manyChildrenRare: ("t0", "N unfinished children, frames every 60 s")
    case .manyItems: ("h10", "N runners, run(over:) 10 ms items, observed")
    case .manyItemsUnwatched: ("h10u", "N runners, run(over:) 10 ms items")
    case .manyItemsBare: ("h10'", "N bare tasks, 10 ms sleeps + one ticker")
    case .groupQueue: ("u", "group.run(items, maxConcurrency: 8), drawn")
    case .groupQueueBare: ("u0", "task group, 8 no-op items at a time")
    }
  }

  /// The short name the report uses, such as `d` or `f8`.
  var tag: String { tagAndTitle.tag }

  /// Whether `name`, from `--cases`, selects this case: its name, its tag, or the name of the
  /// case it is a variant of.
  func isSelected(by name: String) -> Bool {
    name == rawValue || name == tag || rawValue.hasPrefix(name + "-")
  }

  /// The sizes the case runs at; 0 for the cases that do not scale.
  func sizes(_ options: Options) -> [Int] {
    switch self {
    case .stream: options.streamAtLargeSize ? options.sizes : [options.sizes[0]]
    case .many, .manyBare: [1, 100, 400, 1000]
    case .group: [10, 100, 1000]
    case .queue, .queueBare: Report.queueSizes
    case .manyChildren, .manyChildrenRare:
      options.quick ? [8_000, 64_000] : [8_000, 64_000, 1_000_000]
    case .manyItems, .manyItemsUnwatched, .manyItemsBare: [100, 400]
    case .childComplete: options.sizes
    case .groupQueue, .groupQueueBare: Report.groupQueueSizes
    case .foundationProgress, .atomic, .reporter, .runOver, .handLoop, .reporterX2, .reporterX8,
      .atomicAdd, .atomicAddX8, .childReporter, .complete, .completeX8, .bytes, .message:
      options.sizes
    case .empty, .saturated, .saturatedCheckpoints, .busy, .idle, .drain, .bars,
      .followedProgress:
      [0]
    }
  }

  /// How many rounds the case runs in: all of them, but at most 3 for the many-runner cases,
  /// whose children take seconds each.
  func runs(_ options: Options) -> Int {
    [.many, .manyBare].contains(self) ? min(options.runs, 3) : options.runs
  }

  /// Whether the case observes one runner's run, so that its deliveries, latency and outcome
  /// are held to the targets.
  var isObservedRun: Bool {
    [
      .reporter, .runOver, .handLoop, .reporterX2, .reporterX8, .saturated, .saturatedCheckpoints,
      .busy,
    ].contains(self)
  }

  /// Measures the case at size `n` after a warm-up, in this process.
  ///
  /// The warm-up pages in the code, starts the pool's threads and lets the allocators reach the
  /// memory the measurement reuses, so that what is measured is the steady state: a first run of
  /// 1M no-op items in a fresh process is about a third slower than the next. The tight loops,
  /// which take milliseconds, measure 5 times and keep the median wall time, so that one
  /// preemption on a shared machine does not decide a run.
  @MainActor
  func measureInThisProcess(n: Int, quick: Bool) async -> Metrics {
    let measure: @MainActor (Int) async -> Metrics
    switch self {
    case .empty: return [:]
    case .saturated, .saturatedCheckpoints:
      return await Measure.saturatedPool(checkpoints: self == .saturatedCheckpoints)
    case .busy: return await Measure.busyPool()
    case .idle: return await Measure.idle(seconds: quick ? 1 : 2)
    case .drain: return await Measure.drainFrame(frames: quick ? 50 : 200)
    case .queue, .queueBare:
      _ = await Measure.queue(n: min(n, 1000), grouped: self == .queue)
      return await Measure.queue(n: n, grouped: self == .queue)
    case .manyChildren, .manyChildrenRare:
      _ = await Measure.manyChildren(n: min(n, 8000), frequentFrames: self == .manyChildren)
      return await Measure.manyChildren(n: n, frequentFrames: self == .manyChildren)
    case .groupQueue, .groupQueueBare:
      _ = await Measure.groupQueue(n: 1000, bare: self == .groupQueueBare)
      return await Measure.groupQueue(n: n, bare: self == .groupQueueBare)
    case .manyItems, .manyItemsUnwatched, .manyItemsBare:
      let mode: Measure.ManyItemsMode =
        self == .manyItems ? .watched : self == .manyItemsBare ? .bare : .unwatched
      return await Measure.manyItems(n: n, mode: mode)
    case .group: return await Measure.groupFrames(n: n, frames: quick ? 50 : 200)
    case .bars: return await Measure.groupRendering(drawnFrames: quick ? 50 : 200)
    case .followedProgress:
      // One measurement after a warm-up: the three runs take seconds in all.
      let updates = Measure.followedUpdates(quick: quick)
      _ = await Measure.followedProgress(n: updates / 10)
      return await Measure.followedProgress(n: updates)
    case .many, .manyBare:
      _ = await Measure.many(n: n, bare: self == .manyBare, steps: 20)
      return await Measure.many(n: n, bare: self == .manyBare, steps: quick ? 100 : 400)
    case .stream: measure = Measure.stream
    case .foundationProgress: measure = Measure.foundationProgress
    case .atomic: measure = Measure.atomicStores
    case .reporter: measure = { await Measure.reporterLoop(n: $0, tasks: 1) }
    case .reporterX2: measure = { await Measure.reporterLoop(n: $0, tasks: 2) }
    case .reporterX8: measure = { await Measure.reporterLoop(n: $0, tasks: 8) }
    case .runOver: measure = Measure.runOver
    case .handLoop: measure = Measure.handLoop
    case .atomicAdd: measure = Measure.atomicAdds
    case .atomicAddX8: measure = Measure.contendedAtomicAdds
    case .childReporter: measure = Measure.childReporterLoop
    case .complete: measure = { await Measure.completeLoop(n: $0, tasks: 1) }
    case .completeX8: measure = { await Measure.completeLoop(n: $0, tasks: 8) }
    case .childComplete: measure = Measure.childCompleteLoop
    case .bytes: measure = Measure.byteCountLoop
    case .message: measure = Measure.messageLoop
    }
    _ = await measure(min(n, max(10_000, n / 10)))
    let repetitions = [.stream, .runOver, .handLoop].contains(self) ? 1 : 5
    var samples: [Metrics] = []
    for _ in 0..<repetitions {
      samples.append(await measure(n))
    }
    return samples.sorted { $0["wall", default: 0] < $1["wall", default: 0] }[repetitions / 2]
  }
}

/// One child process's measurements, by name; times are in nanoseconds.
typealias Metrics = [String: Double]
