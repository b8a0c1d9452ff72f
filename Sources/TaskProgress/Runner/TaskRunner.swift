public import Observation

/// Runs one asynchronous operation at a time and publishes its progress to a view, a terminal,
/// a log or a test.
///
/// A runner is a small state machine, `idle → running(progress) → finished | failed | cancelled`,
/// isolated to the main actor and observable both through ``observe(_:)`` and through the
/// Observation framework, so SwiftUI reads it directly.
@MainActor
@Observable
public final class TaskRunner {
  @ObservationIgnored private var machine = RunStateMachine()
  @ObservationIgnored private var display: DisplayModel
  @ObservationIgnored private let registry = ObserverRegistry<ProgressUpdate>()
  @ObservationIgnored private var time: FrameTime
  /// The runner's place with the ticker; set once, at the end of `init`.
  @ObservationIgnored private var frames: FrameTicker.Registration?
  @ObservationIgnored private var estimate = LazyEstimate()
  /// Whether the ticker is running this runner's frame, which tells the ticker at its end
  /// whether another is needed: what happens during it need not ask.
  @ObservationIgnored private var isInFrame = false
  /// The task of the last run started, until it ends.
  ///
  /// Tests await it to know a cancelled run's task is over. It is let go of at its end: a handle
  /// keeps the whole task's memory, a kilobyte and more, and a queue keeps a runner per item.
  @ObservationIgnored private(set) var lastRunTask: Task<Void, Never>?
  /// The run whose task ``lastRunTask`` is.
  @ObservationIgnored private var lastRunTaskRun: RunID?
  /// ``RunStateMachine/endedProgress`` boxed for the updates of an ended run.
  @ObservationIgnored private var endedBox: ProgressUpdate.ProgressBox?

  /// What the counts of this runner's runs measure, for the views and renderers that format
  /// them: items by default, or bytes.
  ///
  /// ```swift
  /// runner.unit = .bytes
  /// runner.start { reporter in
  ///   reporter.report(completed: 1_200_000_000, of: 3_400_000_000)  // "1.2 GB / 3.4 GB"
  /// }
  /// ```
  public var unit: ProgressUnit = .items

  /// The longest a report waits before observers see it; the runner's frame interval.
  public let updateInterval: Duration

  /// Creates an idle runner.
  ///
  /// - Parameters:
  ///   - animation: How ``displayedProgress`` moves to each new value. The default is the
  ///     spring `withAnimation` uses.
  ///   - updateInterval: The longest a report waits before observers see it, and the frame
  ///     interval of the animation. The default is one frame at 60 Hz; it is kept within
  ///     1 ms...60 s.
  ///   - clock: The clock that times frames and animation. Runners on the same clock share one
  ///     frame timer. Pass a ``ManualClock`` in tests.
  public init(
    animation: ProgressAnimation = .default,
    updateInterval: Duration = .seconds(1) / 60,
    clock: some Clock<Duration> = ContinuousClock()
  ) {
    self.display = DisplayModel(animation: animation)
    self.updateInterval = min(max(updateInterval, .milliseconds(1)), .seconds(60))
    self.time = FrameTime(ticker: FrameTicker.shared(for: clock))
    self.frames = time.ticker.register(self, every: self.updateInterval)
  }

  /// Ends the active run, if any, as ``cancel()`` does, and detaches every renderer.
  isolated deinit {
    frames.map(time.ticker.remove)
    if let end = machine.cancel() {
      carryOut(end, at: time.now())
    }
    registry.close()
  }

  /// Applies an event to the state machine, and tells Observation when it changed the state.
  ///
  /// - Returns: The event's action, or `nil` when the state did not change.
  private func transition<Action>(_ event: (inout RunStateMachine) -> Action?) -> Action? {
    // In place, not on a copy: a frame of every runner comes through here, and a copy of the
    // machine retains and releases everything the run holds.
    let phase = machine.state.phase
    let action = event(&machine)
    if action != nil {
      stateChanged(from: phase)
    }
    return action
  }

  /// Tells Observation that the state changed, and that the phase did when it is not `phase`
  /// any more: a view that reads only the phase is not invalidated by every frame's progress.
  private func stateChanged(from phase: RunPhase) {
    withMutation(keyPath: \.state) {}
    if machine.state.phase != phase {
      withMutation(keyPath: \.phase) {}
    }
  }

  // MARK: - State

  /// The current state: idle, running with the latest progress, or how the last run ended.
  public var state: RunState {
    access(keyPath: \.state)
    return machine.state
  }

  /// The progress of the active run, or where the last run got to when it ended: its last
  /// counts, bytes, files and message; `nil` while idle.
  ///
  /// The state of an ended run carries no progress (``RunState/finished`` is only that), so a
  /// view that keeps showing `24 files, 1.05 GB` and the last message after the end reads them
  /// here. It is the progress of the last frame before the end: a run that finished without
  /// reporting its last unit shows the count it reported, while its state's fraction is 1.
  /// Observation reports its changes with those of ``state``; `reset()` and the next start
  /// clear it.
  ///
  /// ```swift
  /// let end = await runner.run { reporter in try await hashAll(files, reporter: reporter) }
  /// print(end, runner.lastProgress?.completedByteCount ?? 0)
  /// ```
  public var lastProgress: RunProgress? {
    access(keyPath: \.state)
    return machine.lastProgress
  }

  /// The phase of ``state``: idle, running, paused, or how the last run ended.
  ///
  /// Observation reports its changes apart from those of ``state``: a view that reads only the
  /// phase, or ``isActive`` and ``isPaused``, which derive from it, is
  /// invalidated when the phase changes, not on every frame of a run's progress. Reading
  /// `state.phase` reads the whole state, which changes with every new progress.
  ///
  /// <!-- snippet: skip (a SwiftUI fragment) -->
  /// ```swift
  /// Button("Perform a Heavy Task") { runner.start(operation) }
  ///   .disabled(runner.isActive)  // redrawn when a run starts and ends, not per frame
  /// ```
  public var phase: RunPhase {
    access(keyPath: \.phase)
    return machine.state.phase
  }

  /// Whether a run is under way, running or paused; observed with ``phase``.
  ///
  /// While it is, ``start(priority:_:)`` starts nothing: disable a start button with it.
  public var isActive: Bool {
    phase.isActive
  }

  /// Whether the run is paused; observed with ``phase``.
  public var isPaused: Bool {
    phase == .paused
  }

  /// The active run's speed, smoothed over the last seconds of its progress: in bytes per second
  /// when the run counts bytes (``RunProgress/completedByteCount``), else in files per second when
  /// it counts files, else in completed units per second; `nil` while the run reports no counts,
  /// has not reported enough to tell, or no run is active.
  ///
  /// The runner estimates it from the progress its frames read, paused time left out, and
  /// updates it on every frame: it decays while the work makes no progress. See
  /// <doc:ShowingMoreThanABar> for the smoothing. Format it with ``unit`` and ``lastProgress``:
  /// `runner.unit.format(throughput: rate, of: runner.lastProgress)` gives `12.3 MB/s`.
  public var throughput: Double? {
    access(keyPath: \.throughput)
    estimate.isRead = true
    return currentEstimate().throughput
  }

  /// The time the active run has left at its current ``throughput``; `nil` while the run has no
  /// total, has not reported enough to tell, or no run is active.
  ///
  /// For a run that reports fractions rather than counts, the speed is that of its fraction.
  public var estimatedTimeRemaining: Duration? {
    access(keyPath: \.estimatedTimeRemaining)
    estimate.isRead = true
    return currentEstimate().timeRemaining
  }

  /// The animated value a progress view draws, in `0...1`.
  ///
  /// It moves towards ``RunState/fractionCompleted`` along ``animation``, and stays where it is
  /// while the work is indeterminate. Observation reports a change on every frame in which it
  /// moves, and none while it is still.
  public var displayedProgress: Double {
    access(keyPath: \.displayedProgress)
    return display.value(at: time.now())
  }

  /// The displayed progress at a time on the runner's clock, as ``ProgressUpdate/time`` and
  /// ``currentTime`` measure it.
  ///
  /// The value is a pure function of the time, given the values delivered so far: a renderer
  /// that draws at its own rate samples it whenever it draws.
  public func displayedProgress(at time: Duration) -> Double {
    display.value(at: time)
  }

  /// Whether ``displayedProgress`` is still moving.
  public var isAnimating: Bool {
    access(keyPath: \.isAnimating)
    return display.isAnimating(at: time.now())
  }

  /// How ``displayedProgress`` moves to new values; a change applies to the next motion.
  public var animation: ProgressAnimation {
    get { display.animation }
    set { display.animation = newValue }
  }

  /// The time on the runner's clock since the runner was created, as in ``ProgressUpdate/time``.
  public var currentTime: Duration {
    time.now()
  }

  // MARK: - Observing

  /// Calls `observer` at once with the current state, then once per change, in order.
  ///
  /// Every observer sees the same sequence, also when an observer starts, cancels or resets the
  /// runner, or adds or removes observers, from inside its callback. Progress changes arrive at
  /// most once per ``updateInterval``.
  ///
  /// ```swift
  /// let token = runner.observe { state in print(state) }
  /// // ... and when the calls should stop:
  /// token.cancel()
  /// ```
  ///
  /// - Important: The calls stop as soon as the token is released, not only when it is
  ///   cancelled: keep it in a property, or ``ObservationToken/store(in:)-(Set<ObservationToken>)``
  ///   it in a set that is one. In an optimized build, a token in a local constant that is never
  ///   used again is released at once. A renderer given to ``attach(_:)`` is kept by the runner
  ///   instead.
  ///
  /// - Returns: A token. The calls stop when it is cancelled or released, so keep it.
  public func observe(_ observer: @escaping @MainActor (RunState) -> Void) -> ObservationToken {
    // Only the changes of state: no frame is made for an observer that would drop it.
    registry.add(initial: update(.stateChanged, at: time.now()), wantsFrames: false) { update in
      if update.reason == .stateChanged {
        observer(update.state)
      }
    }
  }

  /// Attaches a renderer for as long as the runner lives: it gets the current state at once, then
  /// every state change, and a frame on every update interval while a run is active or the
  /// displayed progress moves.
  ///
  /// ```swift
  /// runner.attach(TerminalRenderer(label: "Uploading"))
  /// ```
  ///
  /// Unlike ``observe(_:)``, whose calls stop when its token is released, `attach` needs no
  /// token kept: the runner keeps the renderer until the runner goes away or the token is
  /// cancelled.
  ///
  /// - Returns: A token to detach the renderer early with ``ObservationToken/cancel(isolation:)``.
  ///   Releasing it does not detach the renderer.
  @discardableResult
  public func attach(_ renderer: some ProgressRenderer) -> ObservationToken {
    attach(renderer, detachingOnRelease: false)
  }

  /// Attaches a renderer; with `detachingOnRelease`, for as long as the token lives.
  func attach(_ renderer: some ProgressRenderer, detachingOnRelease: Bool) -> ObservationToken {
    registry.add(
      initial: update(.stateChanged, at: time.now()), cancelsOnRelease: detachingOnRelease,
      onDetach: { renderer.didDetach() }, { update in renderer.render(update) })
  }

  /// Calls `handler` with every update renderers get, starting with the current state, for as
  /// long as the token lives: how a group listens to its runners.
  func listen(_ handler: @escaping @MainActor (ProgressUpdate) -> Void) -> ObservationToken {
    registry.add(initial: update(.stateChanged, at: time.now()), cancelsOnRelease: true, handler)
  }

  // MARK: - Running

  /// Starts `operation` off the main actor, unless a run is active.
  ///
  /// The state is `.running` with progress 0 before this returns. When the operation returns,
  /// the state becomes `.finished`; when it throws, `.failed(error)`, or `.cancelled` for
  /// `CancellationError`. The last report it made before it ended reaches observers first.
  ///
  /// The operation begins once the main actor is free, after the turn that called `start`, on
  /// the cooperative thread pool: a ``cancel()`` or ``reset()`` later in that turn means it is
  /// never called, and while the main thread is blocked it does not begin.
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

  /// Starts `operation` like ``start(priority:_:)``, and calls `onEnd` with the run's outcome
  /// once the runner's observers heard of its end: a queue's way to hear of its items.
  ///
  /// - Returns: Whether the run started; if not, `onEnd` is never called.
  @discardableResult
  func start(
    onEnd: @escaping @MainActor (RunState) -> Void,
    _ operation: @escaping @concurrent @Sendable (Reporter) async throws -> Void
  ) -> Bool {
    launch(priority: nil, operation, onEnd: onEnd) != nil
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
        // A caller cancelled already gets a run that ends cancelled as it starts, and its
        // operation is never called.
        guard
          let run = launch(
            priority: priority, operation, waiter: continuation, cancelled: Task.isCancelled)
        else {
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

  /// Starts a run unless one is active, and publishes its first state; a run `cancelled` from
  /// the start ends at once, with no task.
  private func launch(
    priority: TaskPriority?,
    _ operation: @escaping @concurrent @Sendable (Reporter) async throws -> Void,
    waiter: CheckedContinuation<RunState, Never>? = nil,
    onEnd: (@MainActor (RunState) -> Void)? = nil,
    cancelled: Bool = false
  ) -> RunID? {
    let phase = machine.state.phase
    guard !phase.isActive else { return nil }
    let now = time.now()
    let root = ProgressNode(signals: RunSignals(updateInterval: updateInterval))
    guard let run = machine.start(root: root, waiter: waiter, onEnd: onEnd, at: now) else {
      return nil
    }
    stateChanged(from: phase)
    stateChanged(publishing: machine.state, at: now)
    // The task comes after every observer heard of the start: a change handler or an observer
    // that cancelled or reset the run there leaves no task, and the operation is never called.
    if cancelled {
      self.cancel(run)
    }
    guard machine.activeReporters?.id == run else {
      lastRunTask = nil
      lastRunTaskRun = nil
      return run
    }
    // An unstructured task, not detached: it inherits the caller's priority and task-locals.
    // Its body is on the main actor, so the task completes there, where it was made: its memory
    // then goes back to the main thread's allocator, which reuses it for the next run's task.
    // Completed on the pool, as a `@concurrent` body does, each run's task sent the main
    // thread's `malloc` through a consolidation of its free lists: that cost more than the
    // main-actor job this body starts with (a queue of 100,000 trivial items, 8 at a time, took
    // 13 to 17 µs an item over a task group, against 20 to 23). `Task.immediate` would save that
    // job, but its tasks pay a lock at every suspension: 57 ns instead of 14 in a loop of
    // `await`s.
    let task = Task(priority: priority) { @MainActor [weak self] in
      let result = await TaskRunner.outcome(of: operation, reporting: root)
      // The runner is read only now, not held across the operation: a runner released meanwhile
      // ends its run in its `deinit` at once, not after this task's last turn.
      self?.taskEnded(run, with: result)
    }
    machine.launched(task, for: run)
    lastRunTask = task
    lastRunTaskRun = run
    return run
  }

  /// Pauses the running run: the state becomes `.paused` at once, and the work waits at its next
  /// ``Reporter/checkpoint()``, or before its next item in the `over:` forms.
  ///
  /// Pausing is cooperative: work that never reaches a checkpoint goes on, and what it reports
  /// still reaches observers, in `.paused` states. Paused time does not count in
  /// ``throughput`` and ``estimatedTimeRemaining``. ``cancel()`` and ``reset()`` work while
  /// paused, and an operation that ends while paused ends the run as it would while running.
  /// Does nothing unless the state is `.running`.
  public func pause() {
    let now = time.now()
    guard let action = transition({ $0.pause(at: now).map(TaskRunner.apply) }) else { return }
    stateChanged(publishing: action.state, at: now)
  }

  /// Resumes the paused run.
  ///
  /// The state becomes `.running` at once, and the work waiting at checkpoints goes on. Does
  /// nothing unless the state is `.paused`.
  public func resume() {
    let now = time.now()
    guard let action = transition({ $0.resume(at: now).map(TaskRunner.apply) }) else { return }
    stateChanged(publishing: action.state, at: now)
  }

  /// Cancels the active run.
  ///
  /// The state becomes `.cancelled` at once and the operation's task is cancelled. Nothing the
  /// task does afterwards reaches the runner, and ``start(priority:_:)`` may run again at once.
  /// An operation that had not begun is never called: a cancel from an observer of the run's
  /// start, or later in the turn that started the run, always comes first. One that began finds
  /// its task cancelled. Does nothing when no run is active.
  public func cancel() {
    endRun { $0.cancel() }
  }

  /// Shows `.cancelled` on an idle runner that will never run.
  ///
  /// That is a queue's item that a cancel reached before it started. Does nothing unless the
  /// state is `.idle`.
  func cancelUnstarted() {
    guard transition({ $0.cancelUnstarted() ? () : nil }) != nil else { return }
    stateChanged(publishing: .cancelled, at: time.now())
  }

  /// Returns to idle.
  ///
  /// While running, cancels first, as ``cancel()`` does: observers see `.cancelled`, then
  /// `.idle`. Does nothing when idle. The displayed progress animates back to 0.
  public func reset() {
    guard let action = transition({ $0.reset() }) else { return }
    switch action {
    case .publishIdle:
      stateChanged(publishing: .idle, at: time.now())
    case .endRunAndPublishIdle(let end):
      carryOut(end, at: time.now())
    }
  }

  // MARK: - Carrying out the state machine's actions

  /// Tells the run's reporters of a pause or a resume, before Observation hears of it: a change
  /// handler that resumes at once then leaves the reporters as the state says.
  private static func apply(_ action: RunStateMachine.PauseAction) -> RunStateMachine.PauseAction {
    mirror(action.change)
    return action
  }

  /// Writes the machine's answer to whether a run is paused to its reporters' mirror.
  ///
  /// The one place the runner writes ``RunSignals/isPaused``. A resume lets the tasks waiting at
  /// the run's checkpoints go on.
  private static func mirror(_ change: RunStateMachine.PauseChange) {
    change.signals.setPaused(change.isPaused)
  }

  /// A run's operation, on the pool, and how it ended.
  ///
  /// It checks for cancellation first: after a cancel that came before it, in the turn that
  /// started the run for one, the operation is never called.
  @concurrent
  private static func outcome(
    of operation: @concurrent @Sendable (Reporter) async throws -> Void,
    reporting root: ProgressNode
  ) async -> Result<Void, any Error> {
    do {
      try Task.checkCancellation()
      try await operation(Reporter(node: root))
      return .success(())
    } catch {
      return .failure(error)
    }
  }

  /// The last step of a run's task: it lets go of the task's handle, then ends the run if it is
  /// still active.
  private func taskEnded(_ run: RunID, with result: Result<Void, any Error>) {
    if lastRunTaskRun == run {
      lastRunTask = nil
      lastRunTaskRun = nil
    }
    operationEnded(run, with: result)
  }

  private func operationEnded(_ run: RunID, with result: Result<Void, any Error>) {
    guard let active = machine.activeReporters, active.id == run else { return }
    // One time for the last reading of the run and for the states it ends with.
    let now = time.now()
    // The sources' last values first, then the reporters' last reports.
    let sourceCancelled = active.root.signals.sources.finalPoll()
    let reading = read(active.root, since: active.messageVersion, final: true)
    guard
      let end = transition({
        $0.operationEnded(
          run, with: result, lastReading: reading, sourceCancelled: sourceCancelled, at: now)
      })
    else { return }
    carryOut(end, at: now)
  }

  /// Reads a run's reporters and, if it changed, its status text.
  ///
  /// - Parameters:
  ///   - root: The node of the active run's root reporter.
  ///   - messageVersion: The version of the status text the run shows.
  ///   - final: Whether the operation ended, so that the reporters are read even if a writer
  ///     still races the reading (a consistent reading is skipped for a frame otherwise).
  /// - Returns: What the machine takes in.
  private func read(
    _ root: ProgressNode, since messageVersion: UInt64, final: Bool
  ) -> RunStateMachine.ReportsRead {
    let signals = root.signals
    signals.markFrame()
    return RunStateMachine.ReportsRead(
      progress: final ? root.readAnyway() : root.readChanges(),
      message: signals.messages.read(ifChangedSince: messageVersion))
  }

  private func cancel(_ run: RunID) {
    endRun { $0.cancel(ifActive: run) }
  }

  /// Ends the active run, if the event does.
  private func endRun(_ event: (inout RunStateMachine) -> RunStateMachine.RunEnd?) {
    guard let end = transition(event) else { return }
    carryOut(end, at: time.now())
  }

  /// Cancels the run's task if the runner ended it, publishes the states and answers the callers
  /// of `run`.
  private func carryOut(_ end: RunStateMachine.RunEnd, at now: Duration) {
    let signals = end.run.root.signals
    if end.cancelsTask {
      signals.cancel()  // wakes the tasks waiting while paused, to find the run cancelled
      end.run.task?.cancel()
    }
    if let release = end.release {
      TaskRunner.mirror(release)
    }
    stateChanged(publishing: end.states.last, after: end.states.first, at: now, ending: end.timing)
    for waiter in end.run.waiters {
      waiter.resume(returning: end.outcome)
    }
    if let onEnd = end.run.onEnd {
      let outcome = end.outcome
      registry.afterRound { onEnd(outcome) }
    }
    // Last: what the sources do when cancelled (a `Progress`'s handlers, observers of its
    // properties) finds the runner with the run's end published.
    if end.cancelsSources {
      signals.sources.cancel()
    } else {
      signals.sources.drop()
    }
  }

  /// Retargets the display, delivers the states to observers and asks for frames while needed.
  ///
  /// - Parameters:
  ///   - state: The state to publish.
  ///   - first: A state to publish before it, at the end of a run: its last report, or the
  ///     `.cancelled` of a reset.
  ///   - now: The time on the runner's clock.
  ///   - timing: For the states of a run that ended, the run's timing after its last report,
  ///     from which that report's estimate comes.
  private func stateChanged(
    publishing state: RunState, after first: RunState? = nil, at now: Duration,
    ending timing: RunTiming? = nil
  ) {
    if let target = first?.fractionCompleted {
      display.animate(to: target, at: now)
    }
    if let target = state.fractionCompleted {
      display.animate(to: target, at: now)
    }
    updateEstimate(at: now)
    if !registry.isEmpty {
      // The last report of a run that ended goes out with its own estimate (none left, at its
      // end), though the runner has none any more.
      // Observers of states alone never read an estimate: none is computed for them.
      let ending =
        !registry.hasFrameListeners
        ? ActiveRate.Estimate.unknown
        : timing.flatMap { timing in
          let active = first?.phase.isActive == true ? first : state.phase.isActive ? state : nil
          return active?.progress.map { timing.estimate(for: $0, at: now) }
        }
      // Published without a closure, which held the runner (a retain through its side table)
      // and checked its isolation, a tenth of a frame's cost, and without an array. Both
      // updates of a run's end are made before either is delivered: an observer of the first
      // may change the runner.
      let firstUpdate = first.map { update(.stateChanged, state: $0, at: now, estimate: ending) }
      let lastUpdate = update(.stateChanged, state: state, at: now, estimate: ending)
      if let firstUpdate {
        registry.publish(firstUpdate, then: lastUpdate)
      } else {
        registry.publish(lastUpdate)
      }
    }
    if display.isAnimating(at: now) {
      if display.noteMotion() {
        withMutation(keyPath: \.isAnimating) {}
      }
    } else {
      publishFrame(at: now, evenIfStill: false)  // `.instant`, or a target that did not change
    }
    if let frames, !isInFrame {
      time.ticker.setNeedsFrames(frames, needsFrames(at: now))
    }
  }

  // MARK: - Frames

  /// Whether an observer that wants frames is registered (a renderer, a group), so that the
  /// runner makes frames for it: what tests check.
  var hasFrameListeners: Bool {
    registry.hasFrameListeners
  }

  /// The signals of the active run's reporters, if a run is active: what tests watch.
  var activeSignals: RunSignals? {
    machine.activeReporters?.root.signals
  }

  /// Whether frames are needed: a run is active (its reports must be read) or the display moves.
  private func needsFrames(at now: Duration) -> Bool {
    machine.hasActiveRun || display.isAnimating(at: now)
  }

  /// Tells Observation that the displayed progress moved, if it did, and gives renderers a frame
  /// when it moved or, with `evenIfStill`, unless they had one at this time already.
  private func publishFrame(at now: Duration, evenIfStill: Bool) {
    let frame = display.frame(
      at: now, hasRenderers: registry.hasFrameListeners, evenIfStill: evenIfStill)
    if frame.animatingChanged {
      withMutation(keyPath: \.isAnimating) {}
    }
    if frame.displayMoved {
      withMutation(keyPath: \.displayedProgress) {}
    }
    if frame.rendersFrame {
      registry.publish(update(.frame, at: now))
    }
  }

  /// Computes the run's estimate for `now`, if something can read it, and tells Observation of
  /// what changed.
  private func updateEstimate(at now: Duration) {
    guard
      let (old, new) = estimate.update(
        at: now, eager: registry.hasFrameListeners, { self.machine.estimate(at: $0) ?? .unknown })
    else { return }
    notifyChange(of: \.throughput, showing: \.throughput, from: old, to: new)
    notifyChange(of: \.estimatedTimeRemaining, showing: \.timeRemaining, from: old, to: new)
  }

  /// The estimate as of the last frame, computed now if the frame left it to whoever reads it.
  private func currentEstimate() -> ActiveRate.Estimate {
    estimate.current { self.machine.estimate(at: $0) ?? .unknown }
  }

  /// An update for renderers; an active state carries `estimate`, or else the runner's own.
  private func update(
    _ reason: ProgressUpdate.Reason, state: RunState? = nil, at now: Duration,
    estimate: ActiveRate.Estimate? = nil
  ) -> ProgressUpdate {
    let state = state ?? machine.state
    // A state of an ended run carries no estimate.
    let estimate = state.phase.isActive ? estimate ?? currentEstimate() : .unknown
    return ProgressUpdate(
      reason: reason, state: state, displayedProgress: display.value(at: now), time: now,
      throughput: estimate.throughput, estimatedTimeRemaining: estimate.timeRemaining,
      unit: unit,
      lastProgressBox: state.progress == nil && state.phase.isTerminal ? endedProgressBox() : nil)
  }

  /// Where the last run that ended got to, boxed once for every update after its end.
  private func endedProgressBox() -> ProgressUpdate.ProgressBox? {
    guard let ended = machine.endedProgress else { return nil }
    if endedBox?.progress != ended {
      endedBox = ProgressUpdate.ProgressBox(ended)
    }
    return endedBox
  }
}

extension TaskRunner: ObservedSnapshot {}

extension TaskRunner: FrameClient {
  /// One frame: read the reports, move the display, and say whether another frame is needed.
  func frame(at tickerTime: Duration) -> Bool {
    let now = time.at(tickerTime)
    isInFrame = true
    defer { isInFrame = false }
    if let run = machine.activeReporters {
      // What the run's reporters mirror from elsewhere is read into them first.
      let sourceCancelled = run.root.signals.sources.poll()
      let reading = read(run.root, since: run.messageVersion, final: false)
      if let state = transition({ $0.reportsRead(reading, at: now) }) {
        stateChanged(publishing: state, at: now)
      } else {
        updateEstimate(at: now)
      }
      if sourceCancelled {
        // After the reading: observers see how far the run got, then that it was cancelled.
        // Only this run: an observer of the state read may have started another.
        cancel(run.id)
      }
    } else {
      updateEstimate(at: now)
    }
    // While a run is active, renderers get every frame, so that an indeterminate bar, an ETA or a
    // throttled redraw can move even when the value does not.
    // An observer of the state read may have moved the runner's time on, by cancelling,
    // resetting or starting it: the frame comes no earlier than what it published.
    let latest = max(now, time.latest)
    publishFrame(at: latest, evenIfStill: machine.hasActiveRun)
    return needsFrames(at: latest)
  }
}
