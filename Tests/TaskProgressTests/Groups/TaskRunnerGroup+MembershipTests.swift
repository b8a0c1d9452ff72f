import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// Many members joining and leaving: the order they joined in, and sums that follow them.
@MainActor
@Suite("Task runner group membership", .timeLimit(TestScale.timeLimit(minutes: 2)))
struct TaskRunnerGroupMembershipTests {
  let clock = ManualClock()

  @Test func membersKeepTheOrderTheyJoinedInAsMostOfThemLeave() {
    let group = TaskRunnerGroup(weighting: .equal, clock: clock)
    let runners = (0..<2_000).map { _ in TaskRunner(animation: .instant, clock: clock) }
    for (index, runner) in runners.enumerated() {
      group.add(runner, label: "\(index)")
    }
    // Every member but each tenth leaves, from the middle out, so that the holes are compacted
    // more than once.
    let leaving = runners.indices.filter { $0 % 10 != 0 }.sorted {
      abs($0 - 1_000) < abs($1 - 1_000)
    }
    for index in leaving {
      #expect(group.remove(runners[index]))
    }
    #expect(group.members.map(\.label) == runners.indices.filter { $0 % 10 == 0 }.map { "\($0)" })
    #expect(!group.remove(runners[1]))
    // A member joins again, at the end.
    group.add(runners[1], label: "again")
    #expect(group.members.last?.label == "again")
    #expect(group.members.count == 201)
  }

  @Test func removeEndedLeavesTheOthersInOrderAndTheSumsFollow() async {
    let group = TaskRunnerGroup(weighting: .equal, clock: clock)
    // Under the sanitizer, with every suite sharing the main actor and the pool, 150 runs took 16
    // to 32 s, and once 30 did not finish in 20 s; with a CPU hog on every core besides, 30 did
    // not finish in 40 s. 20 show the same order and sums.
    let count = TestScale.count(300, sanitized: 40)
    let half = count / 2
    let runners = (0..<count).map { _ in TaskRunner(animation: .instant, clock: clock) }
    for (index, runner) in runners.enumerated() {
      group.add(runner, label: "\(index)")
    }
    // The even ones finish, all at once rather than one after another. Each operation runs on
    // the pool, where a run's task takes it: one on the main actor would wait for the main actor
    // and then for the pool again, behind every other suite's work. The odd ones wait.
    let runs = runners.enumerated().filter { $0.offset % 2 == 0 }.map { _, runner in
      Task { _ = await runner.run { reporter in reporter.report(completed: 1, of: 1) } }
    }
    await withDeadline(
      waitingFor: "\(half) runs to finish",
      within: waitLimit
    ) {
      _ = await awaitAll(runs)
    }
    clock.advance(by: group.updateInterval)
    #expect(group.counts.description == "\(half) idle, \(half) finished")
    #expect(group.fractionCompleted == 0.5)
    group.removeEnded()
    clock.advance(by: group.updateInterval)
    #expect(group.members.map(\.label) == runners.indices.filter { $0 % 2 == 1 }.map { "\($0)" })
    #expect(group.counts.description == "\(half) idle")
    #expect(group.fractionCompleted == 0)
    #expect(group.summary.totalUnits == Double(half))
  }

  @Test func removeEndedKeepsARunnerThatStartedAgainAndTakesOneThatJoinedEnded() async {
    let group = TaskRunnerGroup(clock: clock)
    let (again, joinedEnded, waiting) = (
      TaskRunner(animation: .instant, clock: clock), TaskRunner(animation: .instant, clock: clock),
      TaskRunner(animation: .instant, clock: clock)
    )
    _ = await joinedEnded.run { _ in }
    group.add(again, label: "again")
    group.add(joinedEnded, label: "joined ended")
    group.add(waiting, label: "waiting")
    _ = await again.run { _ in }
    let run = await HeldRun.start(on: again)  // ended once, running again
    group.removeEnded()
    let afterFirst = group.members.map(\.label)
    run.proceed.open()
    _ = await again.lastRunTask?.value
    group.removeEnded()
    #expect(afterFirst == ["again", "waiting"])
    #expect(group.members.map(\.label) == ["waiting"])
  }
}
