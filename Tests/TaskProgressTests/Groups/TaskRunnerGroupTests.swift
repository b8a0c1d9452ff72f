import TaskProgress
import TaskProgressTestSupport
import Testing

@MainActor
@Suite("Task runner group", .timeLimit(.minutes(1)))
struct TaskRunnerGroupTests {
  let clock = ManualClock()

  func runner() -> TaskRunner {
    TaskRunner(animation: .instant, clock: clock)
  }

  @Test("Sums two runners by units in the frame that reads their reports")
  func sumsByUnits() async {
    let group = TaskRunnerGroup(clock: clock)
    let a = runner()
    let b = runner()
    group.add(a, label: "a")
    group.add(b, label: "b")
    var summaries: [TaskRunnerGroup.Summary] = []
    let token = group.observe { summaries.append($0) }
    let reported = Latch()
    let hold = Latch()
    a.start { reporter in
      reporter.report(completed: 30, of: 100)
      reported.open()
      await hold.wait()
    }
    await reported.wait()
    let reportedB = Latch()
    b.start { reporter in
      reporter.report(completed: 100, of: 300)
      reportedB.open()
      await hold.wait()
    }
    await reportedB.wait()
    clock.advance(by: frame)
    #expect(group.counts.running == 2)
    #expect(group.fractionCompleted == 130.0 / 400.0)
    #expect(group.summary.completedUnits == 130)
    #expect(group.summary.totalUnits == 400)
    #expect(summaries.last?.fractionCompleted == 130.0 / 400.0)
    hold.open()
    _ = token
  }
}
