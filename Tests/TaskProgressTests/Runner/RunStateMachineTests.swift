import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@Suite("Run state machine")
struct RunStateMachineTests {
  /// The events, with "current" meaning the run that is active or, when none is, the last one.
  enum EventKind: CaseIterable {
    case start, reportNew, reportSame, reportStale, returned, returnedStale, threw,
      threwCancellation
    case threwStale, cancel, reset, pause, resume
  }

  /// The outcome of an event, with the run it names: the current one (`current`), a new one
  /// (`next`), or none.
  enum Outcome: Equatable {
    case none, rejectStart, launchNext, publishProgress, endCurrent, cancelCurrent
    case cancelCurrentAndReset, publishReset, publishPaused, publishResumed
    /// An action that names a run other than the one expected.
    case wrongRun
  }

  /// A machine with the root reporters of its runs, so that tests can report into any run.
  struct Fixture {
    var machine = RunStateMachine()
    var roots: [RunID: ProgressNode] = [:]

    /// Starts a run with a task that does nothing; returns its identity, or `nil` if refused.
    mutating func start() -> RunID? {
      var made: ProgressNode?
      let run = machine.start { _ in
        let root = ProgressNode(signals: RunSignals())
        made = root
        return (Task {}, root)
      }
      if let run, let made { roots[run] = made }
      return run
    }

    /// Stores a report into a run's root, as its reporter does.
    func report(_ fraction: Double, into run: RunID) {
      roots[run].map { TaskRunner.Reporter(node: $0) }?.report(fractionCompleted: fraction)
    }
  }

  /// Builds a machine in `phase`; the last run it started is run 2, so run 1 is stale.
  static func fixture(in phase: RunPhase) -> Fixture {
    var fixture = Fixture()
    _ = fixture.start()
    _ = fixture.machine.operationEnded(RunID(rawValue: 1), with: .success(()))
    _ = fixture.start()
    let run = RunID(rawValue: 2)
    switch phase {
    case .idle:
      _ = fixture.machine.operationEnded(run, with: .success(()))
      _ = fixture.machine.reset()
    case .running: break
    case .paused: _ = fixture.machine.pause()
    case .finished: _ = fixture.machine.operationEnded(run, with: .success(()))
    case .failed: _ = fixture.machine.operationEnded(run, with: .failure(TestError()))
    case .cancelled: _ = fixture.machine.cancel()
    }
    return fixture
  }

  /// Applies one event and names the outcome, with the run it concerns.
  static func apply(_ kind: EventKind, to fixture: inout Fixture) -> Outcome {
    let current = RunID(rawValue: 2)
    let stale = RunID(rawValue: 1)
    func ended(_ end: RunStateMachine.RunEnd?) -> Outcome {
      guard let end else { return .none }
      if let cancelling = end.cancelling {
        guard cancelling.id == current else { return .wrongRun }
        return end.states.last == .idle ? .cancelCurrentAndReset : .cancelCurrent
      }
      return .endCurrent
    }
    switch kind {
    case .start:
      guard let run = fixture.start() else { return .rejectStart }
      return run == RunID(rawValue: 3) ? .launchNext : .wrongRun
    case .reportNew, .reportSame, .reportStale:
      let progress = fixture.machine.state.progress?.fractionCompleted ?? 0
      fixture.report(
        kind == .reportSame ? progress : 0.75, into: kind == .reportStale ? stale : current)
      return fixture.machine.drainReports() == nil ? .none : .publishProgress
    case .returned: return ended(fixture.machine.operationEnded(current, with: .success(())))
    case .returnedStale: return ended(fixture.machine.operationEnded(stale, with: .success(())))
    case .threw: return ended(fixture.machine.operationEnded(current, with: .failure(TestError())))
    case .threwCancellation:
      return ended(fixture.machine.operationEnded(current, with: .failure(CancellationError())))
    case .threwStale:
      return ended(fixture.machine.operationEnded(stale, with: .failure(TestError())))
    case .cancel: return ended(fixture.machine.cancel())
    case .reset:
      switch fixture.machine.reset() {
      case nil: return .none
      case .publishIdle: return .publishReset
      case .endRunAndPublishIdle(let end): return ended(end)
      }
    case .pause: return fixture.machine.pause() == nil ? .none : .publishPaused
    case .resume: return fixture.machine.resume() == nil ? .none : .publishResumed
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
      .pause: (.none, .idle), .resume: (.none, .idle),
    ],
    .running: [
      .start: (.rejectStart, .running(0)),
      .reportNew: (.publishProgress, .running(0.75)), .reportSame: (.none, .running(0)),
      .reportStale: (.none, .running(0)),
      .returned: (.endCurrent, .finished), .returnedStale: (.none, .running(0)),
      .threw: (.endCurrent, .failed(TestError())), .threwCancellation: (.endCurrent, .cancelled),
      .threwStale: (.none, .running(0)),
      .cancel: (.cancelCurrent, .cancelled), .reset: (.cancelCurrentAndReset, .idle),
      .pause: (.publishPaused, .paused(0)), .resume: (.none, .running(0)),
    ],
    .paused: [
      .start: (.rejectStart, .paused(0)),
      .reportNew: (.publishProgress, .paused(0.75)), .reportSame: (.none, .paused(0)),
      .reportStale: (.none, .paused(0)),
      .returned: (.endCurrent, .finished), .returnedStale: (.none, .paused(0)),
      .threw: (.endCurrent, .failed(TestError())), .threwCancellation: (.endCurrent, .cancelled),
      .threwStale: (.none, .paused(0)),
      .cancel: (.cancelCurrent, .cancelled), .reset: (.cancelCurrentAndReset, .idle),
      .pause: (.none, .paused(0)), .resume: (.publishResumed, .running(0)),
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
      .pause: (.none, state), .resume: (.none, state),
    ]
  }

  @Test func tableCoversEveryPhaseAndEvent() {
    #expect(Set(Self.table.keys) == Set(RunPhase.allCases))
    for row in Self.table.values {
      #expect(row.count == EventKind.allCases.count)
    }
  }

  @Test(arguments: RunPhase.allCases, EventKind.allCases)
  func everyPhaseAndEventHasItsSpecifiedOutcome(phase: RunPhase, kind: EventKind) throws {
    var fixture = Self.fixture(in: phase)
    #expect(fixture.machine.state.phase == phase)
    let (expectedOutcome, expectedState) = try #require(Self.table[phase]?[kind])
    #expect(Self.apply(kind, to: &fixture) == expectedOutcome)
    #expect(fixture.machine.state == expectedState)
    #expect((fixture.machine.activeRun != nil) == fixture.machine.state.phase.isActive)
  }

  @Test func runsAreNumberedAndOnlyTheActiveOneCounts() {
    var fixture = Fixture()
    #expect(fixture.start() == RunID(rawValue: 1))
    #expect(fixture.machine.cancel()?.cancelling?.id == RunID(rawValue: 1))
    #expect(fixture.start() == RunID(rawValue: 2))
    // The cancelled run's late report, result and error are all dropped.
    fixture.report(0.9, into: RunID(rawValue: 1))
    #expect(fixture.machine.drainReports() == nil)
    #expect(fixture.machine.operationEnded(RunID(rawValue: 1), with: .success(())) == nil)
    #expect(fixture.machine.operationEnded(RunID(rawValue: 1), with: .failure(TestError())) == nil)
    #expect(fixture.machine.cancel(ifActive: RunID(rawValue: 1)) == nil)
    #expect(fixture.machine.state == .running(0))
    #expect(fixture.machine.activeRun?.id == RunID(rawValue: 2))
  }

  @Test func theLastReportBeforeTheEndIsPublishedBeforeTheTerminalState() {
    var fixture = Fixture()
    let run = fixture.start()!
    fixture.report(0.25, into: run)
    #expect(fixture.machine.drainReports() == .running(0.25))
    fixture.report(0.58, into: run)
    let end = fixture.machine.operationEnded(run, with: .failure(TestError()))
    #expect(end?.states == [.running(0.58), .failed(TestError())])
    #expect(end?.outcome == .failed(TestError()))
    #expect(end?.cancelling == nil)
  }

  @Test func aRunEndsWithoutAnExtraStateWhenItsLastReportWasDrained() {
    var fixture = Fixture()
    let run = fixture.start()!
    fixture.report(1, into: run)
    #expect(fixture.machine.drainReports() == .running(1))
    #expect(fixture.machine.operationEnded(run, with: .success(()))?.states == [.finished])
  }

  @Test func cancellingHandsBackTheRunAndItsWaitersOnce() async {
    var fixture = Fixture()
    let run = fixture.start()!
    let end = fixture.machine.cancel()
    #expect(end?.cancelling?.id == run)
    #expect(end?.states == [.cancelled])
    #expect(end?.outcome == .cancelled)
    #expect(fixture.machine.cancel() == nil)
    #expect(fixture.machine.activeRun == nil)
  }
}
