import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// The machine driven as a value: every event in every phase, with its action and the state after.
///
/// Nothing here runs a task or reads a reporter; readings are passed in.
@Suite("Run state machine")
struct RunStateMachineTests {
  /// The events, with "current" meaning the run that is active or, when none is, the last one.
  enum EventKind: CaseIterable {
    case start
    /// A reading with a new fraction, the same progress, nothing consistent, or new text.
    case readNew, readSame, readNothing, readMessage
    case returned, returnedWithLastReport, returnedWithSourceCancelled, returnedStale
    case threw, threwCancellation, threwStale
    case cancel, cancelStale, reset, pause, resume
  }

  /// The action an event returned, in full.
  enum Outcome: Equatable {
    case none
    case rejectStart
    /// Launch the task of the run with this number.
    case launch(UInt64)
    /// Publish this state.
    case publish(RunState)
    /// Tell the reporters whether they wait at checkpoints, and publish the state.
    case setPaused(Bool, RunState)
    /// End the run with this number: cancel its task or not, write `mirror` to the reporters'
    /// mirror of the pause unless it is `nil`, publish the states, and answer waiters with the
    /// outcome.
    case end(
      UInt64, cancelsTask: Bool, mirror: Bool? = nil, states: [RunState], outcome: RunState)
    case publishIdle
  }

  static let current = RunID(rawValue: 2)
  static let stale = RunID(rawValue: 1)
  static let message = RunProgress.zero.withMessage("step 2")

  static func start(_ machine: inout RunStateMachine) -> RunID? {
    machine.start(root: ProgressNode(signals: RunSignals()), at: .zero)
  }

  /// A machine in `phase` whose last run is run 2, so that run 1 is stale.
  static func machine(in phase: RunPhase) -> RunStateMachine {
    var machine = RunStateMachine()
    _ = start(&machine)
    _ = machine.operationEnded(stale, with: .success(()), lastReading: .init(), at: .zero)
    _ = start(&machine)
    let ended = { (result: Result<Void, any Error>) in
      _ = machine.operationEnded(current, with: result, lastReading: .init(), at: .zero)
    }
    switch phase {
    case .idle:
      ended(.success(()))
      _ = machine.reset()
    case .running: break
    case .paused: _ = machine.pause(at: .zero)
    case .finished: ended(.success(()))
    case .failed: ended(.failure(TestError()))
    case .cancelled: _ = machine.cancel()
    }
    return machine
  }

  /// Applies one event and returns its action.
  static func apply(_ kind: EventKind, to machine: inout RunStateMachine) -> Outcome {
    func ended(_ end: RunStateMachine.RunEnd?) -> Outcome {
      end.map {
        .end(
          $0.run.id.rawValue, cancelsTask: $0.cancelsTask, mirror: $0.release?.isPaused,
          states: $0.states.inOrder, outcome: $0.outcome)
      } ?? .none
    }
    func read(_ reading: RunStateMachine.ReportsRead) -> Outcome {
      machine.reportsRead(reading, at: .zero).map(Outcome.publish) ?? .none
    }
    func operationEnded(
      _ run: RunID, _ result: Result<Void, any Error>, last: RunStateMachine.ReportsRead = .init(),
      sourceCancelled: Bool = false
    ) -> Outcome {
      ended(
        machine.operationEnded(
          run, with: result, lastReading: last, sourceCancelled: sourceCancelled, at: .zero))
    }
    switch kind {
    case .start:
      return start(&machine).map { .launch($0.rawValue) } ?? .rejectStart
    case .readNew: return read(.init(progress: 0.75))
    case .readSame: return read(.init(progress: machine.state.progress ?? .zero))
    case .readNothing: return read(.init())
    case .readMessage: return read(.init(message: (1, "step 2")))
    case .returned: return operationEnded(current, .success(()))
    case .returnedWithLastReport:
      return operationEnded(current, .success(()), last: .init(progress: 0.5))
    case .returnedWithSourceCancelled:
      return operationEnded(current, .success(()), sourceCancelled: true)
    case .returnedStale: return operationEnded(stale, .success(()))
    case .threw: return operationEnded(current, .failure(TestError()))
    case .threwCancellation: return operationEnded(current, .failure(CancellationError()))
    case .threwStale: return operationEnded(stale, .failure(TestError()))
    case .cancel: return ended(machine.cancel())
    case .cancelStale: return ended(machine.cancel(ifActive: stale))
    case .reset:
      switch machine.reset() {
      case nil: return .none
      case .publishIdle: return .publishIdle
      case .endRunAndPublishIdle(let end): return ended(end)
      }
    case .pause:
      return machine.pause(at: .zero).map { .setPaused($0.change.isPaused, $0.state) } ?? .none
    case .resume:
      return machine.resume(at: .zero).map { .setPaused($0.change.isPaused, $0.state) } ?? .none
    }
  }

  /// The row of an active phase: `wrap` makes the phase's state from a progress.
  static func activeRow(
    _ wrap: @escaping (RunProgress) -> RunState
  ) -> [EventKind: (Outcome, RunState)] {
    let zero = wrap(0)
    let isPaused = zero.phase == .paused
    func end(_ cancels: Bool, _ states: [RunState], _ outcome: RunState) -> Outcome {
      // An operation that ends a paused run resumes its reporters; a cancel wakes them instead.
      .end(
        2, cancelsTask: cancels, mirror: isPaused && !cancels ? false : nil, states: states,
        outcome: outcome)
    }
    return [
      .start: (.rejectStart, zero),
      .readNew: (.publish(wrap(0.75)), wrap(0.75)), .readSame: (.none, zero),
      .readNothing: (.none, zero), .readMessage: (.publish(wrap(message)), wrap(message)),
      .returned: (end(false, [.finished], .finished), .finished),
      .returnedWithLastReport: (end(false, [wrap(0.5), .finished], .finished), .finished),
      .returnedWithSourceCancelled: (end(false, [.cancelled], .cancelled), .cancelled),
      .returnedStale: (.none, zero),
      .threw: (end(false, [.failed(TestError())], .failed(TestError())), .failed(TestError())),
      .threwCancellation: (end(false, [.cancelled], .cancelled), .cancelled),
      .threwStale: (.none, zero),
      .cancel: (end(true, [.cancelled], .cancelled), .cancelled), .cancelStale: (.none, zero),
      .reset: (end(true, [.cancelled, .idle], .cancelled), .idle),
      .pause: isPaused ? (.none, zero) : (.setPaused(true, .paused(0)), .paused(0)),
      .resume: isPaused ? (.setPaused(false, .running(0)), .running(0)) : (.none, zero),
    ]
  }

  /// The row of a phase without an active run, whose state is `state`.
  static func inactiveRow(_ state: RunState) -> [EventKind: (Outcome, RunState)] {
    var row = Dictionary(
      uniqueKeysWithValues: EventKind.allCases.map { ($0, (Outcome.none, state)) })
    row[.start] = (.launch(3), .running(0))
    if state != .idle {
      row[.reset] = (.publishIdle, .idle)
    }
    return row
  }

  /// The specification, row by row: (phase, event) → (action, state after).
  static let table: [RunPhase: [EventKind: (Outcome, RunState)]] = [
    .idle: inactiveRow(.idle),
    .running: activeRow(RunState.running),
    .paused: activeRow(RunState.paused),
    .finished: inactiveRow(.finished),
    .failed: inactiveRow(.failed(TestError())),
    .cancelled: inactiveRow(.cancelled),
  ]

  @Test func tableCoversEveryPhaseAndEvent() {
    #expect(Set(Self.table.keys) == Set(RunPhase.allCases))
    for row in Self.table.values {
      #expect(row.count == EventKind.allCases.count)
    }
  }

  @Test(arguments: RunPhase.allCases, EventKind.allCases)
  func everyPhaseAndEventHasItsSpecifiedAction(phase: RunPhase, kind: EventKind) throws {
    var machine = Self.machine(in: phase)
    #expect(machine.state.phase == phase)
    let (expectedOutcome, expectedState) = try #require(Self.table[phase]?[kind])
    #expect(Self.apply(kind, to: &machine) == expectedOutcome)
    #expect(machine.state == expectedState)
    #expect((machine.activeRun != nil) == machine.state.phase.isActive)
  }

  @Test func runsAreNumberedAndOnlyTheActiveOneCounts() {
    var machine = RunStateMachine()
    #expect(Self.start(&machine) == RunID(rawValue: 1))
    #expect(machine.cancel()?.run.id == RunID(rawValue: 1))
    #expect(Self.start(&machine) == RunID(rawValue: 2))
    // The cancelled run's task, result and error are all dropped.
    machine.launched(Task {}, for: RunID(rawValue: 1))
    #expect(machine.activeRun?.task == nil)
    #expect(
      machine.operationEnded(
        RunID(rawValue: 1), with: .success(()), lastReading: .init(), at: .zero)
        == nil)
    #expect(
      machine.operationEnded(
        RunID(rawValue: 1), with: .failure(TestError()), lastReading: .init(progress: 0.9),
        at: .zero) == nil)
    #expect(machine.cancel(ifActive: RunID(rawValue: 1)) == nil)
    #expect(machine.state == .running(0))
    #expect(machine.activeRun?.id == RunID(rawValue: 2))
  }

  @Test func theActiveRunKeepsTheTaskItWasLaunchedWith() {
    var machine = RunStateMachine()
    let run = Self.start(&machine)!
    let task = Task {}
    machine.launched(task, for: run)
    #expect(machine.activeRun?.task == task)
    #expect(machine.cancel()?.run.task == task)
  }

  @Test func theLastReportBeforeTheEndIsPublishedBeforeTheTerminalState() {
    var machine = RunStateMachine()
    let run = Self.start(&machine)!
    #expect(machine.reportsRead(.init(progress: 0.25), at: .zero) == .running(0.25))
    let end = machine.operationEnded(
      run, with: .failure(TestError()), lastReading: .init(progress: 0.58), at: .zero)
    #expect(end.map { $0.states.inOrder } == [.running(0.58), .failed(TestError())])
    #expect(end?.outcome == .failed(TestError()))
    #expect(end?.cancelsTask == false)
  }

  @Test func aRunEndsWithoutAnExtraStateWhenItsLastReportWasRead() {
    var machine = RunStateMachine()
    let run = Self.start(&machine)!
    #expect(machine.reportsRead(.init(progress: 1), at: .zero) == .running(1))
    let end = machine.operationEnded(
      run, with: .success(()), lastReading: .init(progress: 1), at: .zero)
    #expect(end.map { $0.states.inOrder } == [.finished])
  }

  @Test func cancellingHandsBackTheRunOnce() {
    var machine = RunStateMachine()
    let run = Self.start(&machine)!
    let end = machine.cancel()
    #expect(end?.run.id == run)
    #expect(end?.cancelsTask == true)
    #expect(end.map { $0.states.inOrder } == [.cancelled])
    #expect(end?.outcome == .cancelled)
    #expect(machine.cancel() == nil)
    #expect(machine.activeRun == nil)
  }

  @Test func aMessageIsKeptUntilANewerVersionReplacesIt() {
    var machine = RunStateMachine()
    _ = Self.start(&machine)
    #expect(machine.reportsRead(.init(message: (1, "scan")), at: .zero) == .running(Self.scan))
    #expect(machine.activeRun?.messageVersion == 1)
    // A new fraction keeps the text; a new version replaces it.
    #expect(
      machine.reportsRead(.init(progress: 0.5), at: .zero)
        == .running(RunProgress(fractionCompleted: 0.5, message: "scan")))
    #expect(
      machine.reportsRead(.init(message: (2, nil)), at: .zero)
        == .running(RunProgress(fractionCompleted: 0.5)))
  }

  static let scan = RunProgress.zero.withMessage("scan")

  @Test func aRunEndedWhilePausedReleasesTheTasksWaitingAtItsCheckpoints() throws {
    var machine = RunStateMachine()
    let run = try #require(Self.start(&machine))
    let paused = machine.pause(at: .seconds(1))
    let pause = try #require(paused)
    #expect(pause.change.isPaused)
    let ended = machine.operationEnded(
      run, with: .success(()), lastReading: .init(), at: .seconds(2))
    let end = try #require(ended)
    let release = try #require(end.release)
    #expect(release.isPaused == false)
    #expect(release.signals === end.run.root.signals)
    #expect(release.signals === pause.change.signals)
    #expect(end.cancelsTask == false)
    #expect(end.states.inOrder == [.finished])
  }

  @Test func aRunEndedWhileRunningOrCancelledLeavesItsPauseMirrorAlone() throws {
    var machine = RunStateMachine()
    let running = try #require(Self.start(&machine))
    let failed = machine.operationEnded(
      running, with: .failure(TestError()), lastReading: .init(), at: .zero)
    #expect(try #require(failed).release == nil)
    #expect(Self.start(&machine) != nil)
    #expect(machine.pause(at: .zero) != nil)
    // The cancel wakes the waiting tasks itself, to find the run cancelled.
    let cancelled = machine.cancel()
    #expect(try #require(cancelled).cancelsTask)
    #expect(try #require(cancelled).release == nil)
  }

  @Test func pausedTimeIsLeftOutOfTheRateAtEveryPause() {
    var machine = RunStateMachine()
    _ = Self.start(&machine)
    // 10 units a second while running, with two pauses of 5 s each in between.
    _ = machine.reportsRead(.init(progress: RunProgress(completed: 10, of: 100)), at: .seconds(1))
    _ = machine.pause(at: .seconds(1))
    _ = machine.resume(at: .seconds(6))
    _ = machine.reportsRead(.init(progress: RunProgress(completed: 20, of: 100)), at: .seconds(7))
    _ = machine.pause(at: .seconds(7))
    _ = machine.resume(at: .seconds(12))
    _ = machine.reportsRead(.init(progress: RunProgress(completed: 30, of: 100)), at: .seconds(13))
    let estimate = machine.estimate(at: .seconds(13))
    let rate = try? #require(estimate?.throughput)
    #expect(rate.map { abs($0 - 10) < 0.5 } == true, "rate \(String(describing: rate))")
  }
}

extension RunStateMachine.EndStates {
  /// The states in the order they are published.
  fileprivate var inOrder: [RunState] {
    [first].compactMap { $0 } + [last]
  }
}
