public import Observation

/// Many runners seen as one: the overall progress of a download queue, an export per photo, a
/// build's jobs.
///
/// A group sums up the runners you add: an overall ``fractionCompleted`` weighted by units (a
/// 3 GB download counts three times a 1 GB one) or equally, how many runners are in each phase,
/// and a speed and time remaining for all of the work, idle runners' included. Like a runner it
/// is isolated to the main actor and observable both through ``observe(_:)`` and through the
/// Observation framework, so a SwiftUI view reads it directly.
@MainActor
@Observable
public final class TaskRunnerGroup {
  /// What the group keeps of a member between frames.
  fileprivate final class MemberState {
    let member: Member
    /// The follow registration; the runner stops telling the group when it goes.
    var token: ObservationToken?
    /// The latest update the runner delivered.
    var latest: ProgressUpdate
    /// The total count of the runner's latest run, once reported; kept after the run ends.
    var knownTotal: Double?
    /// The fraction the runner's run had when it last was active, kept after a failure or a
    /// cancellation: work done, for the group's speed, though the run shows 0.
    var lastActiveFraction: Double = 0
    /// The share of the runner's work the group's speed has counted, or `nil` before the
    /// runner's first frame: what it had done when it joined is no speed of the group's.
    var countedFraction: Double?
    /// Its part in the group's sums.
    var share = Share()
    /// Its place in the group's ``TaskRunnerGroup/slots``.
    var slot: Int
    /// Whether it changed since the group's last frame, so that the frame counts its advance.
    var isChanged = false
    /// Whether it is still in the group.
    var isMember = true
    /// Whether a queue of the group has yet to start it: counted as waiting.
    var isWaiting = false
    /// Whether the runner's first update, the one it gives at once when followed, has come:
    /// the group counts that one itself as it follows the member.
    var hasJoined = false

    init(member: Member, latest: ProgressUpdate, slot: Int) {
      self.member = member
      self.latest = latest
      self.slot = slot
    }

    /// Takes in an update of the runner.
    func take(_ update: ProgressUpdate) {
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
    func share(weighting: Weighting) -> Share {
      let state = latest.state
      let fraction = state.fractionCompleted ?? 0
      let done: Double
      switch state.phase {
      case .idle, .running, .paused: done = fraction
      case .finished: done = 1
      case .failed, .cancelled: done = lastActiveFraction
      }
      return Share(
        weight: member.weight ?? (weighting == .equal ? 1 : knownTotal), fraction: fraction,
        displayed: latest.displayedProgress, isOpen: state.phase.isActive || state.phase == .idle,
        done: done)
    }
  }

  /// How much each runner counts in the overall progress.
  public let weighting: Weighting

  /// What the group's units measure, for the views and renderers that format its counts and
  /// speed: with ``Weighting/units``, set it to the runners' unit, such as
  /// ``ProgressUnit/bytes``.
  public var unit: ProgressUnit = .items {
    didSet { setNeedsFrame() }
  }

  /// How long the group waits, once no run is under way, before it is settled
  /// (``Summary/isSettled``): a queue that starts its next run within this time stays unsettled.
  public static let settlingInterval: Duration = .milliseconds(250)

  /// The longest a change waits before the group's sums follow it; its frame interval.
  public let updateInterval: Duration

  /// The clock of the group's frames, which a queue's runners share and its retries wait on.
  let clock: any Clock<Duration>

  /// The latest queue started on the group, under way or over, until another starts: what
  /// ``queue(of:)`` finds, and, while it is under way, what ``pauseAll()``, ``resumeAll()`` and
  /// ``cancelAll()`` hold, resume and stop.
  @ObservationIgnored var queue: (any QueueControl)?

  /// The queue under way on the group, if any.
  var queueUnderWay: (any QueueControl)? {
    queue.flatMap { $0.isOver ? nil : $0 }
  }

  /// The runners in the group, in the order they joined.
  public var members: [Member] {
    access(keyPath: \.members)
    return slots.compactMap { $0?.member }
  }

  /// The members in the order they joined, with a hole where one left.
  ///
  /// Leaving costs the same whatever the size of the group; the holes are compacted once they
  /// are more than half.
  @ObservationIgnored private var slots: [MemberState?] = []
  @ObservationIgnored private var states: [ObjectIdentifier: MemberState] = [:]
  @ObservationIgnored private var sums = GroupSums()
  /// The members that changed since the last frame.
  @ObservationIgnored private var changed: [MemberState] = []
  /// The members whose runs ended since ``removeEnded()`` last ran: what it looks at.
  ///
  /// Some of them started again or left since. Identities, so that a runner that left is not
  /// kept.
  @ObservationIgnored private var ended: [ObjectIdentifier] = []
  /// The shares changed since the sums were last added up afresh.
  @ObservationIgnored private var changesSinceExactSums = 0
  @ObservationIgnored private var summaryValue = Summary.empty
  @ObservationIgnored private let observers = ObserverRegistry<Summary>()
  @ObservationIgnored private let renderers = ObserverRegistry<Event>()
  @ObservationIgnored private var time: FrameTime
  @ObservationIgnored private var frames: FrameTicker.Registration?
  @ObservationIgnored private var timing = GroupTiming()
  /// The members in each phase, as their updates arrive.
  @ObservationIgnored private var liveCounts = PhaseCounts()
  /// Whether a run started since the last frame, though it may have ended since.
  @ObservationIgnored private var startedSinceFrame = false
  /// When the group settles, while no run is under way and it has not settled yet.
  @ObservationIgnored private var settlesAt: Duration?
  /// Whether a sum is asked for at the end of the wake-up under way.
  @ObservationIgnored private var isSumScheduled = false
  /// Whether a member changed since the last frame.
  @ObservationIgnored private var isDirty = false

  /// Creates an empty group.
  ///
  /// - Parameters:
  ///   - weighting: How much each runner counts: by its total count (the default) or equally.
  ///   - unit: What the units measure, for formatting; `.items` by default.
  ///   - updateInterval: The longest a change waits before the sums follow it; one frame at
  ///     60 Hz by default, kept within 1 ms...60 s.
  ///   - clock: The clock of the group's frames; give it the runners' clock, so that the group
  ///     sums up in the same wake-up as their frames. Pass a ``ManualClock`` in tests.
  public init(
    weighting: Weighting = .units,
    unit: ProgressUnit = .items,
    updateInterval: Duration = .seconds(1) / 60,
    clock: some Clock<Duration> = ContinuousClock()
  ) {
    self.weighting = weighting
    self.unit = unit
    self.updateInterval = min(max(updateInterval, .milliseconds(1)), .seconds(60))
    self.clock = clock
    self.time = FrameTime(ticker: FrameTicker.shared(for: clock))
    self.frames = time.ticker.register(self, every: self.updateInterval)
  }

  /// Stops following the runners and detaches every renderer; the runners go on.
  isolated deinit {
    frames.map(time.ticker.remove)
    // Renderers draw the group as it is, not as it was at the last frame, before they detach.
    if isDirty && !renderers.isEmpty {
      sumUp(at: time.now())
    }
    for state in states.values {
      state.token?.cancel()
    }
    observers.close()
    renderers.close()
  }

  // MARK: - Members

  /// Adds a runner, weighted as ``weighting`` says or by a weight of its own.
  ///
  /// ```swift
  /// let group = TaskRunnerGroup()
  /// for file in files {
  ///   group.add(TaskRunner(), label: file.name, weight: Double(file.size))
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - runner: The runner. The group keeps it until it is removed.
  ///   - label: The text a renderer shows for it, such as a file name.
  ///   - weight: Its share of the overall progress, whatever ``weighting`` says: a finite
  ///     number, 0 or more. In ``Weighting/units`` give it in the runner's units, so that the
  ///     group's speed and time remaining add up. `nil`, the default, or a weight that is
  ///     negative or not a finite number, counts as ``weighting`` says, as a queue's weights do.
  /// - Returns: `true` if the runner joined, `false` if it was in the group already, in which
  ///   case nothing changed.
  @discardableResult
  public func add(_ runner: TaskRunner, label: String = "", weight: Double? = nil) -> Bool {
    let weight = weight.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    return insert(Member(runner: runner, label: label, weight: weight))
  }

  /// Removes a runner; its run, if any, goes on.
  ///
  /// - Returns: `true` if the runner was in the group.
  @discardableResult
  public func remove(_ runner: TaskRunner) -> Bool {
    guard let state = states[ObjectIdentifier(runner)] else { return false }
    withMutation(keyPath: \.members) {
      leave(state)
    }
    return true
  }

  /// Removes every runner whose last run ended, finished, failed or cancelled: what a queue
  /// clears away.
  ///
  /// It costs the members whose runs ended since it last ran, not every member, and
  /// Observation hears of ``members`` once.
  public func removeEnded() {
    // In the order the members joined, as they are listed.
    let candidates = ended.compactMap { states[$0] }.sorted { $0.slot < $1.slot }
    ended = []
    let leaving = candidates.filter { $0.isMember && $0.member.runner.state.phase.isTerminal }
    guard !leaving.isEmpty else { return }
    withMutation(keyPath: \.members) {
      // `leave` passes over a member that a renderer removed meanwhile.
      for state in leaving {
        leave(state)
      }
    }
  }

  /// Takes a member out of the group; the caller tells Observation that ``members`` changed.
  private func leave(_ state: MemberState) {
    let id = state.member.id
    guard states.removeValue(forKey: id) != nil else { return }
    state.token?.cancel()
    state.isMember = false
    stopWaiting(state)
    note(from: state.latest.state.phase, to: nil)
    sums.remove(state.share)
    slots[state.slot] = nil
    if slots.count > 16 && states.count < slots.count / 2 {
      slots.removeAll { $0 == nil }
      for (slot, state) in slots.enumerated() {
        state?.slot = slot
      }
    }
    renderers.publish(.left(id))
    setNeedsFrame()
  }

  /// Adds a member; a `waiting` one, idle, counts as waiting until it leaves idle or the group.
  func insert(_ member: Member, waiting: Bool = false) -> Bool {
    guard states[member.id] == nil else { return false }
    let state = withMutation(keyPath: \.members) { addSlot(for: member) }
    follow(state, waiting: waiting)
    return true
  }

  /// Adds the members a queue appends, waiting, telling Observation of them once rather than
  /// once each; those in the group already are passed over.
  ///
  /// Each is followed as it joins, inside the one mutation: what its renderers and observers do
  /// when they hear of it finds it counted and summed up, like any member.
  func insertWaiting(_ members: some Sequence<Member>) {
    withMutation(keyPath: \.members) {
      for member in members where states[member.id] == nil {
        follow(addSlot(for: member), waiting: true)
      }
    }
  }

  /// Makes a new member's state and gives it the next slot; the caller tells Observation.
  private func addSlot(for member: Member) -> MemberState {
    let state = MemberState(member: member, latest: placeholder, slot: slots.count)
    states[member.id] = state
    slots.append(state)
    return state
  }

  /// Follows a member that was just added to the slots: its sums, counts and updates.
  private func follow(_ state: MemberState, waiting: Bool) {
    let member = state.member
    state.share = state.share(weighting: weighting)
    sums.add(state.share)
    // The first call comes at once, with the runner's current state: the `.joined` event's.
    // The callback holds the member's identity, not the member: the runner holds the callback.
    // It holds the state unowned, not weak: the state's token is cancelled before the group lets
    // the state go (`remove`, the group's `deinit`), and a runner calls no cancelled callback;
    // without a weak reference, the state's retains and releases take the fast path (weak ones
    // were a fifth of `removeEnded`).
    let id = member.id
    state.token = member.runner.follow { [weak self, unowned state] update in
      guard let self else { return }
      // Held strongly for the call: a renderer that hears of it may remove the member.
      let state = state
      let old = state.latest.state.phase
      state.take(update)
      changeShare(of: state)
      if update.state.phase.isTerminal && !old.isTerminal {
        ended.append(id)
      }
      if !state.hasJoined {
        state.hasJoined = true  // counted below, as the member is followed
      } else {
        if update.state.phase != .idle {
          stopWaiting(state)
        }
        note(from: old, to: update.state.phase)
        if !renderers.isEmpty {
          renderers.publish(.updated(id, update))
        }
      }
      setNeedsFrame()
      // The end of the last run is summed up at once, not on the next frame: a program that
      // exits when its last run ends shows the group's true end.
      if update.reason == .stateChanged, isOver, summaryValue.counts != liveCounts {
        sumUp(at: time.now())
      }
    }
    note(from: nil, to: state.latest.state.phase)
    if waiting && state.latest.state.phase == .idle {
      state.isWaiting = true
      liveCounts.waiting += 1
    }
    if state.latest.state.phase.isTerminal {
      ended.append(member.id)
    }
    renderers.publish(.joined(member, state.latest))
  }

  /// Keeps count of the members in each phase as their updates arrive, so that the group's
  /// running time starts and stops at the moment of the transition, not at the next frame.
  private func note(from old: RunPhase?, to new: RunPhase?) {
    guard old != new else { return }
    if let old {
      liveCounts[old] -= 1
    }
    if let new {
      liveCounts[new] += 1
    }
    if new?.isActive == true {
      startedSinceFrame = true
    }
    if old == .running || new == .running {
      timing.setRunning(liveCounts.running > 0, at: time.now())
    }
  }

  private func stopWaiting(_ state: MemberState) {
    if state.isWaiting {
      state.isWaiting = false
      liveCounts.waiting -= 1
    }
  }

  /// Brings a member's share of the sums up to date, and notes that it changed.
  private func changeShare(of state: MemberState) {
    let share = state.share(weighting: weighting)
    if share != state.share {
      sums.remove(state.share)
      sums.add(share)
      state.share = share
      changesSinceExactSums += 1
    }
    if !state.isChanged {
      state.isChanged = true
      changed.append(state)
    }
  }

  /// Whether the group's work is over: every member's run ended and none waits to start.
  private var isOver: Bool {
    liveCounts.total > 0 && liveCounts.active == 0 && liveCounts.idle == 0
  }

  /// An update that stands for a runner's state until its first call comes (at once).
  private var placeholder: ProgressUpdate {
    ProgressUpdate(reason: .stateChanged, state: .idle, displayedProgress: 0, time: .zero)
  }

  // MARK: - Sums

  /// The overall progress as of the last frame.
  public var summary: Summary {
    access(keyPath: \.summary)
    return summaryValue
  }

  /// The weighted share of the work done, in `0...1`; see ``Summary/fractionCompleted``.
  public var fractionCompleted: Double {
    access(keyPath: \.fractionCompleted)
    return summaryValue.fractionCompleted
  }

  /// How many runners are in each phase: `counts.description` is `3 running, 5 finished`.
  public var counts: PhaseCounts {
    access(keyPath: \.counts)
    return summaryValue.counts
  }

  // MARK: - Observing

  /// Calls `observer` at once with the current summary, then once per frame in which it changed.
  ///
  /// - Important: The calls stop as soon as the token is released, not only when it is
  ///   cancelled: keep it in a property, or ``ObservationToken/store(in:)-(Set<ObservationToken>)``
  ///   it in a set that is one. In an optimized build, a token in a local constant that is never
  ///   used again is released at once. A renderer given to ``attach(_:)`` is kept by the group
  ///   instead.
  ///
  /// - Returns: A token. The calls stop when it is cancelled or released, so keep it.
  public func observe(_ observer: @escaping @MainActor (Summary) -> Void) -> ObservationToken {
    sumUpIfNeeded()
    return observers.add(initial: summaryValue, observer)
  }

  /// Attaches a renderer for as long as the group lives: it gets every member and the summary at
  /// once, then every event of the group (see ``Event``).
  ///
  /// ```swift
  /// let group = TaskRunnerGroup()
  /// group.attach(TerminalGroupRenderer())
  /// ```
  ///
  /// Unlike ``observe(_:)``, whose calls stop when its token is released, `attach` needs no
  /// token kept: the group keeps the renderer until the group goes away or the token is
  /// cancelled.
  ///
  /// - Returns: A token to detach the renderer early with ``ObservationToken/cancel(isolation:)``.
  ///   Releasing it does not detach the renderer.
  @discardableResult
  public func attach(_ renderer: some GroupRenderer) -> ObservationToken {
    sumUpIfNeeded()
    let initial =
      members.compactMap { member in
        states[member.id].map { Event.joined(member, $0.latest) }
      } + [.frame(summaryValue, time: time.now())]
    return renderers.add(
      initialEvents: initial, cancelsOnRelease: false, onDetach: { renderer.didDetach() },
      { event in renderer.render(event) })
  }

  // MARK: - Acting on every runner

  /// Cancels every active run, and the queue under way: its items not started end cancelled.
  ///
  /// The group's ``counts`` and sums say so when this returns.
  public func cancelAll() {
    // The queue first, so that it starts nothing in the place of the runs cancelled.
    queueUnderWay?.cancel()
    for runner in members.map(\.runner) {
      runner.cancel()
    }
    sumUpIfNeeded()
  }

  /// Pauses every running run, and the queue under way: it starts no item until
  /// ``resumeAll()``.
  ///
  /// The group's ``counts`` say so when this returns.
  public func pauseAll() {
    queueUnderWay?.pause()
    for runner in members.map(\.runner) {
      runner.pause()
    }
    sumUpIfNeeded()
  }

  /// Resumes every paused run, and the queue under way, which starts items again.
  ///
  /// The group's ``counts`` say so when this returns.
  public func resumeAll() {
    for runner in members.map(\.runner) {
      runner.resume()
    }
    queueUnderWay?.resume()
    sumUpIfNeeded()
  }

  // MARK: - Frames

  private func setNeedsFrame() {
    isDirty = true
    if !sumUpAtEndOfWakeUp(), let frames {
      time.ticker.setNeedsFrames(frames)
    }
  }

  /// Whether the group has frames to make: a member changed, a run is under way, or the group
  /// is settling.
  private var needsFrames: Bool {
    isDirty || summaryValue.isActive || settlesAt != nil
  }

  /// Sums up at the end of the frame timer's wake-up under way, once, after every runner's frame
  /// of it: the sums are then those of the reports those frames just read.
  ///
  /// - Returns: `false` when no wake-up is under way.
  private func sumUpAtEndOfWakeUp() -> Bool {
    guard !isSumScheduled else { return true }
    // Outside a wake-up, no action is made only to be dropped: most changes come between two.
    guard time.ticker.isWaking else { return false }
    isSumScheduled = time.ticker.atEndOfWakeUp { [weak self] tickerTime in
      guard let self else { return }
      if needsFrames {
        sumUp(at: time.at(tickerTime))
      }
      // After the sum: a change its observers make is summed up on the next frame.
      isSumScheduled = false
      if let frames {
        time.ticker.setNeedsFrames(frames, needsFrames)
      }
    }
    return isSumScheduled
  }

  /// Brings the sums up to date, if a member changed since they were last: before a new
  /// observer or renderer gets them, and after an action whose end the caller reads at once.
  func sumUpIfNeeded() {
    if isDirty {
      sumUp(at: time.now())
    }
  }

  /// Sums up every member: the sums, Observation, the observers and the renderers.
  private func sumUp(at now: Duration) {
    isDirty = false
    defer { startedSinceFrame = false }
    let isActive = liveCounts.active > 0
    // Sums kept by adding and taking away drift by rounding: they are added up afresh once
    // there were as many changes as members (a cost of one addition per change), and whenever
    // no run is under way, so that an end reads exactly.
    if !isActive || changesSinceExactSums > max(states.count, 64) || !sums.total.isFinite {
      // A loop here, on the main actor, not a closure given to a lazy map: the closure checked
      // at run time that it was on the main actor, for every member.
      var exact = GroupSums()
      for case let state? in slots {
        exact.add(state.share)
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
    let old = summaryValue
    if (old.isActive || startedSinceFrame) && !new.isActive {
      settlesAt = now + TaskRunnerGroup.settlingInterval
    } else if new.isActive {
      settlesAt = nil
    }
    new.isSettled = !new.isActive && (settlesAt.map { now >= $0 } ?? true || isOver)
    if new.isSettled {
      settlesAt = nil
    }
    summaryValue = new
    if new != old {
      withMutation(keyPath: \.summary) {}
      notifyChange(of: \.fractionCompleted, showing: \.fractionCompleted, from: old, to: new)
      notifyChange(of: \.counts, showing: \.counts, from: old, to: new)
      observers.publish(new)
    }
    if !renderers.isEmpty {
      renderers.publish(.frame(new, time: now))
    }
  }

  /// The work the members that changed since the last frame did since then, weighted.
  ///
  /// That is what the speed measures. A runner that joins, goes back (a reset, a new run) or
  /// leaves adds nothing.
  private func takeAdvance() -> Double {
    var advance = 0.0
    for state in changed where state.isMember {
      let done = state.share.done
      if let counted = state.countedFraction, done > counted {
        advance += (done - counted) * sums.weight(of: state.share)
      }
      state.countedFraction = done
      state.isChanged = false
    }
    changed.removeAll(keepingCapacity: true)
    return advance
  }
}

extension TaskRunnerGroup: ObservedSnapshot {}

extension TaskRunnerGroup: FrameClient {
  /// Sums up at the end of this wake-up, if a member changed or a run is under way or the group
  /// is settling.
  func frame(at tickerTime: Duration) -> Bool {
    needsFrames && sumUpAtEndOfWakeUp()
  }
}

/// How long some run of a group has been running, and how fast the group's work goes.
private struct GroupTiming {
  /// The time during which some run was running.
  private var runningTime = Stopwatch()
  private var estimator: ThroughputEstimator?
  /// The work done while the group was followed: every runner's advances, added up.
  private var work = 0.0

  /// Starts or stops the running time at `now`.
  mutating func setRunning(_ running: Bool, at now: Duration) {
    if running {
      runningTime.start(at: now)
    } else {
      runningTime.stop(at: now)
    }
  }

  /// Records the group's position: a sample while some run is running; otherwise a move that
  /// the speed leaves out.
  ///
  /// `isActive` says whether some run is under way, running or paused.
  mutating func record(advance: Double, isActive: Bool, at now: Duration) {
    let time = runningTime.elapsed(at: now)
    if advance.isFinite {
      work += advance
    }
    guard isActive else {
      estimator?.skip(to: work, at: time)
      return
    }
    if estimator == nil {
      estimator = ThroughputEstimator(start: time, position: work)
    } else if runningTime.isRunning {
      estimator?.record(work, at: time)
    } else {
      estimator?.skip(to: work, at: time)
    }
  }

  /// The speed and the time `remaining` units take at it, while some run is under way.
  func estimate(remaining: Double, isActive: Bool, at now: Duration) -> RunTiming.Estimate {
    guard isActive, let estimator else { return .unknown }
    let time = runningTime.elapsed(at: now)
    guard let rate = estimator.rate(at: time) else { return .unknown }
    return RunTiming.Estimate(
      throughput: rate, timeRemaining: estimator.timeRemaining(for: remaining, at: time))
  }
}
