import Observation
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A group renderer that keeps every event, spelled out for whole-sequence assertions.
@MainActor
private final class EventLog: GroupRenderer {
  var events: [TaskRunnerGroup.Event] = []
  var detachCount = 0
  let labels: [ObjectIdentifier: String]
  /// Whether each event was a member's first update, its joining, as it came.
  private var joins: [Bool] = []
  /// The members heard of and not heard to leave.
  private var members: Set<ObjectIdentifier> = []

  init(labels: [ObjectIdentifier: String] = [:]) {
    self.labels = labels
  }

  func render(_ event: TaskRunnerGroup.Event) {
    events.append(event)
    switch event {
    case .updated(let member, _): joins.append(members.insert(member.id).inserted)
    case .left(let id):
      members.remove(id)
      joins.append(false)
    case .frame: joins.append(false)
    }
  }

  func didDetach() {
    detachCount += 1
  }

  /// `joined a idle`, `a running(0.3)`, `left a`, `frame 0.3 [1 running]`.
  var lines: [String] {
    zip(events, joins).map { event, joins in
      switch event {
      case .updated(let member, let update) where joins:
        "joined \(member.label) \(update.state)"
      case .updated(let member, let update):
        "\(labels[member.id] ?? "?")\(update.reason == .frame ? " frame" : "") \(update.state)"
      case .left(let id): "left \(labels[id] ?? "?")"
      case .frame(let summary, _, _): "frame \(summary.fractionCompleted) [\(summary.counts)]"
      }
    }
  }

  var frameCount: Int {
    events.count { if case .frame = $0 { true } else { false } }
  }

  func clear() {
    events = []
    joins = []
  }
}

/// A group renderer that removes a runner from the group as it hears that the runner's run
/// ended.
@MainActor
private final class RemoveOnEnd: GroupRenderer {
  let group: TaskRunnerGroup
  var runners: [ObjectIdentifier: TaskRunner] = [:]
  var removals = 0

  init(group: TaskRunnerGroup) {
    self.group = group
  }

  func render(_ event: TaskRunnerGroup.Event) {
    guard case .updated(let member, let update) = event, update.reason == .stateChanged,
      update.state.phase.isTerminal, let runner = runners[member.id]
    else { return }
    if group.remove(runner) {
      removals += 1
    }
  }
}

/// A group renderer that keeps what each frame lists: the members' labels in order, with their
/// phases and whether they changed since the frame before.
@MainActor
private final class FrameLog: GroupRenderer {
  /// `a running*` for each member of each frame, `*` when it changed since the frame before.
  var frames: [[String]] = []

  func render(_ event: TaskRunnerGroup.Event) {
    guard case .frame(_, let members, _) = event else { return }
    frames.append(
      members.map { member, latest, isChanged in
        "\(member.label) \(latest.state.phase)\(isChanged ? "*" : "")"
      })
  }
}

@MainActor
@Suite("Task runner group", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerGroupTests {
  let clock = ManualClock()

  func makeRunner() -> TaskRunner {
    TaskRunner(animation: .instant, clock: clock)
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
  }

  // MARK: - Weighting

  @Test("Units weighting: each runner counts its total, in the frame that reads the reports")
  func sumsByUnits() async {
    let group = TaskRunnerGroup(clock: clock)
    let (a, b) = (makeRunner(), makeRunner())
    group.add(a, label: "a")
    group.add(b, label: "b")
    var summaries: [TaskRunnerGroup.Summary] = []
    let token = group.observe { summaries.append($0) }
    let runA = await HeldRun.start(on: a)
    let runB = await HeldRun.start(on: b)
    runA.reporter.report(completed: 30, of: 100)
    runB.reporter.report(completed: 100, of: 300)
    clock.advance(by: frame)
    #expect(group.fractionCompleted == 130.0 / 400.0)
    #expect(group.summary.completedUnits == 130)
    #expect(group.summary.totalUnits == 400)
    #expect(group.summary.isTotalKnown)
    #expect(group.summary.displayedProgress == 130.0 / 400.0)
    #expect(summaries.map(\.fractionCompleted) == [0, 130.0 / 400.0])
    #expect(summaries.map(\.counts.description) == ["2 idle", "2 running"])
    runA.proceed.open()
    runB.proceed.open()
    _ = await (a.lastRunTask?.value, b.lastRunTask?.value)
    clock.advance(by: frame)
    #expect(group.fractionCompleted == 1)
    #expect(group.counts.description == "2 finished")
    token.cancel()
  }

  @Test("Equal weighting: each runner counts the same")
  func equalWeighting() async {
    let group = TaskRunnerGroup(weighting: .equal, clock: clock)
    let (a, b) = (makeRunner(), makeRunner())
    group.add(a)
    group.add(b)
    let runA = await HeldRun.start(on: a)
    let runB = await HeldRun.start(on: b)
    runA.reporter.report(completed: 1, of: 2)
    runB.reporter.report(completed: 0, of: 1_000)
    clock.advance(by: frame)
    #expect(group.fractionCompleted == 0.25)
    #expect(group.summary.totalUnits == 2)
    #expect(group.summary.completedUnits == 0.5)
    runA.proceed.open()
    runB.proceed.open()
  }

  @Test("A weight given wins over the total; a runner without one counts as the mean")
  func explicitAndGuessedWeights() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let (a, b, c) = (makeRunner(), makeRunner(), makeRunner())
    group.add(a, label: "a", weight: 300)
    group.add(b, label: "b")
    group.add(c, label: "c")
    // Nothing known but a's weight: b and c count as 300 each.
    clock.advance(by: frame)
    #expect(group.summary.totalUnits == 900)
    #expect(!group.summary.isTotalKnown)
    let runA = await HeldRun.start(on: a)
    let runB = await HeldRun.start(on: b)
    runA.reporter.report(completed: 5, of: 10)  // the weight of 300 stays
    runB.reporter.report(completed: 50, of: 100)
    clock.advance(by: frame)
    // c, idle, counts as the mean of 300 and 100.
    #expect(group.summary.totalUnits == 600)
    #expect(group.summary.completedUnits == 150 + 50)
    #expect(group.fractionCompleted == 200.0 / 600.0)
    runA.proceed.open()
    runB.proceed.open()
  }

  @Test(
    "A weight that is negative or not finite counts as the group's weighting says",
    arguments: [-1.0, .nan, .infinity, -.infinity])
  func invalidWeight(weight: Double) {
    let group = TaskRunnerGroup(clock: clock)
    let runner = makeRunner()
    #expect(group.add(runner, label: "disk.img", weight: weight))
    #expect(group.members.map(\.label) == ["disk.img"])
    #expect(group.members.map(\.weight) == [nil])
    let other = makeRunner()
    #expect(group.add(other, weight: 0))
    #expect(group.members.map(\.weight) == [nil, 0])
  }

  @Test("Runners whose weights are all 0 count equally, not as a division by 0")
  func allWeightsZero() async {
    let group = TaskRunnerGroup(clock: clock)
    let (a, b) = (makeRunner(), makeRunner())
    group.add(a)
    group.add(b)
    _ = await a.run { reporter in reporter.report(completed: 0, of: 0) }
    clock.advance(by: frame)
    #expect(group.fractionCompleted == 0.5)
    #expect(!group.fractionCompleted.isNaN)
  }

  @Test("Failed and cancelled runs count 0, as a runner's state says; indeterminate ones 0")
  func endedRunsCountZero() async {
    let group = TaskRunnerGroup(weighting: .equal, clock: clock)
    let (a, b, c, d) = (makeRunner(), makeRunner(), makeRunner(), makeRunner())
    for runner in [a, b, c, d] { group.add(runner) }
    _ = await a.run { _ in }
    _ = await b.run { _ in throw TestError() }
    let runC = await HeldRun.start(on: c)
    runC.reporter.report(completed: 1, of: 2)
    clock.advance(by: frame)
    c.cancel()
    let runD = await HeldRun.start(on: d)
    runD.reporter.reportIndeterminate(completed: 7)
    clock.advance(by: frame)
    #expect(group.counts == counts(running: 1, finished: 1, failed: 1, cancelled: 1))
    #expect(group.fractionCompleted == 0.25)
    runC.proceed.open()
    runD.proceed.open()
  }

  // MARK: - Phases

  @Test("Counts per phase follow every transition, once per frame")
  func countsPerPhase() async {
    let group = TaskRunnerGroup(clock: clock)
    let runners = (0..<3).map { _ in makeRunner() }
    for runner in runners { group.add(runner) }
    var seen: [String] = []
    let token = group.observe { seen.append($0.counts.description) }
    let runs = [
      await HeldRun.start(on: runners[0]), await HeldRun.start(on: runners[1]),
      await HeldRun.start(on: runners[2]),
    ]
    clock.advance(by: frame)
    runners[1].pause()
    clock.advance(by: frame)
    runs[0].proceed.open()
    _ = await runners[0].lastRunTask?.value
    clock.advance(by: frame)
    runners[2].cancel()
    runners[1].resume()
    clock.advance(by: frame)
    runners[2].reset()
    clock.advance(by: frame)
    #expect(
      seen == [
        "3 idle", "3 running", "2 running, 1 paused", "1 running, 1 paused, 1 finished",
        "1 running, 1 finished, 1 cancelled", "1 running, 1 idle, 1 finished",
      ])
    for run in runs { run.proceed.open() }
    token.cancel()
  }

  @Test("Phase counts read as SwiftPM's summary, and by phase")
  func phaseCountsDescription() {
    var counts = TaskRunnerGroup.PhaseCounts()
    #expect(counts.description == "no runners")
    counts[.running] = 3
    counts[.finished] = 5
    counts[.failed] = 1
    #expect(counts.description == "3 running, 5 finished, 1 failed")
    #expect(counts.total == 9)
    #expect(counts.active == 3)
    #expect(counts.ended == 6)
    for phase in [RunPhase.idle, .running, .paused, .finished, .failed, .cancelled] {
      var one = TaskRunnerGroup.PhaseCounts()
      one[phase] += 2
      #expect(one[phase] == 2)
      #expect(one.total == 2)
    }
  }

  // MARK: - Frames

  @Test("One pass per frame, after every member's frame of that wake-up")
  func onePassPerFrame() async {
    let group = TaskRunnerGroup(clock: clock)
    let runners = (0..<50).map { _ in makeRunner() }
    var labels: [ObjectIdentifier: String] = [:]
    for (index, runner) in runners.enumerated() {
      group.add(runner, label: "r\(index)")
      labels[ObjectIdentifier(runner)] = "r\(index)"
    }
    let log = EventLog(labels: labels)
    group.attach(log)
    var runs: [HeldRun] = []
    for runner in runners { runs.append(await HeldRun.start(on: runner)) }
    for step in 1...10 {
      for run in runs { run.reporter.report(completed: step, of: 10) }
      log.clear()
      clock.advance(by: frame)
      #expect(log.frameCount == 1)
      // The pass comes last: every member's update of this wake-up is before it.
      guard case .frame(let summary, _, _) = log.events.last else {
        Issue.record("the wake-up did not end with the group's pass")
        return
      }
      #expect(summary.fractionCompleted == Double(step) / 10)
    }
    for run in runs { run.proceed.open() }
  }

  @Test("Nothing runs while nothing moves")
  func quietWhenStill() async {
    let group = TaskRunnerGroup(clock: clock)
    let runner = makeRunner()
    group.add(runner)
    let log = EventLog()
    group.attach(log)
    _ = await runner.run { reporter in reporter.report(completed: 1, of: 1) }
    clock.advance(by: frame * 3)
    log.clear()
    clock.advance(by: .seconds(10))
    #expect(log.events.isEmpty)
  }

  @Test("Passes go on until the group settles, while runners wait to start, then stop")
  func settling() async {
    let group = TaskRunnerGroup(clock: clock)
    let runner = makeRunner()
    group.add(runner)
    group.add(makeRunner())  // waiting to start, as in a queue
    let log = EventLog()
    group.attach(log)
    let run = await HeldRun.start(on: runner)
    clock.advance(by: frame * 3)
    #expect(!group.summary.isSettled)
    log.clear()
    run.proceed.open()
    _ = await runner.lastRunTask?.value
    let ended = clock.now
    for _ in 0..<30 {
      clock.advance(by: frame)
    }
    let passes = log.events.compactMap { event in
      if case .frame(let summary, _, let time) = event { (summary, time) } else { nil }
    }
    // Unsettled for the settling interval after the end, then settled once, then nothing.
    #expect(passes.dropLast().allSatisfy { !$0.0.isSettled })
    #expect(passes.last?.0.isSettled == true)
    #expect(passes.allSatisfy { $0.0.counts.description == "1 idle, 1 finished" })
    #expect(ended.duration(to: clock.now) >= TaskRunnerGroup.settlingInterval)
    #expect(passes.count >= 15 && passes.count <= 17)
    #expect(group.summary.isSettled)
  }

  @Test("A queue that starts its next run within the settling interval never settles")
  func queueGapDoesNotSettle() async {
    let group = TaskRunnerGroup(clock: clock)
    let (a, b) = (makeRunner(), makeRunner())
    group.add(a)
    group.add(b)
    var settled: [Bool] = []
    let token = group.observe { settled.append($0.isSettled) }
    _ = await a.run { _ in }
    clock.advance(by: .milliseconds(200))
    let run = await HeldRun.start(on: b)
    clock.advance(by: frame)
    #expect(!settled.dropFirst().contains(true))
    run.proceed.open()
    _ = await b.lastRunTask?.value
    #expect(settled.last == true, "the last run ended with none waiting: settled at once")
    token.cancel()
  }

  @Test("The end of the last run is summed up at once, before the run's caller hears of it")
  func lastEndAtOnce() async {
    let group = TaskRunnerGroup(clock: clock)
    let (a, b) = (makeRunner(), makeRunner())
    group.add(a)
    group.add(b)
    var seen: [String] = []
    let token = group.observe { seen.append("\($0.fractionCompleted) \($0.counts)") }
    _ = await a.run { reporter in reporter.report(completed: 1, of: 2) }
    // b waits to start, as in a queue: the sums wait for the next frame.
    #expect(group.counts.description == "2 idle")
    _ = await b.run { reporter in reporter.report(completed: 2, of: 2) }
    // No frame has come: the pass ran when b's end arrived, before `run` returned.
    #expect(group.counts.description == "2 finished")
    #expect(seen == ["0.0 2 idle", "1.0 2 finished"])
    token.cancel()
  }

  @Test("The last report before the end reaches the group before the end")
  func lastReportFirst() async {
    let group = TaskRunnerGroup(clock: clock)
    let runner = makeRunner()
    group.add(runner, label: "a")
    let log = EventLog(labels: [ObjectIdentifier(runner): "a"])
    group.attach(log)
    _ = await runner.run { reporter in
      for index in 1...100 { reporter.report(completed: index, of: 100) }
    }
    clock.advance(by: frame)
    let updates = log.lines.filter { $0.hasPrefix("a ") && !$0.hasPrefix("a frame") }
    #expect(updates == ["a running(0%)", "a running(100/100)", "a finished"])
    #expect(log.lines.last == "frame 1.0 [1 finished]")
  }

  // MARK: - Members

  @Test("A renderer attached mid-run finds every member in its first frame, in join order")
  func attachedMidRunSeesEveryMember() async {
    let group = TaskRunnerGroup(clock: clock)
    let runners = (0..<4).map { _ in makeRunner() }
    for (index, runner) in runners.enumerated() {
      group.add(runner, label: "r\(index)")
    }
    // Runs begin out of join order, and one ends, before the renderer comes.
    let third = await HeldRun.start(on: runners[2])
    _ = await runners[3].run { _ in }
    let first = await HeldRun.start(on: runners[0])
    clock.advance(by: frame)
    let log = FrameLog()
    group.attach(log)
    // The group's last frame, at once: every member changed since the frame before, the
    // group's first.
    #expect(log.frames == [["r0 running*", "r1 idle*", "r2 running*", "r3 finished*"]])
    // The next frame marks what changed since: the runs under way, which have frames.
    first.reporter.report(completed: 1, of: 2)
    clock.advance(by: frame)
    #expect(log.frames.last == ["r0 running*", "r1 idle", "r2 running*", "r3 finished"])
    third.proceed.open()
    first.proceed.open()
  }

  @Test("A member that left is absent from the next frame; the others keep their order")
  func leftMembersAreAbsentFromTheNextFrame() async {
    let group = TaskRunnerGroup(weighting: .equal, clock: clock)
    let runners = (0..<3).map { _ in makeRunner() }
    for (index, runner) in runners.enumerated() {
      group.add(runner, label: "r\(index)")
    }
    let log = FrameLog()
    group.attach(log)
    let run = await HeldRun.start(on: runners[1])
    clock.advance(by: frame)
    #expect(log.frames.last == ["r0 idle", "r1 running*", "r2 idle"])
    group.remove(runners[1])
    group.remove(runners[0])
    clock.advance(by: frame)
    #expect(log.frames.last == ["r2 idle"])
    run.proceed.open()
  }

  @Test("Frames list the members in join order as members end and leave and holes close")
  func framesKeepJoinOrderAsHolesClose() async {
    // 40 members; each round, every other one left runs to its end, the later-joined first,
    // and removeEnded() takes them away: the holes pass half of the slots and close.
    let group = TaskRunnerGroup(weighting: .equal, clock: clock)
    let runners = (0..<40).map { _ in makeRunner() }
    for (index, runner) in runners.enumerated() {
      group.add(runner, label: "r\(index)")
    }
    let log = FrameLog()
    group.attach(log)
    var remaining = Array(0..<40)
    while remaining.count > 2 {
      let ending = remaining.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
      for index in ending.reversed() {
        _ = await runners[index].run { _ in }
      }
      clock.advance(by: frame)
      #expect(
        log.frames.last == remaining.map { "r\($0) \(ending.contains($0) ? "finished*" : "idle")" })
      group.removeEnded()
      remaining.removeAll { ending.contains($0) }
      clock.advance(by: frame)
      #expect(log.frames.last == remaining.map { "r\($0) idle" })
      #expect(group.members.map(\.label) == remaining.map { "r\($0)" })
    }
  }

  @Test("Runners join and leave at any time; renderers hear of it in order")
  func joinAndLeave() async {
    let group = TaskRunnerGroup(weighting: .equal, clock: clock)
    let (a, b) = (makeRunner(), makeRunner())
    let labels = [ObjectIdentifier(a): "a", ObjectIdentifier(b): "b"]
    group.add(a, label: "a")
    let log = EventLog(labels: labels)
    group.attach(log)
    let runA = await HeldRun.start(on: a)
    runA.reporter.report(completed: 1, of: 2)
    clock.advance(by: frame)
    let runB = await HeldRun.start(on: b)
    #expect(group.add(b, label: "b"))
    #expect(!group.add(b, label: "again"))
    clock.advance(by: frame)
    #expect(group.fractionCompleted == 0.25)
    #expect(group.remove(a))
    #expect(!group.remove(a))
    clock.advance(by: frame)
    #expect(group.fractionCompleted == 0)
    #expect(group.members.map(\.label) == ["b"])
    #expect(
      log.lines == [
        "joined a idle", "frame 0.0 [1 idle]", "a running(0%)", "a running(1/2)",
        "a frame running(1/2)", "frame 0.5 [1 running]", "joined b running(0%)",
        "a frame running(1/2)", "b frame running(0%)", "frame 0.25 [2 running]", "left a",
        "b frame running(0%)", "frame 0.0 [1 running]",
      ])
    // A runner that left is no longer followed.
    log.clear()
    runA.proceed.open()
    _ = await a.lastRunTask?.value
    clock.advance(by: frame)
    #expect(!log.lines.contains { $0.hasPrefix("a ") })
    runB.proceed.open()
  }

  @Test("removeEnded takes away the runners whose last run ended")
  func removeEnded() async {
    let group = TaskRunnerGroup(clock: clock)
    let (a, b, c) = (makeRunner(), makeRunner(), makeRunner())
    group.add(a, label: "a")
    group.add(b, label: "b")
    group.add(c, label: "c")
    _ = await a.run { _ in }
    let runB = await HeldRun.start(on: b)
    group.removeEnded()
    #expect(group.members.map(\.label) == ["b", "c"])
    #expect(group.members.map { ObjectIdentifier($0.runner) } == [b, c].map(ObjectIdentifier.init))
    runB.proceed.open()
  }

  @Test("A runner may be in two groups")
  func twoGroups() async {
    let first = TaskRunnerGroup(clock: clock)
    let second = TaskRunnerGroup(clock: clock)
    let runner = makeRunner()
    first.add(runner)
    second.add(runner)
    _ = await runner.run { reporter in reporter.report(completed: 2, of: 2) }
    clock.advance(by: frame)
    #expect(first.fractionCompleted == 1)
    #expect(second.fractionCompleted == 1)
  }

  @Test("cancelAll, pauseAll and resumeAll act on every runner")
  func actOnAll() async {
    let group = TaskRunnerGroup(clock: clock)
    let runners = (0..<3).map { _ in makeRunner() }
    for runner in runners { group.add(runner) }
    var runs: [HeldRun] = []
    for runner in runners.prefix(2) { runs.append(await HeldRun.start(on: runner)) }
    group.pauseAll()
    #expect(runners.map(\.state.phase) == [.paused, .paused, .idle])
    group.resumeAll()
    #expect(runners.map(\.state.phase) == [.running, .running, .idle])
    group.cancelAll()
    #expect(runners.map(\.state.phase) == [.cancelled, .cancelled, .idle])
    clock.advance(by: frame)
    #expect(group.counts.description == "1 idle, 2 cancelled")
    for run in runs { run.proceed.open() }
  }

  @Test("A group that goes away detaches its renderers and leaves its runners be")
  func groupGoesAway() async {
    let runner = makeRunner()
    let log = EventLog()
    var group: TaskRunnerGroup? = TaskRunnerGroup(clock: clock)
    group?.add(runner)
    group?.attach(log)
    let run = await HeldRun.start(on: runner)
    group = nil
    #expect(log.detachCount == 1)
    #expect(runner.state.phase == .running)
    clock.advance(by: frame)
    run.proceed.open()
    _ = await runner.lastRunTask?.value
    #expect(runner.state == .finished)
  }

  @Test("A group keeps its runners until they leave or it goes, and no longer")
  func noCycles() async {
    weak var left: TaskRunner?
    weak var kept: TaskRunner?
    var group: TaskRunnerGroup? = TaskRunnerGroup(clock: clock)
    do {
      let runner = makeRunner()
      let other = makeRunner()
      left = runner
      kept = other
      group?.add(runner)
      group?.add(other)
      _ = await runner.run { reporter in reporter.report(completed: 1, of: 1) }
      clock.advance(by: frame)
      group?.remove(runner)
    }
    #expect(left == nil)
    #expect(kept != nil)
    group = nil
    #expect(kept == nil)
  }

  @Test("A renderer that removes a member as it hears of its end leaves the group whole")
  func removedByARendererAsItEnds() async {
    weak var removed: TaskRunner?
    let group = TaskRunnerGroup(clock: clock)
    let remover = RemoveOnEnd(group: group)
    let token = group.attach(remover)
    do {
      let runner = makeRunner()
      let other = makeRunner()
      removed = runner
      group.add(runner, label: "a")
      group.add(other, label: "b")
      remover.runners = [ObjectIdentifier(runner): runner]
      _ = await runner.run { reporter in reporter.report(completed: 1, of: 1) }
      clock.advance(by: frame)
      // The member left while the group was telling its renderers of the end, and the rest
      // of that call still found its state.
      #expect(remover.removals == 1)
      #expect(group.members.map { ObjectIdentifier($0.runner) } == [ObjectIdentifier(other)])
      #expect(group.counts.total == 1)
      #expect(group.counts.idle == 1)
      remover.runners = [:]
    }
    #expect(removed == nil)
    token.cancel()
  }

  @Test("A detached renderer gets no more events")
  func detach() async {
    let group = TaskRunnerGroup(clock: clock)
    let runner = makeRunner()
    group.add(runner)
    let log = EventLog()
    let token = group.attach(log)
    token.cancel()
    #expect(log.detachCount == 1)
    log.clear()
    _ = await runner.run { _ in }
    clock.advance(by: frame)
    #expect(log.events.isEmpty)
  }

  // MARK: - Speed and time remaining

  @Test("The speed is the sum of the runners', and the time left counts idle runners' work")
  func aggregateRate() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let (a, b, queued) = (makeRunner(), makeRunner(), makeRunner())
    group.add(a)
    group.add(b)
    group.add(queued, weight: 6_000)
    let runA = await HeldRun.start(on: a)
    let runB = await HeldRun.start(on: b)
    clock.advance(by: frame)
    #expect(group.summary.throughput == nil)
    // a does 10 units per frame, b 20: 1,800 units a second.
    for step in 1...120 {
      runA.reporter.report(completed: 10 * step, of: 6_000)
      runB.reporter.report(completed: 20 * step, of: 6_000)
      clock.advance(by: frame)
    }
    let rate = try #require(group.summary.throughput)
    #expect(abs(rate - 1_800) / 1_800 < 1e-6)
    let remaining = try #require(group.summary.estimatedTimeRemaining)
    let left = 18_000.0 - 3_600
    #expect(abs(Self.seconds(remaining) - left / 1_800) / (left / 1_800) < 1e-6)
    runA.proceed.open()
    runB.proceed.open()
    _ = await (a.lastRunTask?.value, b.lastRunTask?.value)
    clock.advance(by: frame)
    #expect(group.summary.throughput == nil)
    #expect(group.summary.estimatedTimeRemaining == nil)
  }

  @Test("Paused time is no part of the group's speed")
  func pausedTimeLeftOut() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let runner = makeRunner()
    group.add(runner)
    let run = await HeldRun.start(on: runner)
    clock.advance(by: frame)
    for step in 1...60 {
      run.reporter.report(completed: 10 * step, of: 100_000)
      clock.advance(by: frame)
    }
    let before = try #require(group.summary.throughput)
    group.pauseAll()
    clock.advance(by: .seconds(30))
    #expect(group.summary.throughput == before)
    group.resumeAll()
    for step in 61...62 {
      clock.advance(by: frame - .nanoseconds(1))
      run.reporter.report(completed: 10 * step, of: 100_000)
      clock.advance(by: .nanoseconds(1))
    }
    let after = try #require(group.summary.throughput)
    #expect(abs(after - 600) / 600 < 1e-3)
    run.proceed.open()
  }

  @Test("A runner that joins mid-run counts once: pausing it stops the group's clock")
  func joinMidRunThenPause() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let runner = makeRunner()
    let run = await HeldRun.start(on: runner)
    group.add(runner)
    for step in 1...60 {
      run.reporter.report(completed: 10 * step, of: 100_000)
      clock.advance(by: frame)
    }
    let before = try #require(group.summary.throughput)
    runner.pause()
    clock.advance(by: .seconds(30))
    #expect(group.summary.throughput == before)
    run.proceed.open()
  }

  @Test("Runners that leave, reset or join with work done do not disturb the group's speed")
  func speedSurvivesMembershipChanges() async throws {
    let group = TaskRunnerGroup(clock: clock)
    let (a, b, late) = (makeRunner(), makeRunner(), makeRunner())
    group.add(a)
    group.add(b)
    let runA = await HeldRun.start(on: a)
    let runB = await HeldRun.start(on: b)
    let runLate = await HeldRun.start(on: late)
    runLate.reporter.report(completed: 50_000, of: 100_000)
    for step in 1...120 {
      runA.reporter.report(completed: 10 * step, of: 100_000)
      runB.reporter.report(completed: 10 * step, of: 100_000)
      if step == 60 {
        group.remove(b)  // its work so far stays counted; none is taken back
        group.add(late)  // its 50,000 units were done before it joined
      }
      clock.advance(by: frame)
    }
    let rate = try #require(group.summary.throughput)
    // a alone after the change, at 600 units a second; b's share decays out of the average.
    #expect(rate > 590 && rate < 1_300)
    for run in [runA, runB, runLate] { run.proceed.open() }
  }

  // MARK: - Observation

  @Test("Observation hears of the sums that change")
  func observation() async {
    let group = TaskRunnerGroup(clock: clock)
    let runner = makeRunner()
    group.add(runner)
    let changed = Locked<[String]>([])
    func track(_ name: String, _ read: @escaping @MainActor () -> Void) {
      withObservationTracking(read) { changed.withLock { $0.append(name) } }
    }
    track("fraction") { _ = group.fractionCompleted }
    track("counts") { _ = group.counts }
    track("members") { _ = group.members }
    let run = await HeldRun.start(on: runner)
    clock.advance(by: frame)
    #expect(changed.withLock { $0 } == ["counts"])
    run.reporter.report(completed: 1, of: 4)
    clock.advance(by: frame)
    #expect(changed.withLock { $0 } == ["counts", "fraction"])
    group.add(makeRunner())
    #expect(changed.withLock { $0 } == ["counts", "fraction", "members"])
    run.proceed.open()
  }

  private func counts(
    idle: Int = 0, running: Int = 0, paused: Int = 0, finished: Int = 0, failed: Int = 0,
    cancelled: Int = 0
  ) -> TaskRunnerGroup.PhaseCounts {
    var counts = TaskRunnerGroup.PhaseCounts()
    counts.idle = idle
    counts.running = running
    counts.paused = paused
    counts.finished = finished
    counts.failed = failed
    counts.cancelled = cancelled
    return counts
  }
}
