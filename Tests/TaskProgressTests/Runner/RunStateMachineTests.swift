import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@Suite("Run state machine")
struct RunStateMachineTests {
  /// The events, with "current" meaning the run that is active or, when none is, the last one.
  enum EventKind: CaseIterable {
    case start, reportNew, reportSame, reportStale, returned, returnedStale, threw,
      threwCancellation
    case threwStale, cancel, reset
  }

  /// The outcome of an event, with the run it names: the current one (`current`), a new one
  /// (`next`), or none.
  enum Outcome: Equatable {
    case none, rejectStart, launchNext, publishProgress, endCurrent, cancelCurrent
    case cancelCurrentAndReset, publishReset
  }

  /// Builds a machine in `phase`; the last run it started is run 2, so run 1 is stale.
  static func machine(in phase: RunPhase) -> RunStateMachine {
    var machine = RunStateMachine()
    _ = machine.handle(.start)
    _ = machine.handle(.operationReturned(RunID(rawValue: 1)))
    _ = machine.handle(.start)
    let run = RunID(rawValue: 2)
    switch phase {
    case .idle:
      _ = machine.handle(.operationReturned(run))
      _ = machine.handle(.reset)
    case .running: break
    case .finished: _ = machine.handle(.operationReturned(run))
    case .failed: _ = machine.handle(.operationThrew(TestError(), run))
    case .cancelled: _ = machine.handle(.cancel)
    }
    return machine
  }

  static func event(_ kind: EventKind, in machine: RunStateMachine) -> RunStateMachine.Event {
    let current = RunID(rawValue: 2)
    let stale = RunID(rawValue: 1)
    let progress = machine.state.progress ?? .zero
    switch kind {
    case .start: return .start
    case .reportNew: return .report(0.75, current)
    case .reportSame: return .report(progress, current)
    case .reportStale: return .report(0.75, stale)
    case .returned: return .operationReturned(current)
    case .returnedStale: return .operationReturned(stale)
    case .threw: return .operationThrew(TestError(), current)
    case .threwCancellation: return .operationThrew(CancellationError(), current)
    case .threwStale: return .operationThrew(TestError(), stale)
    case .cancel: return .cancel
    case .reset: return .reset
    }
  }

  /// The specification, row by row: (phase, event) → (outcome, state after).
  static let table: [RunPhase: [EventKind: (Outcome, RunState)]] = [
    .idle: [
      .start: (.launchNext, .running(0)),
      .reportNew: (.none, .idle), .reportSame: (.none, .idle), .reportStale: (.none, .idle),
      .returned: (.none, .idle), .returnedStale: (.none, .idle),
      .threw: (.none, .idle), .threwCancellation: (.none, .idle), .threwStale: (.none, .idle),
      .cancel: (.none, .idle), .reset: (.none, .idle),
    ],
    .running: [
      .start: (.rejectStart, .running(0)),
      .reportNew: (.publishProgress, .running(0.75)), .reportSame: (.none, .running(0)),
      .reportStale: (.none, .running(0)),
      .returned: (.endCurrent, .finished), .returnedStale: (.none, .running(0)),
      .threw: (.endCurrent, .failed(TestError())), .threwCancellation: (.endCurrent, .cancelled),
      .threwStale: (.none, .running(0)),
      .cancel: (.cancelCurrent, .cancelled), .reset: (.cancelCurrentAndReset, .idle),
    ],
    .finished: terminalRow(.finished),
    .failed: terminalRow(.failed(TestError())),
    .cancelled: terminalRow(.cancelled),
  ]

  static func terminalRow(_ state: RunState) -> [EventKind: (Outcome, RunState)] {
    [
      .start: (.launchNext, .running(0)),
      .reportNew: (.none, state), .reportSame: (.none, state), .reportStale: (.none, state),
      .returned: (.none, state), .returnedStale: (.none, state),
      .threw: (.none, state), .threwCancellation: (.none, state), .threwStale: (.none, state),
      .cancel: (.none, state), .reset: (.publishReset, .idle),
    ]
  }

  static func outcome(of action: RunStateMachine.Action) -> Outcome {
    let current = RunID(rawValue: 2)
    let next = RunID(rawValue: 3)
    switch action {
    case .none: return .none
    case .rejectStart: return .rejectStart
    case .launch(let run): return run == next ? .launchNext : .none
    case .publishProgress: return .publishProgress
    case .endRun(let run): return run == current ? .endCurrent : .none
    case .cancelRun(let run): return run == current ? .cancelCurrent : .none
    case .cancelRunAndReset(let run): return run == current ? .cancelCurrentAndReset : .none
    case .publishReset: return .publishReset
    }
  }

  @Test func tableCoversEveryPhaseAndEvent() {
    #expect(Set(Self.table.keys) == Set(RunPhase.allCases))
    for row in Self.table.values {
      #expect(row.count == EventKind.allCases.count)
    }
  }

  @Test(arguments: RunPhase.allCases, EventKind.allCases)
  func everyPhaseAndEventHasItsSpecifiedOutcome(phase: RunPhase, kind: EventKind) throws {
    var machine = Self.machine(in: phase)
    #expect(machine.state.phase == phase)
    let (expectedOutcome, expectedState) = try #require(Self.table[phase]?[kind])
    let action = machine.handle(Self.event(kind, in: machine))
    #expect(Self.outcome(of: action) == expectedOutcome)
    #expect(machine.state == expectedState)
    #expect((machine.activeRun != nil) == (machine.state.phase == .running))
  }

  @Test func runsAreNumberedAndOnlyTheActiveOneCounts() {
    var machine = RunStateMachine()
    #expect(machine.handle(.start) == .launch(RunID(rawValue: 1)))
    #expect(machine.handle(.cancel) == .cancelRun(RunID(rawValue: 1)))
    #expect(machine.handle(.start) == .launch(RunID(rawValue: 2)))
    // The cancelled run's late report, result and error are all dropped.
    #expect(machine.handle(.report(0.9, RunID(rawValue: 1))) == .none)
    #expect(machine.handle(.operationReturned(RunID(rawValue: 1))) == .none)
    #expect(machine.handle(.operationThrew(TestError(), RunID(rawValue: 1))) == .none)
    #expect(machine.state == .running(0))
    #expect(machine.activeRun == RunID(rawValue: 2))
  }
}
