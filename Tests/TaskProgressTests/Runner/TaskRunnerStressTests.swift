import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// The runner on a real clock while eight tasks report as fast as they can and the main actor
/// cancels and restarts it a thousand times; meant to run under `swift test --sanitize=thread`.
///
/// Nothing here depends on timing: the test waits for events (a delivery, a task's end), never
/// for time, and its assertions hold however the threads interleave.
@MainActor
@Suite("Task runner under stress", .timeLimit(TestScale.timeLimit(minutes: 10)))
struct TaskRunnerStressTests {
  /// What the observer saw, and who waits for a delivery of a given run.
  final class Log {
    var states: [RunState] = []
    var waitingFor: (total: Int, continuation: CheckedContinuation<Void, Never>)?

    func record(_ state: RunState) {
      states.append(state)
      guard let waiting = waitingFor else { return }
      if state.progress?.totalCount == waiting.total || state.phase.isTerminal {
        waitingFor = nil
        waiting.continuation.resume()
      }
    }
  }

  nonisolated static let runs = TestScale.count(1_000, sanitized: 250)
  nonisolated static let reportingTasks = 8

  /// The total every report of run `index` uses, so that a report tells which run made it.
  nonisolated static func total(ofRun index: Int) -> Int { 1_000_000 + index }

  @Test func cancellingAndRestartingAThousandTimesWhileEightTasksReport() async throws {
    // The reporters keep their threads busy until their run is cancelled: on threads of their
    // own, they hold none of the pool that other suites wait on.
    try await onThreadsOfItsOwn(2) { try await self.cancelAndRestart(reportingOn: $0) }
  }

  func cancelAndRestart(reportingOn threads: TestThreads) async throws {
    let runner = TaskRunner(animation: .instant, updateInterval: .milliseconds(1))
    let log = Log()
    let token = runner.observe { log.record($0) }
    var tasks: [Task<Void, Never>] = []

    for index in 0..<Self.runs {
      let total = Self.total(ofRun: index)
      let started = runner.start { reporter in
        await withTaskGroup(of: Void.self) { group in
          for lane in 0..<Self.reportingTasks {
            group.addTask(executorPreference: threads) {
              var completed = lane
              while !reporter.isCancelled {
                completed = (completed + Self.reportingTasks) % total
                reporter.report(completed: completed, of: total)
                if completed % 1024 < Self.reportingTasks {
                  try? await reporter.checkpoint()
                }
              }
            }
          }
        }
      }
      #expect(started)
      if let task = runner.lastRunTask { tasks.append(task) }
      if index % 2 == 0 {
        // Let reports through before cancelling: wait for this run's first delivery.
        await withCheckedContinuation { log.waitingFor = (total, $0) }
      }
      runner.cancel()
    }
    for task in tasks {
      await task.value
    }
    token.cancel()

    // Split what the observer saw into runs: each starts with running(0%).
    var segments: [[RunState]] = []
    for state in log.states.dropFirst() {  // the first is the initial idle
      if state == .running(.zero) {
        segments.append([state])
      } else {
        segments[segments.count - 1].append(state)
      }
    }
    try #require(segments.count == Self.runs)
    var deliveredRuns = 0
    for (index, segment) in segments.enumerated() {
      let terminals = segment.filter(\.phase.isTerminal)
      #expect(terminals == [.cancelled], "run \(index): \(terminals)")
      #expect(segment.last == .cancelled, "run \(index) did not end with its cancellation")
      let foreign = segment.compactMap(\.progress?.totalCount).filter {
        $0 != Self.total(ofRun: index)
      }
      #expect(foreign.isEmpty, "run \(index) saw reports of runs \(foreign.map { $0 - 1_000_000 })")
      if segment.contains(where: { $0.progress?.totalCount != nil }) {
        deliveredRuns += 1
      }
    }
    // Every run that waited for a delivery got one.
    #expect(deliveredRuns >= Self.runs / 2)
  }
}
