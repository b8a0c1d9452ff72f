/// The rules of a ``TaskRunnerGroup``: its members' updates in; their counts per phase, the sums,
/// the summary, when the group settles, and what each change must publish out.
///
/// A plain value that tests drive without a main actor. Each event rewrites the state and returns
/// an action of its own, or `nil` when it changes nothing. The machine listens to no runner, reads
/// no clock and calls no observer: ``TaskRunnerGroup`` listens to the runners, passes in their
/// updates and the time, and carries out the actions.
struct GroupStateMachine {
  typealias Member = TaskRunnerGroup.Member
  typealias Summary = TaskRunnerGroup.Summary
  typealias PhaseCounts = TaskRunnerGroup.PhaseCounts

  /// What the machine keeps of a member between frames.
  struct Entry: Identifiable, Sendable {
    let member: Member
    /// The listening registration, which the group cancels when the member leaves.
    var token: ObservationToken?
    /// The latest update the runner delivered, or a stand-in for its state until the first.
    var latest = ProgressUpdate(
      reason: .stateChanged, state: .idle, displayedProgress: 0, time: .zero)
    /// Whether the runner's first update, the one it gives at once when listened to, has come.
    var hasJoined = false
    /// Whether it joined from a queue that has yet to start it: counted as waiting while idle.
    var joinsWaiting: Bool
    /// Whether it is counted as waiting.
    var isWaiting = false
    /// The total count of the runner's latest run, once reported; kept after the run ends.
    var knownTotal: Double?
    /// The fraction the runner's run had when it last was active, kept after a failure or a
    /// cancellation: work done, for the group's speed, though the run shows 0.
    var lastActiveFraction = 0.0
    /// The share of the runner's work the group's speed has counted, or `nil` before the
    /// runner's first frame: what it had done when it joined is no speed of the group's.
    var countedFraction: Double?
    /// Its part in the group's sums.
    var share = TaskRunnerGroup.Share()
    /// Whether it changed since the last sum, so that the sum counts its advance.
    var isChanged = false
    /// The number of sums made before it last joined or changed: it changed since the last
    /// frame when that is the number of sums before the last one.
    var changedBeforeSum = 0

    var id: Member.ID { member.id }

    /// Takes in an update of the runner.
    mutating func take(_ update: ProgressUpdate) {
      latest = update
      if let progress = update.state.progress {
        if let total = progress.totalCount {
          knownTotal = Double(total)
        }
        lastActiveFraction = progress.fractionCompleted ?? lastActiveFraction
      } else if update.state.phase == .finished {
        lastActiveFraction = 1
      } else if update.state.phase == .idle {
        lastActiveFraction = 0
      }
    }

    /// Its share of the group's sums now.
    func share(weighting: TaskRunnerGroup.Weighting) -> TaskRunnerGroup.Share {
      let state = latest.state
      let fraction = state.fractionCompleted ?? 0
      let done: Double
      switch state.phase {
      case .idle, .running, .paused: done = fraction
      case .finished: done = 1
      case .failed, .cancelled: done = lastActiveFraction
      }
      return TaskRunnerGroup.Share(
        weight: member.weight ?? (weighting == .equal ? 1 : knownTotal), fraction: fraction,
        displayed: latest.displayedProgress, isOpen: state.phase.isActive || state.phase == .idle,
        done: done)
    }
  }

  /// What the group does after a member's update.
  struct UpdateAction: Equatable {
    /// Whether renderers hear of it: `.joined` for a member's first update, `.updated` after.
    var publishes: Published?
    /// Whether the group sums up at once rather than at its next frame: the update ended the
    /// group's last run, and a program that exits then shows the group's true end.
    var sumsUpNow: Bool

    /// The event a renderer gets for the update.
    enum Published: Equatable {
      /// The member's first update: it joined.
      case joined
      /// A later one.
      case updated
    }
  }

  /// What a sum must publish.
  struct SumAction {
    /// The new summary, which renderers get in every case.
    var summary: Summary
    /// The summary before, when the new one differs: Observation and observers hear of it.
    var changedFrom: Summary?
  }

  /// How much each runner counts.
  let weighting: TaskRunnerGroup.Weighting
  /// The members in the order they joined, those with a run under way marked.
  private(set) var members = SlotList<Entry>()
  /// The number of sums made: the frames of the group.
  private(set) var sumCount = 0
  /// The number of times a runner joined or left.
  private(set) var membership = 0
  /// The summary of the last sum.
  private(set) var summary = Summary.empty
  /// The members in each phase, as their updates arrive, ahead of the next sum.
  private(set) var liveCounts = PhaseCounts()
  /// Whether a member changed since the last sum.
  private(set) var isDirty = false
  private var sums = TaskRunnerGroup.GroupSums()
  /// The members that changed since the last sum.
  private var changed: [Member.ID] = []
  /// The members whose runs ended since ``takeEnded()`` last ran; some of them started again
  /// or left since.
  private var ended: [Member.ID] = []
  /// The shares changed since the sums were last added up afresh.
  private var changesSinceExactSums = 0
  /// The running time and the speed.
  private var timing = GroupTiming()
  /// Whether a run started since the last sum, though it may have ended since.
  private var startedSinceSum = false
  /// When the group settles, while no run is under way and it has not settled yet.
  private var settlesAt: Duration?

  init(weighting: TaskRunnerGroup.Weighting) {
    self.weighting = weighting
  }

  /// Whether the group has frames to make: a member changed, a run is under way, or the group
  /// is settling.
  var needsFrames: Bool {
    isDirty || summary.isActive || settlesAt != nil
  }

  /// Whether the group's work is over: every member's run ended and none waits to start.
  var isOver: Bool {
    liveCounts.total > 0 && liveCounts.active == 0 && liveCounts.idle == 0
  }

  // MARK: - Events

  /// A runner joins; `waiting`, it is counted as waiting while idle, as a queue's items are.
  ///
  /// It counts in the sums at once, as idle, and in the phases from its first ``update(_:_:at:)``.
  ///
  /// - Returns: `false` when it is a member already; nothing changed then.
  mutating func join(_ member: Member, waiting: Bool) -> Bool {
    var entry = Entry(member: member, joinsWaiting: waiting)
    entry.share = entry.share(weighting: weighting)
    entry.changedBeforeSum = sumCount
    guard members.append(entry) else { return false }
    membership += 1
    sums.add(entry.share)
    isDirty = true
    return true
  }

  /// The group listens to the member `id` through `token`, which it cancels when the member
  /// leaves.
  mutating func listening(to id: Member.ID, through token: ObservationToken) {
    members[id]?.token = token
  }

  /// A member's runner delivered `update`; its first is the state it joined in.
  ///
  /// - Returns: `nil` when `id` is no member.
  mutating func update(
    _ id: Member.ID, _ update: ProgressUpdate, at now: Duration
  )
    -> UpdateAction?
  {
    take(update, of: id, at: now)?.action
  }

  /// A member's runner delivered `update`, as ``update(_:_:at:)`` takes it; returns the
  /// member too, for the renderers, found by the one lookup the update costs.
  mutating func take(
    _ update: ProgressUpdate, of id: Member.ID, at now: Duration
  ) -> (action: UpdateAction, member: Member)? {
    guard var entry = members[id] else { return nil }
    let old = entry.latest.state.phase
    let new = update.state.phase
    entry.take(update)
    changeShare(of: &entry)
    let joins = !entry.hasJoined
    if joins {
      entry.hasJoined = true
      if entry.joinsWaiting && new == .idle {
        entry.isWaiting = true
        liveCounts.waiting += 1
      }
    } else if new != .idle {
      stopWaiting(&entry)
    }
    if new.isTerminal && (joins || !old.isTerminal) {
      ended.append(id)
    }
    entry.changedBeforeSum = sumCount
    members[id] = entry
    if joins || old.isActive != new.isActive {
      members.setMarked(id, new.isActive)
    }
    count(from: joins ? nil : old, to: new, at: now)
    isDirty = true
    if joins {
      return (UpdateAction(publishes: .joined, sumsUpNow: false), entry.member)
    }
    let action = UpdateAction(
      publishes: .updated,
      sumsUpNow: update.reason == .stateChanged && isOver && summary.counts != liveCounts)
    return (action, entry.member)
  }

  /// What the group does when a member leaves.
  struct LeaveAction {
    /// The member's listening registration, to cancel; renderers hear that it left.
    var token: ObservationToken?
  }

  /// A member leaves.
  ///
  /// - Returns: `nil` when `id` is no member.
  mutating func leave(_ id: Member.ID, at now: Duration) -> LeaveAction? {
    guard var entry = members.remove(id) else { return nil }
    membership += 1
    stopWaiting(&entry)
    if entry.hasJoined {
      count(from: entry.latest.state.phase, to: nil, at: now)
    }
    sums.remove(entry.share)
    isDirty = true
    return LeaveAction(token: entry.token)
  }

  /// The members whose runs ended since this was last called and that are still members, in
  /// the order they joined: what the group's `removeEnded()` looks at.
  mutating func takeEnded() -> [Member] {
    let candidates = ended.compactMap { id in members.slot(of: id).map { (id, $0) } }
    ended = []
    return candidates.sorted { $0.1 < $1.1 }.compactMap { members[$0.0]?.member }
  }

  /// The members as of now, in the order they joined: what a frame hands the renderers.
  var snapshot: TaskRunnerGroup.Members {
    TaskRunnerGroup.Members(entries: members, sumCount: sumCount, membership: membership)
  }

  /// Something other than a member changed what the summary says, such as the group's unit.
  mutating func setNeedsSum() {
    isDirty = true
  }

  /// Sums up every member at `now`, with `unit` for the summary.
  ///
  /// The sums kept by adding and taking away drift by rounding: they are added up afresh once
  /// there were as many changes as members (a cost of one addition per change), and whenever
  /// no run is under way, so that an end reads exactly.
  mutating func sumUp(unit: ProgressUnit, at now: Duration) -> SumAction {
    isDirty = false
    sumCount += 1
    defer { startedSinceSum = false }
    let isActive = liveCounts.active > 0
    if !isActive || changesSinceExactSums > max(members.count, 64) || !sums.total.isFinite {
      var exact = TaskRunnerGroup.GroupSums()
      for case let entry? in members.slots {
        exact.add(entry.share)
      }
      sums = exact
      changesSinceExactSums = 0
    }
    timing.record(advance: takeAdvance(), isActive: isActive, at: now)
    let estimate = timing.estimate(remaining: sums.left, isActive: isActive, at: now)
    var new = Summary(
      fractionCompleted: sums.fractionCompleted, displayedProgress: sums.displayedProgress,
      completedUnits: sums.completed, totalUnits: sums.total, isTotalKnown: sums.isTotalKnown,
      counts: liveCounts, throughput: estimate.throughput,
      estimatedTimeRemaining: estimate.timeRemaining, unit: unit)
    let old = summary
    if (old.isActive || startedSinceSum) && !new.isActive {
      settlesAt = now + TaskRunnerGroup.settlingInterval
    } else if new.isActive {
      settlesAt = nil
    }
    new.isSettled = !new.isActive && (settlesAt.map { now >= $0 } ?? true || isOver)
    if new.isSettled {
      settlesAt = nil
    }
    summary = new
    return SumAction(summary: new, changedFrom: new == old ? nil : old)
  }

  // MARK: - Bookkeeping

  /// Keeps count of the members in each phase as their updates arrive, so that the group's
  /// running time starts and stops at the moment of the transition, not at the next sum.
  private mutating func count(from old: RunPhase?, to new: RunPhase?, at now: Duration) {
    guard old != new else { return }
    if let old {
      liveCounts[old] -= 1
    }
    if let new {
      liveCounts[new] += 1
    }
    if new?.isActive == true {
      startedSinceSum = true
    }
    if old == .running || new == .running {
      timing.setRunning(liveCounts.running > 0, at: now)
    }
  }

  private mutating func stopWaiting(_ entry: inout Entry) {
    if entry.isWaiting {
      entry.isWaiting = false
      liveCounts.waiting -= 1
    }
  }

  /// Brings a member's share of the sums up to date, and notes that it changed.
  private mutating func changeShare(of entry: inout Entry) {
    let share = entry.share(weighting: weighting)
    if share != entry.share {
      sums.remove(entry.share)
      sums.add(share)
      entry.share = share
      changesSinceExactSums += 1
    }
    if !entry.isChanged {
      entry.isChanged = true
      changed.append(entry.id)
    }
  }

  /// The work the members that changed since the last sum did since then, weighted.
  ///
  /// That is what the speed measures. A runner that joins, goes back (a reset, a new run) or
  /// leaves adds nothing.
  private mutating func takeAdvance() -> Double {
    var advance = 0.0
    for id in changed {
      guard var entry = members[id] else { continue }
      let done = entry.share.done
      if let counted = entry.countedFraction, done > counted {
        advance += (done - counted) * sums.weight(of: entry.share)
      }
      entry.countedFraction = done
      entry.isChanged = false
      members[id] = entry
    }
    changed.removeAll(keepingCapacity: true)
    return advance
  }
}
