import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// The group's rules, driven as a value: every event in every member phase, with the action it
/// must return and the counts, sums and summary it must leave.
///
/// Main-actor isolated only to make the runners that members name; the machine never reads them.
@MainActor
@Suite("Group state machine")
struct GroupStateMachineTests {
  typealias Machine = GroupStateMachine
  typealias Action = GroupStateMachine.UpdateAction

  /// A state in `phase`: running and paused halfway through 4 units.
  static func state(_ phase: RunPhase) -> RunState {
    switch phase {
    case .idle: .idle
    case .running: .running(RunProgress(completed: 2, of: 4))
    case .paused: .paused(RunProgress(completed: 2, of: 4))
    case .finished: .finished
    case .failed: .failed(TestError())
    case .cancelled: .cancelled
    }
  }

  static func update(
    _ phase: RunPhase, reason: ProgressUpdate.Reason = .stateChanged, at time: Duration = .zero
  ) -> ProgressUpdate {
    ProgressUpdate(
      reason: reason, state: state(phase), displayedProgress: state(phase).fractionCompleted ?? 0,
      time: time)
  }

  static func counts(_ phases: [RunPhase], waiting: Int = 0) -> TaskRunnerGroup.PhaseCounts {
    var counts = TaskRunnerGroup.PhaseCounts()
    for phase in phases {
      counts[phase] += 1
    }
    counts.waiting = waiting
    return counts
  }

  let runners = [TaskRunner(), TaskRunner()]

  func member(_ index: Int, weight: Double? = nil) -> TaskRunnerGroup.Member {
    TaskRunnerGroup.Member(runner: runners[index], label: "m\(index)", weight: weight)
  }

  /// A machine with member 0 joined in `phase`.
  func machine(joinedIn phase: RunPhase, waiting: Bool = false) -> Machine {
    var machine = Machine(weighting: .units)
    let joined = machine.join(member(0), waiting: waiting)
    #expect(joined)
    let action = machine.update(member(0).id, Self.update(phase), at: .zero)
    #expect(action == Action(publishes: .joined, sumsUpNow: false))
    return machine
  }

  // MARK: - Joining

  @Test(
    "A member counts in its phase from its first update, which is its join",
    arguments: RunPhase.allCases)
  func joinCountsFromTheFirstUpdate(phase: RunPhase) {
    var machine = Machine(weighting: .units)
    let joined = machine.join(member(0), waiting: false)
    #expect(joined)
    #expect(machine.liveCounts == Self.counts([]))
    #expect(machine.isDirty)
    let joinedAgain = machine.join(member(0), waiting: false)
    #expect(!joinedAgain, "a member joins once")
    let action = machine.update(member(0).id, Self.update(phase), at: .zero)
    #expect(action == Action(publishes: .joined, sumsUpNow: false))
    #expect(machine.liveCounts == Self.counts([phase]))
    #expect(machine.members.elements.map(\.latest.state) == [Self.state(phase)])
    let ended = machine.takeEnded()
    #expect(ended.map(\.id) == (phase.isTerminal ? [member(0).id] : []))
  }

  @Test(
    "A queue's member counts as waiting while idle, and no longer once it leaves idle",
    arguments: RunPhase.allCases)
  func waitingMembers(phase: RunPhase) {
    var machine = machine(joinedIn: .idle, waiting: true)
    #expect(machine.liveCounts == Self.counts([.idle], waiting: 1))
    _ = machine.update(member(0).id, Self.update(phase), at: .zero)
    #expect(machine.liveCounts == Self.counts([phase], waiting: phase == .idle ? 1 : 0))
    // Joined in another phase, it never counts as waiting.
    var other = self.machine(joinedIn: phase, waiting: true)
    #expect(other.liveCounts == Self.counts([phase], waiting: phase == .idle ? 1 : 0))
    let left = other.leave(member(0).id, at: .zero)
    #expect(left != nil)
    #expect(other.liveCounts == Self.counts([]))
  }

  // MARK: - Updates

  nonisolated static let pairs = RunPhase.allCases.flatMap { from in
    RunPhase.allCases.map { (from, $0) }
  }

  @Test(
    "Every update from every phase to every phase: the counts follow, and the end of the last run sums up at once",
    arguments: pairs)
  func everyUpdate(from: RunPhase, to: RunPhase) {
    var machine = machine(joinedIn: from)
    let action = machine.update(member(0).id, Self.update(to), at: .milliseconds(10))
    // When the only member's run ends, the group's work is over, and its last sum did not
    // count that yet: the group sums up at once.
    #expect(action == Action(publishes: .updated, sumsUpNow: to.isTerminal))
    #expect(machine.liveCounts == Self.counts([to]))
    #expect(machine.isOver == to.isTerminal)
    let ended = machine.takeEnded()
    #expect(ended.map(\.id) == (from.isTerminal || to.isTerminal ? [member(0).id] : []))
    let endedAgain = machine.takeEnded()
    #expect(endedAgain.isEmpty, "taken once")
  }

  @Test("A frame of a member's own never sums up at once", arguments: RunPhase.allCases)
  func framesDoNotSumUpAtOnce(phase: RunPhase) {
    var machine = machine(joinedIn: .running)
    let action = machine.update(member(0).id, Self.update(phase, reason: .frame), at: .zero)
    #expect(action == Action(publishes: .updated, sumsUpNow: false))
  }

  @Test(
    "The end of a run that the sums already count is not summed up again",
    arguments: [RunPhase.finished, .failed, .cancelled])
  func anEndAlreadySummed(phase: RunPhase) {
    var machine = machine(joinedIn: phase)
    _ = machine.sumUp(unit: .items, at: .zero)
    let action = machine.update(member(0).id, Self.update(phase), at: .zero)
    #expect(action == Action(publishes: .updated, sumsUpNow: false))
  }

  // MARK: - Leaving

  @Test(
    "A member leaves from every phase; later events about it change nothing",
    arguments: RunPhase.allCases)
  func leaving(phase: RunPhase) {
    var machine = machine(joinedIn: phase)
    let sum = machine.sumUp(unit: .items, at: .zero)
    #expect(sum.summary.counts == Self.counts([phase]))
    let left = machine.leave(member(0).id, at: .zero)
    #expect(left != nil)
    #expect(machine.members.isEmpty)
    #expect(machine.liveCounts == Self.counts([]))
    #expect(machine.isDirty)
    let leftAgain = machine.leave(member(0).id, at: .zero)
    #expect(leftAgain == nil)
    #expect(machine.update(member(0).id, Self.update(.running), at: .zero) == nil)
    let ended = machine.takeEnded()
    #expect(ended.isEmpty)
    let after = machine.sumUp(unit: .items, at: .zero)
    #expect(after.summary.counts == Self.counts([]))
    #expect(after.summary.totalUnits == 0)
    #expect(after.changedFrom == sum.summary)
  }

  // MARK: - Sums and settling

  @Test func theSummaryWeighsEachMemberAndChangesOnlyWhenItsValuesDo() {
    var machine = Machine(weighting: .units)
    let joined0 = machine.join(member(0, weight: 300), waiting: false)
    #expect(joined0)
    let joined1 = machine.join(member(1, weight: 100), waiting: false)
    #expect(joined1)
    let empty = machine.sumUp(unit: .bytes, at: .zero)
    #expect(empty.summary.totalUnits == 400)
    _ = machine.update(member(0).id, Self.update(.running), at: .zero)
    _ = machine.update(member(1).id, Self.update(.finished), at: .zero)
    let sum = machine.sumUp(unit: .bytes, at: .milliseconds(16))
    #expect(sum.summary.fractionCompleted == (150.0 + 100) / 400)
    #expect(sum.summary.completedUnits == 250)
    #expect(sum.summary.counts == Self.counts([.running, .finished]))
    #expect(sum.summary.unit == .bytes)
    #expect(!sum.summary.isSettled)
    #expect(sum.changedFrom == empty.summary)
    #expect(!machine.isDirty)
    #expect(machine.needsFrames, "a run is under way")
    let unchanged = machine.sumUp(unit: .bytes, at: .milliseconds(16))
    #expect(unchanged.changedFrom == nil)
  }

  @Test func aGroupWithAMemberWaitingSettlesOnlyAfterTheSettlingInterval() {
    var machine = machine(joinedIn: .idle, waiting: true)
    let joined1 = machine.join(member(1), waiting: true)
    #expect(joined1)
    _ = machine.update(member(1).id, Self.update(.idle), at: .zero)
    _ = machine.update(member(0).id, Self.update(.running), at: .zero)
    var settled: [Bool] = []
    settled.append(machine.sumUp(unit: .items, at: .zero).summary.isSettled)
    let end = machine.update(member(0).id, Self.update(.finished), at: .milliseconds(5))
    #expect(end == Action(publishes: .updated, sumsUpNow: false), "member 1 waits to start")
    let interval = TaskRunnerGroup.settlingInterval
    for time in [Duration.milliseconds(10), .milliseconds(10) + interval - .nanoseconds(1)] {
      settled.append(machine.sumUp(unit: .items, at: time).summary.isSettled)
      #expect(machine.needsFrames, "settling")
    }
    settled.append(machine.sumUp(unit: .items, at: .milliseconds(10) + interval).summary.isSettled)
    #expect(settled == [false, false, false, true])
    #expect(!machine.needsFrames)
  }

  @Test func aGroupWhoseLastRunEndsWithNoneWaitingSettlesAtOnce() {
    var machine = machine(joinedIn: .running)
    let running = machine.sumUp(unit: .items, at: .zero)
    #expect(!running.summary.isSettled)
    let end = machine.update(member(0).id, Self.update(.finished), at: .milliseconds(5))
    #expect(end == Action(publishes: .updated, sumsUpNow: true))
    let sum = machine.sumUp(unit: .items, at: .milliseconds(5))
    #expect(sum.summary.isSettled)
    #expect(sum.summary.fractionCompleted == 1)
    #expect(!machine.needsFrames)
  }

  @Test func takeEndedListsTheMembersInJoinOrder() {
    var machine = Machine(weighting: .equal)
    for index in [1, 0] {
      let joined = machine.join(member(index), waiting: false)
      #expect(joined)
      _ = machine.update(member(index).id, Self.update(.running), at: .zero)
    }
    _ = machine.update(member(0).id, Self.update(.failed), at: .zero)
    _ = machine.update(member(1).id, Self.update(.finished), at: .zero)
    let ended = machine.takeEnded()
    #expect(ended.map(\.label) == ["m1", "m0"])
  }
}
