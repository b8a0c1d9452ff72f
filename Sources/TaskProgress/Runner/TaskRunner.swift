public import Observation

/// Runs one asynchronous operation at a time and publishes its progress to a view, a terminal,
/// a log or a test: the reusable form of the "report progress from async work to a progress
/// view" pattern.
///
/// A runner is a small state machine, `idle → running(progress) → finished | failed | cancelled`,
/// isolated to the main actor and observable both through ``observe(_:)`` and through the
/// Observation framework, so SwiftUI reads it directly:
///
/// ```swift
/// struct MyView: View {
///   @State private var runner = TaskRunner()
///
///   var body: some View {
///     Button("Perform a Heavy Task") {
///       runner.start(over: objects) { object in try await object.someTask() }
///     }
///     .disabled(runner.isRunning)
///     ProgressView(value: runner.displayedProgress)
///   }
/// }
/// ```
///
/// The operation runs off the main actor and reports through a ``Reporter``, as often as it
/// likes: a report is one atomic store, and the runner reads the latest value at most once per
/// ``updateInterval``. Observers see every transition at once, and the latest progress within
/// one interval, never an older value after a newer one. The displayed progress follows the
/// state along the runner's ``animation``, like `withAnimation` in SwiftUI.
///
/// Each run has an identity: once a run is cancelled or replaced, nothing its task does
/// reaches the runner. Cancelling the runner cancels the operation's task; there is no consumer
/// task to cancel by hand.
@MainActor
@Observable
public final class TaskRunner {
  @ObservationIgnored private var machine = RunStateMachine()
  @ObservationIgnored private var animator: ProgressAnimator
  @ObservationIgnored private let registry = ObserverRegistry<ProgressUpdate>()
  @ObservationIgnored private let clock: RunnerClock
  @ObservationIgnored private var activeRun: ActiveRun?
  @ObservationIgnored private var frameTimer: ScheduledWakeUp?
  @ObservationIgnored private var isInFrame = false
  /// Tells the current frame from stale ones whose wake-up could not be cancelled in time.
  @ObservationIgnored private var frameGeneration: UInt64 = 0
  @ObservationIgnored private var lastDisplayed: Double = 0
  @ObservationIgnored private var lastFrameTime: Duration?
  @ObservationIgnored private var waiters: [RunID: [CheckedContinuation<RunState, Never>]] = [:]
  private let lifetime = RunLifetime()
  /// The task of the last run started; tests await it to know a cancelled run's task is over.
  @ObservationIgnored private(set) var lastRunTask: Task<Void, Never>?

  /// The longest a report waits before observers see it; the runner's frame interval.
  public let updateInterval: Duration

  /// The run in progress: its identity, its task and its mailbox.
  private struct ActiveRun {
    let id: RunID
    let task: Task<Void, Never>
    let mailbox: ProgressMailbox
    /// The last word drained from the mailbox, to see whether anything new arrived.
    var lastWord: UInt64
  }

  /// Creates an idle runner.
  ///
  /// - Parameters:
  ///   - animation: How ``displayedProgress`` moves to each new value. The default is the
  ///     spring `withAnimation` uses.
  ///   - updateInterval: The longest a report waits before observers see it, and the frame
  ///     interval of the animation. The default is one frame at 60 Hz; it is kept within
  ///     1 ms...60 s.
  ///   - clock: The clock that times frames and animation. Pass a ``ManualClock`` in tests.
  public init(
    animation: ProgressAnimation = .default,
    updateInterval: Duration = .seconds(1) / 60,
    clock: some Clock<Duration> = ContinuousClock()
  ) {
    self.animator = ProgressAnimator(animation: animation)
    self.updateInterval = min(max(updateInterval, .milliseconds(1)), .seconds(60))
    self.clock = RunnerClock(clock)
  }

  deinit {
    lifetime.end(cancelling: true)
    lifetime.setFrameTimer(nil, cancellingThePreviousOne: true)
  }

  // MARK: - State

  /// The current state: idle, running with the latest progress, or how the last run ended.
  public var state: RunState {
    access(keyPath: \.state)
    return machine.state
  }

  /// Whether an operation is running.
  public var isRunning: Bool {
    state.phase == .running
  }

  /// The animated value a progress view draws, in `0...1`.
  ///
  /// It moves towards ``RunState/fractionCompleted`` along ``animation``, and stays where it is
  /// while the work is indeterminate. It is a function of the runner's clock, so reading it is
  /// always exact; the Observation framework reports a change on every frame in which it moves,
  /// so a SwiftUI view that reads it redraws at the display rate while the bar glides, and not
  /// at all while nothing moves.
  public var displayedProgress: Double {
    access(keyPath: \.displayedProgress)
    return displayed(at: clock.now())
  }

  /// The displayed progress at a time on the runner's clock, as ``ProgressUpdate/time`` and
  /// ``currentTime`` measure it.
  ///
  /// The value is a pure function of the time, given the values delivered so far: a renderer
  /// that draws at its own rate samples it whenever it draws.
  public func displayedProgress(at time: Duration) -> Double {
    displayed(at: time)
  }

  /// Whether ``displayedProgress`` is still moving.
  public var isAnimating: Bool {
    access(keyPath: \.displayedProgress)
    return animator.isAnimating(at: clock.now())
  }

  /// How ``displayedProgress`` moves to new values; a change applies to the next motion.
  public var animation: ProgressAnimation {
    get { animator.animation }
    set { animator.animation = newValue }
  }

  /// The time on the runner's clock since the runner was created, as in ``ProgressUpdate/time``.
  public var currentTime: Duration {
    clock.now()
  }

  // MARK: - Observing

  /// Calls `observer` at once with the current state, then once per change, in order.
  ///
  /// Every observer sees the same sequence, also when an observer starts, cancels or resets the
  /// runner, or adds or removes observers, from inside its callback: such changes are delivered
  /// after the current round. Progress changes arrive at most once per ``updateInterval``.
  ///
  /// ```swift
  /// let token = runner.observe { state in
  ///   if case .failed(let error) = state { showAlert(error) }
  /// }
  /// ```
  ///
  /// - Returns: A token; cancel or release it to stop the calls.
  public func observe(_ observer: @escaping @MainActor (RunState) -> Void) -> ObservationToken {
    registry.add(initial: update(.stateChanged)) { update in
      if update.reason == .stateChanged {
        observer(update.state)
      }
    }
  }

  /// Attaches a renderer: it gets the current state at once, then every state change, and a frame
  /// on every update interval while a run is active or the displayed progress moves.
  ///
  /// - Returns: A token; cancel or release it to detach the renderer.
  public func attach(_ renderer: some ProgressRenderer) -> ObservationToken {
    registry.add(initial: update(.stateChanged)) { update in
      renderer.render(update)
    }
  }

  // MARK: - Running

  /// Starts `operation` off the main actor, unless a run is active.
  ///
  /// The state is `.running` with progress 0 before this returns. When the operation returns,
  /// the state becomes `.finished`; when it throws, `.failed(error)`, or `.cancelled` for
  /// `CancellationError`.
  ///
  /// ```swift
  /// runner.start { reporter in
  ///   for index in 1...total {
  ///     try await work(index)
  ///     reporter.report(completed: index, of: total)
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - priority: The priority of the operation's task; `nil` for the default.
  ///   - operation: The work. It receives the run's ``Reporter``.
  /// - Returns: `true` if the run started, `false` if a run was already active, in which case
  ///   nothing changed and `operation` is never called.
  @discardableResult
  public func start(
    priority: TaskPriority? = nil,
    _ operation: @escaping @concurrent @Sendable (Reporter) async throws -> Void
  ) -> Bool {
    launch(priority: priority, operation) != nil
  }

  /// Starts `operation` like ``start(priority:_:)`` and waits for the run to end.
  ///
  /// Cancelling the task that awaits this cancels the run.
  ///
  /// - Returns: The terminal state of the run this call started (`.finished`, `.failed` or
  ///   `.cancelled`), or, if a run was already active, the current state at once.
  @discardableResult
  public func run(
    priority: TaskPriority? = nil,
    _ operation: @escaping @concurrent @Sendable (Reporter) async throws -> Void
  ) async -> RunState {
    let ticket = Locked<RunID?>(nil)
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        // The waiter is in place before observers hear of the run, so that whatever they do
        // with the runner, this call answers for the run it started.
        let run = launch(priority: priority, operation) { run in
          waiters[run, default: []].append(continuation)
        }
        guard let run else {
          continuation.resume(returning: state)
          return
        }
        ticket.withLock { $0 = run }
        if Task.isCancelled {
          cancel(run)
        }
      }
    } onCancel: { [weak self] in
      guard let run = ticket.withLock({ $0 }) else { return }
      Task { @MainActor [weak self] in self?.cancel(run) }
    }
  }

  /// Starts a run unless one is active; calls `beforePublishing` with its identity before
  /// observers hear of it.
  private func launch(
    priority: TaskPriority?,
    _ operation: @escaping @concurrent @Sendable (Reporter) async throws -> Void,
    beforePublishing: (RunID) -> Void = { _ in }
  ) -> RunID? {
    guard case .launch(let run) = handle(.start) else { return nil }
    let mailbox = ProgressMailbox(updateInterval: updateInterval)
    // An unstructured task, not detached: it inherits the caller's priority and task-locals. Its
    // body is on the main actor; the operation, being `@concurrent`, runs off it.
    let task = Task(priority: priority) { [weak self] in
      let event: RunStateMachine.Event
      do {
        try Task.checkCancellation()  // cancelled before it began: never call the operation
        try await operation(Reporter(mailbox: mailbox))
        event = .operationReturned(run)
      } catch {
        event = .operationThrew(error, run)
      }
      self?.operationEnded(event)
    }
    // Not `mailbox.load()`: the task may have reported already, and that report is new.
    activeRun = ActiveRun(
      id: run, task: task, mailbox: mailbox, lastWord: ProgressMailbox.initialWord)
    lastRunTask = task
    lifetime.begin(task, mailbox: mailbox)
    beforePublishing(run)
    stateChanged()
    return run
  }

  /// Cancels the active run.
  ///
  /// The state becomes `.cancelled` at once and the operation's task is cancelled. Nothing the
  /// task does afterwards reaches the runner, and ``start(priority:_:)`` may run again at once.
  /// Does nothing when no run is active.
  public func cancel() {
    guard case .cancelRun(let run) = handle(.cancel) else { return }
    endRun(run, cancelling: true)
    stateChanged()
  }

  /// Returns the runner to idle.
  ///
  /// While running, cancels first: observers see `.cancelled`, then `.idle`. Does nothing when
  /// idle. The displayed progress animates back to 0.
  public func reset() {
    switch handle(.reset) {
    case .cancelRunAndReset(let run):
      endRun(run, cancelling: true)
      // Both are queued before either is delivered, so the runner's state (idle) is the last
      // queued one, as an observer added while `.cancelled` is delivered expects.
      stateChanged(publishing: [.cancelled, .idle])
    case .publishReset:
      stateChanged()
    case .none, .rejectStart, .launch, .publishProgress, .endRun, .cancelRun:
      break
    }
  }

  // MARK: - Carrying out the state machine's actions

  /// Feeds an event to the state machine and tells Observation when the state changes.
  private func handle(_ event: RunStateMachine.Event) -> RunStateMachine.Action {
    var next = machine
    let action = next.handle(event)
    switch action {
    case .none, .rejectStart:
      break
    case .launch, .publishProgress, .endRun, .cancelRun, .cancelRunAndReset, .publishReset:
      withMutation(keyPath: \.state) { machine = next }
    }
    return action
  }

  private func operationEnded(_ event: RunStateMachine.Event) {
    guard case .endRun(let run) = handle(event) else { return }
    endRun(run, cancelling: false)
    stateChanged()
  }

  private func cancel(_ run: RunID) {
    if activeRun?.id == run {
      cancel()
    }
  }

  /// Forgets the active run and answers whoever awaits it with the new, terminal state.
  private func endRun(_ run: RunID, cancelling: Bool) {
    activeRun = nil
    lifetime.end(cancelling: cancelling)
    let outcome = machine.state.phase == .idle ? RunState.cancelled : machine.state
    for waiter in waiters.removeValue(forKey: run) ?? [] {
      waiter.resume(returning: outcome)
    }
  }

  /// Retargets the display, delivers the states to observers and keeps frames coming while needed.
  private func stateChanged(publishing states: [RunState]? = nil) {
    let states = states ?? [machine.state]
    let now = clock.now()
    for state in states {
      if let target = state.fractionCompleted {
        animator.animate(to: target, at: now)
      }
    }
    registry.publish(contentsOf: states.map { update(.stateChanged, state: $0, at: now) })
    if !animator.isAnimating(at: now) {
      publishFrame(at: now, evenIfStill: false)  // `.instant`, or a target that did not change
    }
    updateFrameSchedule(after: now)
  }

  // MARK: - Frames

  /// Whether frames are needed: a run is active (its mailbox must be drained) or the display moves.
  private func needsFrames(at now: Duration) -> Bool {
    activeRun != nil || animator.isAnimating(at: now)
  }

  /// Schedules the next frame when frames are needed and none is scheduled; cancels the
  /// scheduled one when they are not, so nothing wakes while nothing runs or moves.
  private func updateFrameSchedule(after now: Duration) {
    guard !isInFrame else { return }  // the frame decides when it ends
    if needsFrames(at: now) {
      if frameTimer == nil {
        scheduleFrame(at: now + updateInterval)
      }
    } else if frameTimer != nil {
      cancelFrame()
    }
  }

  private func scheduleFrame(at deadline: Duration) {
    frameGeneration &+= 1
    let generation = frameGeneration
    let wakeUp = clock.schedule(deadline) { [weak self] in
      self?.frame(deadline, generation: generation)
    }
    frameTimer = wakeUp
    lifetime.setFrameTimer(wakeUp)
  }

  private func cancelFrame() {
    frameGeneration &+= 1  // a frame whose wake-up raced the cancellation finds itself stale
    frameTimer?.cancel()
    frameTimer = nil
    lifetime.setFrameTimer(nil)
  }

  /// One frame: drain the mailbox, move the display, schedule the next frame if still needed.
  private func frame(_ deadline: Duration, generation: UInt64) {
    guard generation == frameGeneration else { return }
    // `frameTimer` stays set while the frame runs, so that state changes made meanwhile (by
    // observers, too) leave the scheduling to the end of the frame.
    let now = max(clock.now(), deadline)
    isInFrame = true
    drainReports()
    // While a run is active, renderers get every frame, so that an indeterminate bar, an ETA or a
    // throttled redraw can move even when the value does not.
    publishFrame(at: now, evenIfStill: activeRun != nil)
    isInFrame = false
    frameTimer = nil
    lifetime.setFrameTimer(nil)
    guard needsFrames(at: now) else { return }
    // Keep the cadence; after a late frame, start again from now.
    let next = deadline + updateInterval > now ? deadline + updateInterval : now + updateInterval
    scheduleFrame(at: next)
  }

  /// Publishes the latest report of the active run, if it is new.
  private func drainReports() {
    guard let run = activeRun else { return }
    run.mailbox.markDrained()
    let word = run.mailbox.load()
    guard word != run.lastWord else { return }
    activeRun?.lastWord = word
    let progress = run.mailbox.progress(decoding: word)
    if handle(.report(progress, run.id)) == .publishProgress {
      stateChanged()
    }
  }

  /// Tells Observation that the displayed progress moved, if it did, and gives renderers a frame
  /// when it moved or, with `evenIfStill`, unless they had one at this time already.
  private func publishFrame(at now: Duration, evenIfStill: Bool) {
    let value = displayed(at: now)
    let moved = value != lastDisplayed
    if moved {
      withMutation(keyPath: \.displayedProgress) { lastDisplayed = value }
    }
    if moved || (evenIfStill && lastFrameTime != now) {
      lastFrameTime = now
      registry.publish(update(.frame, at: now))
    }
  }

  private func displayed(at now: Duration) -> Double {
    let value = animator.value(at: now)
    return value.isNaN ? 0 : min(max(value, 0), 1)
  }

  private func update(
    _ reason: ProgressUpdate.Reason, state: RunState? = nil, at now: Duration? = nil
  ) -> ProgressUpdate {
    let now = now ?? clock.now()
    return ProgressUpdate(
      reason: reason, state: state ?? machine.state, displayedProgress: displayed(at: now),
      time: now)
  }
}
