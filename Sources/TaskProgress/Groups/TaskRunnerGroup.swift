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
  /// How much each runner counts in the overall progress.
  public let weighting: Weighting

  /// What the group's units measure, for the views and renderers that format its counts and
  /// speed: with ``Weighting/units``, set it to the runners' unit, such as
  /// ``ProgressUnit/bytes``.
  public var unit: ProgressUnit = .items {
    didSet {
      machine.setNeedsSum()
      setNeedsFrame()
    }
  }

  /// How long the group waits, once no run is under way, before it is settled
  /// (``Summary/isSettled``): a queue that starts its next run within this time stays unsettled.
  public nonisolated static let settlingInterval: Duration = .milliseconds(250)

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
    return machine.members.elements.map(\.member)
  }

  /// The rules: the members, their counts and sums, the summary and when the group settles.
  @ObservationIgnored private var machine: GroupStateMachine
  @ObservationIgnored private let observers = ObserverRegistry<Summary>()
  @ObservationIgnored private let renderers = ObserverRegistry<Event>()
  @ObservationIgnored private var time: FrameTime
  @ObservationIgnored private var frames: FrameTicker.Registration?
  /// Whether a sum is asked for at the end of the wake-up under way.
  @ObservationIgnored private var isSumScheduled = false

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
    self.machine = GroupStateMachine(weighting: weighting)
    self.unit = unit
    self.updateInterval = min(max(updateInterval, .milliseconds(1)), .seconds(60))
    self.clock = clock
    self.time = FrameTime(ticker: FrameTicker.shared(for: clock))
    self.frames = time.ticker.register(self, every: self.updateInterval)
  }

  /// Stops listening to the runners and detaches every renderer; the runners go on.
  isolated deinit {
    frames.map(time.ticker.remove)
    // Renderers draw the group as it is, not as it was at the last frame, before they detach.
    if machine.isDirty && !renderers.isEmpty {
      sumUp(at: time.now())
    }
    for entry in machine.members.elements {
      entry.token?.cancel()
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
    guard machine.members.contains(ObjectIdentifier(runner)) else { return false }
    withMutation(keyPath: \.members) {
      leave(ObjectIdentifier(runner))
    }
    return true
  }

  /// Removes every runner whose last run ended, finished, failed or cancelled: what a queue
  /// clears away.
  ///
  /// It costs the members whose runs ended since it last ran, not every member, and
  /// Observation hears of ``members`` once.
  public func removeEnded() {
    let leaving = machine.takeEnded().filter { $0.runner.state.phase.isTerminal }
    guard !leaving.isEmpty else { return }
    withMutation(keyPath: \.members) {
      // `leave` passes over a member that a renderer removed meanwhile.
      for member in leaving {
        leave(member.id)
      }
    }
  }

  /// Takes a member out of the group; the caller tells Observation that ``members`` changed.
  private func leave(_ id: Member.ID) {
    guard let action = machine.leave(id, at: time.now()) else { return }
    action.token?.cancel()
    renderers.publish(.left(id))
    setNeedsFrame()
  }

  /// Adds a member; a `waiting` one, idle, counts as waiting until it leaves idle or the group.
  func insert(_ member: Member, waiting: Bool = false) -> Bool {
    guard !machine.members.contains(member.id) else { return false }
    withMutation(keyPath: \.members) {
      join(member, waiting: waiting)
    }
    return true
  }

  /// Adds the members a queue appends, waiting, telling Observation of them once rather than
  /// once each; those in the group already are passed over.
  ///
  /// Each is listened to as it joins, inside the one mutation: what its renderers and observers do
  /// when they hear of it finds it counted and summed up, like any member.
  func insertWaiting(_ members: some Sequence<Member>) {
    withMutation(keyPath: \.members) {
      for member in members {
        join(member, waiting: true)
      }
    }
  }

  /// Adds a member and listens to its runner; the caller tells Observation.
  private func join(_ member: Member, waiting: Bool) {
    guard machine.join(member, waiting: waiting) else { return }
    // The first call comes at once, with the runner's current state: the member's `.joined`.
    // The callback holds the member's identity, not the member: the runner holds the callback.
    let id = member.id
    let token = member.runner.listen { [weak self] update in
      self?.memberUpdated(id, update)
    }
    machine.listening(to: id, through: token)
  }

  /// Takes in a member's update, and carries out what the machine says.
  private func memberUpdated(_ id: Member.ID, _ update: ProgressUpdate) {
    guard let (action, member) = machine.take(update, of: id, at: time.now()) else { return }
    // A member's first update, the state it joined in, goes out as any other: renderers keep
    // what they draw of a member by its ID, and the frames list the members.
    if action.publishes != nil, !renderers.isEmpty {
      renderers.publish(.updated(member, update))
    }
    setNeedsFrame()
    if action.sumsUpNow {
      sumUp(at: time.now())
    }
  }

  // MARK: - Sums

  /// The overall progress as of the last frame.
  public var summary: Summary {
    access(keyPath: \.summary)
    return machine.summary
  }

  /// The weighted share of the work done, in `0...1`; see ``Summary/fractionCompleted``.
  public var fractionCompleted: Double {
    access(keyPath: \.fractionCompleted)
    return machine.summary.fractionCompleted
  }

  /// How many runners are in each phase: `counts.description` is `3 running, 5 finished`.
  public var counts: PhaseCounts {
    access(keyPath: \.counts)
    return machine.summary.counts
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
    return observers.add(initial: machine.summary, observer)
  }

  /// Attaches a renderer for as long as the group lives: it gets every member's latest update
  /// and a frame at once, then every event of the group (see ``Event``).
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
      machine.members.elements.map { Event.updated($0.member, $0.latest) }
      + [.frame(machine.summary, members: machine.snapshot, time: time.now())]
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
    if !sumUpAtEndOfWakeUp(), let frames {
      time.ticker.setNeedsFrames(frames)
    }
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
      if machine.needsFrames {
        sumUp(at: time.at(tickerTime))
      }
      // After the sum: a change its observers make is summed up on the next frame.
      isSumScheduled = false
      if let frames {
        time.ticker.setNeedsFrames(frames, machine.needsFrames)
      }
    }
    return isSumScheduled
  }

  /// Brings the sums up to date, if a member changed since they were last: before a new
  /// observer or renderer gets them, and after an action whose end the caller reads at once.
  func sumUpIfNeeded() {
    if machine.isDirty {
      sumUp(at: time.now())
    }
  }

  /// Sums up every member, and tells Observation, the observers and the renderers.
  private func sumUp(at now: Duration) {
    let action = machine.sumUp(unit: unit, at: now)
    let new = action.summary
    if let old = action.changedFrom {
      withMutation(keyPath: \.summary) {}
      notifyChange(of: \.fractionCompleted, showing: \.fractionCompleted, from: old, to: new)
      notifyChange(of: \.counts, showing: \.counts, from: old, to: new)
      observers.publish(new)
    }
    if !renderers.isEmpty {
      renderers.publish(.frame(new, members: machine.snapshot, time: now))
    }
  }
}

extension TaskRunnerGroup: ObservedSnapshot {}

extension TaskRunnerGroup: FrameClient {
  /// Sums up at the end of this wake-up, if a member changed or a run is under way or the group
  /// is settling.
  func frame(at tickerTime: Duration) -> Bool {
    machine.needsFrames && sumUpAtEndOfWakeUp()
  }
}
