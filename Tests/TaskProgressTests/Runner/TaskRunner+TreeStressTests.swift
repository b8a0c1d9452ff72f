import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A run's progress tree on a real clock while eight tasks create, complete and release children
/// and grandchildren, and the main actor cancels and restarts the runner two hundred times; meant
/// to run under `swift test --sanitize=thread`.
///
/// Nothing here depends on timing: the test waits for events (a delivery, a task's end), never
/// for time, and its assertions hold however the threads interleave.
@MainActor
@Suite("Progress tree under stress", .timeLimit(TestScale.timeLimit(minutes: 10)))
struct TaskRunnerTreeStressTests {
  /// What the observer saw, and who waits for deliveries.
  final class Log {
    var states: [RunState] = []
    /// Who waits, and for how many more deliveries with a count.
    var waiting: (deliveries: Int, continuation: CheckedContinuation<Void, Never>)?

    func record(_ state: RunState) {
      states.append(state)
      guard var waiting else { return }
      if (state.progress?.completedCount ?? 0) > 0 {
        waiting.deliveries -= 1
        self.waiting = waiting
      }
      if waiting.deliveries == 0 || state.phase.isTerminal {
        self.waiting = nil
        waiting.continuation.resume()
      }
    }
  }

  nonisolated static let runs = TestScale.count(200, sanitized: 60)
  nonisolated static let workers = 8
  /// The children each worker starts in a run that is not cancelled.
  nonisolated static let childrenPerWorker = 400
  /// The root's total: a unit per child, and one per worker for a child they all complete.
  nonisolated static let rootTotal = workers * childrenPerWorker + workers

  /// The work of one run: each worker starts children one after another, gives each a
  /// grandchild it releases unfinished, a subprogress it drops and added counts, and releases
  /// every third child before it finished; all of them also complete a child they share.
  ///
  /// The workers keep their threads busy: on `threads`, they hold none of the pool that other
  /// suites wait on.
  @concurrent
  nonisolated static func operation(_ root: TaskRunner.Reporter, on threads: TestThreads) async {
    root.report(totalCount: rootTotal)
    let shared = root.subprogress(assigningCount: workers).start(totalCount: workers)
    await withDiscardingTaskGroup { group in
      for worker in 0..<workers {
        group.addTask(executorPreference: threads) {
          for index in 0..<childrenPerWorker {
            do {
              try await root.checkpoint()
            } catch {
              return
            }
            work(on: root.subprogress(assigningCount: 1), step: worker + index)
          }
          let sharedGrandchild = shared.subprogress(assigningCount: 0).start(totalCount: 2)
          sharedGrandchild.complete(count: 1)
          shared.complete(count: 1)
        }
      }
    }
  }

  /// Starts one child, works on it, and lets it go: finished, or released before it finished.
  nonisolated static func work(on subprogress: consuming TaskRunner.Subprogress, step: Int) {
    let child = subprogress.start(totalCount: 3)
    child.complete(count: 1)
    do {
      let grandchild = child.subprogress(assigningCount: 1).start(totalCount: 4)
      grandchild.report(completed: 1, of: 4)
      grandchild.complete(count: 2)
      // Released at 3/4: its share counts as done.
    }
    if step % 3 == 0 {
      return  // released at 2/3
    }
    let copy = child
    _ = copy.subprogress(assigningCount: 1)  // dropped unstarted: its share counts as done
    #expect(copy.progress.completedCount == 3)  // finished: 3 of 3
  }

  @Test func cancellingAndRestartingWhileEightTasksGrowAndReleaseChildren() async throws {
    try await onThreadsOfItsOwn(2) { try await self.cancelAndRestart(workingOn: $0) }
  }

  func cancelAndRestart(workingOn threads: TestThreads) async throws {
    let runner = TaskRunner(animation: .instant, updateInterval: .milliseconds(1))
    let log = Log()
    let token = runner.observe { log.record($0) }
    var tasks: [Task<Void, Never>] = []

    for index in 0..<Self.runs {
      let last = index == Self.runs - 1
      if last {
        #expect(await runner.run { await Self.operation($0, on: threads) } == .finished)
        break
      }
      #expect(runner.start { await Self.operation($0, on: threads) })
      if let task = runner.lastRunTask { tasks.append(task) }
      if index % 2 == 0 {
        // Let the tree grow before cancelling: wait for a few deliveries with a count.
        await withCheckedContinuation { log.waiting = (1 + index % 5, $0) }
      }
      runner.cancel()
    }
    for task in tasks {
      await task.value
    }
    token.cancel()

    // Split what the observer saw into runs: each starts with running(0).
    var segments: [[RunState]] = []
    for state in log.states.dropFirst() {  // the first is the initial idle
      if state == .running(.zero) {
        segments.append([state])
      } else {
        try #require(!segments.isEmpty, "a state before any run: \(state)")
        segments[segments.count - 1].append(state)
      }
    }
    try #require(segments.count == Self.runs)
    for (index, segment) in segments.enumerated() {
      let terminals = segment.filter(\.phase.isTerminal)
      #expect(terminals.count == 1 && segment.last?.phase.isTerminal == true, "run \(index)")
      let fractions = segment.compactMap(\.fractionCompleted)
      #expect(fractions.allSatisfy { (0...1).contains($0) }, "run \(index): \(fractions)")
      // Every report only adds, so neither the fraction nor the count goes back.
      let progress = segment.compactMap(\.progress)
      let backwards = zip(progress, progress.dropFirst()).filter { before, after in
        (after.fractionCompleted ?? 0) < (before.fractionCompleted ?? 0)
          || (after.completedCount ?? 0) < (before.completedCount ?? 0)
      }
      #expect(backwards.isEmpty, "run \(index) went back: \(backwards)")
    }
    let final = try #require(segments.last)
    #expect(final.last == .finished)
    #expect(
      final.dropLast().last
        == .running(RunProgress(completed: Self.rootTotal, of: Self.rootTotal)))
  }
}
