import Foundation
import Synchronization
import TaskProgress
import TaskProgressAdapters

// The cases that measure the shape of the cost as the size grows, in the cases a user has:
// observers attached, a renderer drawing, runners coming and going.

extension Measure {
  /// (s) and (s0): a queue of `n` trivial runs (`report(completed: 1, of: 1)`), 4 at a time, on
  /// `n` runners made up front; in (s) every runner was added to a group first, with a
  /// `TerminalGroupRenderer` drawing it to an in-memory terminal of 120 × 40, and `removeEnded()`
  /// called every 1,000 runs, as a tool that shows a bar per file does.
  ///
  /// Measures the wall time from the first run's start to the last run's end.
  static func queue(n: Int, grouped: Bool) async -> Metrics {
    let group = TaskRunnerGroup()
    let terminal = CountingTerminal(columns: 120, rows: 40)
    let renderer = TerminalGroupRenderer(output: terminal, restoresTerminalOnSignals: false)
    if grouped {
      group.attach(renderer)
    }
    let runners = (0..<n).map { _ in TaskRunner(animation: .instant) }
    if grouped {
      for (index, runner) in runners.enumerated() {
        group.add(runner, label: "file \(index)")
      }
    }
    let start = nowNanoseconds()
    var next = 0
    var ended = 0
    let workers = (0..<4).map { _ in
      Task { @MainActor in
        while next < n {
          let runner = runners[next]
          next += 1
          _ = await runner.run { reporter in reporter.report(completed: 1, of: 1) }
          ended += 1
          if grouped && ended % 1000 == 0 {
            group.removeEnded()
          }
        }
      }
    }
    for worker in workers {
      await worker.value
    }
    let wall = Double(nowNanoseconds() - start)
    let finished = runners.allSatisfy { $0.state == .finished }
    return [
      "wall": wall, "drawnBytes": Double(terminal.bytes),
      "finished": finished && (!grouped || terminal.bytes > 0) ? 1 : 0,
    ]
  }

  /// (t) and (t0): `n` children started under a run's reporter and left unfinished, while the
  /// runner's frames run at 60 Hz (t), or with an update interval of 60 s (t0).
  ///
  /// The children are started from a task while the main actor draws the frames; only their
  /// creation is timed.
  static func manyChildren(n: Int, frequentFrames: Bool) async -> Metrics {
    let runner = TaskRunner(
      animation: .instant, updateInterval: frequentFrames ? updateInterval : .seconds(60))
    let tally = Tally(observing: runner)
    let span = Span()
    let children = Mutex<[TaskRunner.Reporter]>([])
    let state = await runner.run { reporter in
      reporter.report(totalCount: n)
      // Synchronous, as (d)'s loop is, on a thread of the pool while the frames run on the main
      // thread.
      let make: @Sendable () -> [TaskRunner.Reporter] = {
        var made: [TaskRunner.Reporter] = []
        made.reserveCapacity(n)
        span.begin()
        for _ in 0..<n {
          let child = reporter.subprogress(assigningCount: 1).start(totalCount: 2)
          child.complete(count: 1)
          made.append(child)
        }
        span.end()
        return made
      }
      let made = make()
      children.withLock { $0 = made }
      // A frame reads them all before the end.
      try? await Task.sleep(for: updateInterval * 2)
      for child in made {
        child.complete(count: 1)
      }
    }
    tally.stop()
    let times = span.times
    return [
      "wall": Double(times.lastEnd - times.firstStart),
      "deliveries": Double(tally.deliveries.count),
      "finished": state == .finished && children.withLock { $0.count } == n ? 1 : 0,
    ]
  }

  /// (h10), (h10u) and (h10'): `n` runners each performing 100 items that sleep 10 ms through
  /// `run(over:)`, with `animation: .instant`, each watched by an `observe` callback that counts
  /// (h10) or unwatched (h10u); or `n` bare tasks doing the same sleeps and storing their counts
  /// in atomics that one ticker task on the main actor reads every update interval (h10').
  ///
  /// Measures the process's CPU time and wall time from the start of the work to its end.
  static func manyItems(n: Int, mode: ManyItemsMode) async -> Metrics {
    let items = 100
    let pace: Duration = .milliseconds(10)
    let cpuBefore = cpuNanoseconds()
    let start = nowNanoseconds()
    var finished = 0
    var heard = 0
    switch mode {
    case .bare:
      let progress = (0..<n).map { _ in Counter.make() }
      let done = Counter.make()
      let ticker = Task { @MainActor in
        var shown = 0
        while done.value.load(ordering: .acquiring) < n {
          try? await Task.sleep(for: updateInterval)
          shown = progress.reduce(0) { $0 + $1.value.load(ordering: .acquiring) }
        }
        return shown
      }
      await withDiscardingTaskGroup { group in
        for counter in progress {
          group.addTask {
            for item in 1...items {
              try? await Task.sleep(for: pace)
              counter.value.store(item, ordering: .releasing)
            }
            done.value.add(1, ordering: .releasing)
          }
        }
      }
      _ = await ticker.value
      finished = done.value.load(ordering: .relaxed)
    case .watched, .unwatched:
      let runners = (0..<n).map { _ in TaskRunner(animation: .instant) }
      var tokens: [ObservationToken] = []
      if mode == .watched {
        tokens = runners.map { runner in runner.observe { _ in heard += 1 } }
      }
      let runs = runners.map { runner in
        Task { @MainActor in
          await runner.run(over: 1...items) { _ in try await Task.sleep(for: pace) }
        }
      }
      for run in runs where await run.value == .finished {
        finished += 1
      }
      withExtendedLifetime(tokens) {}
    }
    return [
      "wall": Double(nowNanoseconds() - start), "cpu": cpuNanoseconds() - cpuBefore,
      "heard": Double(heard),
      "finished": finished == n && (mode != .watched || heard >= n * 2) ? 1 : 0,
    ]
  }

  /// What runs the items of (h10), (h10u) and (h10').
  enum ManyItemsMode {
    case watched, unwatched, bare
  }
}

extension Report {
  /// The sizes of (s) and (s0).
  static let queueSizes = [1_000, 8_000, 64_000]

  /// The targets of the scale cases.
  var scaleTargets: [Target] {
    let queueSizes = Self.queueSizes
    let perRun = { (benchCase: BenchCase, n: Int) in self.perItem(benchCase, n) }
    return [
      Target(
        "(s) A queue of N trivial runs, 4 at a time, in a group with a TerminalGroupRenderer, "
          + "grows linearly: the time per run at 64k is within 1.5x that at 1k",
        [
          (
            "64k/1k",
            combine(
              perRun(.queue, queueSizes[queueSizes.count - 1]), perRun(.queue, queueSizes[0]), /)
          )
        ], { $0 <= 1.5 }, Format.ratio),
      Target(
        "(s) The group and its renderer cost at most 1.3x the same runs without a group (s0)",
        queueSizes.map { ("N=\(Format.size($0))", ratio(.queue, .queueBare, $0)) }, { $0 <= 1.3 },
        Format.ratio),
      Target(
        "(s0) One trivial run costs at most 20 µs",
        queueSizes.map { ("N=\(Format.size($0))", perRun(.queueBare, $0)) }, { $0 <= 20_000 },
        Format.microseconds),
      Target(
        "(t) Creating N unfinished children while frames run at 60 Hz takes at most 1.5x what "
          + "it takes with frames every 60 s (t0)",
        BenchCase.manyChildren.sizes(options).map {
          ("N=\(Format.size($0))", ratio(.manyChildren, .manyChildrenRare, $0))
        }, { $0 <= 1.5 }, Format.ratio),
      Target(
        "(h10) 400 runners doing 100 items of 10 ms sleeps through run(over:), each with an "
          + "observe callback, cost at most 1.4x the CPU of bare tasks read by one ticker (h10')",
        [("N=400", ratio(.manyItems, .manyItemsBare, 400, "cpu"))], { $0 <= 1.4 }, Format.ratio),
    ]
  }

  /// The tables of the scale cases.
  var scaleTables: [String] {
    var lines: [String] = []
    let queueRows = Self.queueSizes.filter { median(.queue, $0) ?? median(.queueBare, $0) != nil }
    if !queueRows.isEmpty {
      let header = ["N", "s wall", "s per run", "s0 wall", "s0 per run", "s/s0"]
      let rows = queueRows.map { n in
        [
          Format.size(n), Format.duration(median(.queue, n)),
          Format.microseconds(perItem(.queue, n)), Format.duration(median(.queueBare, n)),
          Format.microseconds(perItem(.queueBare, n)), Format.ratio(ratio(.queue, .queueBare, n)),
        ]
      }
      lines += [
        "",
        "(s) a queue of N trivial runs, 4 at a time, every runner in a group with a "
          + "TerminalGroupRenderer drawing to a 120x40 terminal in memory, removeEnded() every "
          + "1,000 runs; (s0) the same runs without a group.",
        Format.table([header] + rows, leftAligned: 0),
      ]
    }
    let childRows = BenchCase.manyChildren.sizes(options).filter {
      median(.manyChildren, $0) ?? median(.manyChildrenRare, $0) != nil
    }
    if !childRows.isEmpty {
      let header = ["N", "t (60 Hz)", "t per child", "t0 (every 60 s)", "t0 per child", "t/t0"]
      let rows = childRows.map { n in
        [
          Format.size(n), Format.duration(median(.manyChildren, n)),
          Format.duration(perItem(.manyChildren, n)), Format.duration(median(.manyChildrenRare, n)),
          Format.duration(perItem(.manyChildrenRare, n)),
          Format.ratio(ratio(.manyChildren, .manyChildrenRare, n)),
        ]
      }
      lines += [
        "",
        "(t) N children started under a run's reporter and left unfinished while its frames run "
          + "at 60 Hz; (t0) the same with an update interval of 60 s. Only the creation is timed.",
        Format.table([header] + rows, leftAligned: 0),
      ]
    }
    let itemRows = BenchCase.manyItems.sizes(options).filter {
      median(.manyItems, $0, "cpu") ?? median(.manyItemsBare, $0, "cpu") != nil
    }
    if !itemRows.isEmpty {
      let header = [
        "N", "h10 CPU", "h10u CPU", "h10' CPU", "CPU h10/h10'", "CPU h10u/h10'", "h10 wall",
        "h10' wall",
      ]
      let rows = itemRows.map { n in
        [
          "\(n)", Format.duration(median(.manyItems, n, "cpu")),
          Format.duration(median(.manyItemsUnwatched, n, "cpu")),
          Format.duration(median(.manyItemsBare, n, "cpu")),
          Format.ratio(ratio(.manyItems, .manyItemsBare, n, "cpu")),
          Format.ratio(ratio(.manyItemsUnwatched, .manyItemsBare, n, "cpu")),
          Format.duration(median(.manyItems, n)), Format.duration(median(.manyItemsBare, n)),
        ]
      }
      lines += [
        "",
        "(h10) N runners each doing 100 items of 10 ms sleeps through run(over:), animation "
          + ".instant, each with an observe callback that counts; (h10u) the same unwatched; "
          + "(h10') N bare tasks doing the same sleeps, read by one ticker on the main actor at "
          + "60 Hz. CPU is user + system, medians of \(min(options.runs, 5)).",
        Format.table([header] + rows, leftAligned: 0),
      ]
    }
    return lines
  }
}

extension Measure {
  /// (k') `n` calls of `complete(count: 1)` on a child started from the run's reporter with
  /// `subprogress(assigningCount: 1).start(totalCount: n + 1)`, and beside it the same loop on
  /// the run's own reporter (`rootCompletes`); only the loops are timed.
  static func childCompleteLoop(n: Int) async -> Metrics {
    await onAChildBesideTheRoot(rootKey: "rootCompletes") { await completes(n: n, onAChild: $0) }
  }

  /// What `measure` measures on a child (`true`), with the wall time of the same measurement on
  /// the run's own reporter (`false`) under `rootKey`: measured first, in the same process.
  static func onAChildBesideTheRoot(
    rootKey: String, _ measure: (Bool) async -> Metrics
  ) async -> Metrics {
    let root = await measure(false)
    var metrics = await measure(true)
    metrics[rootKey] = root["wall"]
    return metrics
  }

  /// `complete(count: 1)` `n` times in one run, on the run's reporter or on a child of it, whose
  /// total is one more, so that the child stays unfinished.
  private static func completes(n: Int, onAChild: Bool) async -> Metrics {
    await observedRun(timesLoop: true) { runner, span in
      await runner.run { root in
        let reporter =
          onAChild ? root.subprogress(assigningCount: 1).start(totalCount: n + 1) : root
        if !onAChild {
          reporter.report(totalCount: n + 1)
        }
        // A synchronous closure, as (d)'s loop is.
        let loop: @Sendable () -> Void = {
          span.begin()
          for _ in 0..<n {
            reporter.complete(count: 1)
          }
          span.end()
        }
        loop()
        reporter.complete(count: 1)
      }
    }
  }
}

extension Report {
  /// The target of (k').
  var childCompleteTargets: [Target] {
    [
      Target(
        "(k') A child's complete(count: 1) costs at most 1.3x the run's own reporter's, in the "
          + "same loop",
        perSize { ratio(.childComplete, $0, to: "rootCompletes") }, { $0 <= 1.3 }, Format.ratio)
    ]
  }
}

extension Measure {
  /// (u) `group.run(items, maxConcurrency: 8)` over `n` no-op items, with a
  /// `TerminalGroupRenderer` drawing the group to an in-memory terminal of 120 × 40; (u0) a task
  /// group doing the same no-op items, 8 at a time, with nothing to show them.
  static func groupQueue(n: Int, bare: Bool) async -> Metrics {
    let start = nowNanoseconds()
    if bare {
      let done = Counter.make()
      // 8 at a time, a new item as one ends: the bounded task group a user writes by hand.
      await withTaskGroup(of: Void.self) { group in
        var next = 0
        func addItem() {
          guard next < n else { return }
          next += 1
          group.addTask {
            done.value.add(1, ordering: .relaxed)
          }
        }
        for _ in 0..<8 { addItem() }
        while await group.next() != nil {
          addItem()
        }
      }
      let wall = Double(nowNanoseconds() - start)
      return ["wall": wall, "finished": done.value.load(ordering: .relaxed) == n ? 1 : 0]
    }
    let group = TaskRunnerGroup()
    let terminal = CountingTerminal(columns: 120, rows: 40)
    group.attach(TerminalGroupRenderer(output: terminal, restoresTerminalOnSignals: false))
    let outcomes = await group.run(0..<n, maxConcurrency: 8) { _, reporter in
      reporter.report(completed: 1, of: 1)
    }
    let wall = Double(nowNanoseconds() - start)
    return [
      "wall": wall, "drawnBytes": Double(terminal.bytes),
      "finished": outcomes.count == n && outcomes.allSatisfy { $0 == .finished } ? 1 : 0,
    ]
  }
}

extension Report {
  /// The sizes of (u) and (u0).
  static let groupQueueSizes = [10_000, 100_000]

  /// The targets of (u).
  var groupQueueTargets: [Target] {
    let (small, large) = (Self.groupQueueSizes[0], Self.groupQueueSizes[1])
    return [
      Target(
        "(u) group.run(items, maxConcurrency: 8) with a TerminalGroupRenderer grows linearly: "
          + "the time per item at 100k is within 1.5x that at 10k",
        [("100k/10k", combine(perItem(.groupQueue, large), perItem(.groupQueue, small), /))],
        { $0 <= 1.5 }, Format.ratio),
      Target(
        "(u) The queue costs at most 20 µs per item over a task group doing the same, 8 at a "
          + "time (u0)",
        Self.groupQueueSizes.map { n in
          (
            "N=\(Format.size(n))",
            combine(perItem(.groupQueue, n), perItem(.groupQueueBare, n), -)
          )
        }, { $0 <= 20_000 }, Format.microseconds),
    ]
  }
}

extension Report {
  /// The table of (u) and (u0).
  var groupQueueTable: [String] {
    let rows = Self.groupQueueSizes.filter {
      median(.groupQueue, $0) ?? median(.groupQueueBare, $0) != nil
    }
    guard !rows.isEmpty else { return [] }
    let header = ["N", "u wall", "u per item", "u0 wall", "u0 per item", "u - u0 per item"]
    let table = rows.map { n in
      [
        Format.size(n), Format.duration(median(.groupQueue, n)),
        Format.microseconds(perItem(.groupQueue, n)), Format.duration(median(.groupQueueBare, n)),
        Format.microseconds(perItem(.groupQueueBare, n)),
        Format.microseconds(combine(perItem(.groupQueue, n), perItem(.groupQueueBare, n), -)),
      ]
    }
    return [
      "",
      "(u) group.run(0..<N, maxConcurrency: 8) of no-op items that report 1 of 1, with a "
        + "TerminalGroupRenderer drawing to a 120x40 terminal in memory; (u0) a task group "
        + "running the same no-op items, 8 at a time, a new one as one ends (group.next()).",
      Format.table([header] + table, leftAligned: 0),
    ]
  }
}
