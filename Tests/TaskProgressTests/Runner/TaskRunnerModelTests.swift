import Foundation
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A small, obviously correct model of the runner's documented states and transitions, and random
/// event sequences that the runner must agree with after every event.
///
/// Each sequence starts from a seed; a failure names the seed, and
/// `TASKPROGRESS_MODEL_SEED=<seed> TASKPROGRESS_MODEL_SEQUENCES=1 swift test --filter TaskRunnerModel`
/// replays it. CI runs 10,000 sequences of up to 50 events (`TASKPROGRESS_MODEL_SEQUENCES`).
@MainActor
@Suite("Task runner against its model", .timeLimit(TestScale.timeLimit(minutes: 10)))
struct TaskRunnerModelTests {
  // MARK: - The model

  /// What the documented behaviour says the runner holds, and what each observer has seen.
  struct Model {
    /// A run the test started: its number, whether the runner still owns it, its script.
    struct Run {
      let number: Int
      let script: OperationScript
    }

    var state: RunState = .idle
    var displayed = 0.0
    var activeRun: Run?
    /// The latest report of the active run that no frame has delivered yet.
    var pending: RunProgress?
    /// The latest message of the active run, which frames deliver with its progress.
    var message: String?
    var histories: [Int: [RunState]] = [:]
    /// The observers whose tokens are alive; the others' histories stay as they are.
    var liveObservers: Set<Int> = []
    var runs = 0

    /// The state changes, and every live observer hears of it.
    mutating func publish(_ newState: RunState) {
      state = newState
      if let fraction = newState.fractionCompleted {
        displayed = fraction  // instant animation; an indeterminate state leaves the bar alone
      }
      for key in liveObservers {
        histories[key]?.append(newState)
      }
    }

    /// A report of the active run: delivered by the next frame, if it differs from the state.
    mutating func report(_ progress: RunProgress) {
      pending = progress
    }

    /// One update interval passes: the latest report and message, if new, reach everyone, in a
    /// state of the run's phase, running or paused.
    mutating func frame() {
      guard activeRun != nil, let current = state.progress else { return }
      let progress = (pending ?? current).withMessage(message)
      pending = nil
      if progress != current {
        publish(state.phase == .paused ? .paused(progress) : .running(progress))
      }
    }

    mutating func pause() {
      guard activeRun != nil, case .running(let progress) = state else { return }
      publish(.paused(progress))
    }

    mutating func resume() {
      guard activeRun != nil, case .paused(let progress) = state else { return }
      publish(.running(progress))
    }

    /// The active run ends by itself: its last report, if new, reaches everyone before the end.
    mutating func end(with newState: RunState) {
      guard activeRun != nil else { return }
      frame()
      activeRun = nil
      publish(newState)
    }

    mutating func cancel() {
      guard activeRun != nil else { return }
      activeRun = nil
      pending = nil
      publish(.cancelled)
    }

    mutating func reset() {
      switch state.phase {
      case .idle: return
      case .running, .paused:
        cancel()
        publish(.idle)
      case .finished, .failed, .cancelled:
        publish(.idle)
      }
    }
  }

  // MARK: - Events

  enum Event: CustomStringConvertible {
    case start
    case reportFraction(Double)
    case reportCounts(Int, Int)
    case reportIndeterminate(Int?)
    case reportMessage(String?)
    case finish
    case fail(String)
    case throwCancellation
    case staleReport(Double)
    case staleFinish
    case staleFail
    case cancel
    case reset
    case pause
    case resume
    case observe
    case cancelToken
    case releaseToken
    case advanceFrame
    case advancePartly(Duration)

    var description: String {
      switch self {
      case .start: "start"
      case .reportFraction(let value): "report(\(value))"
      case .reportCounts(let completed, let total): "report(\(completed) of \(total))"
      case .reportIndeterminate(let completed):
        "reportIndeterminate(\(String(describing: completed)))"
      case .reportMessage(let message): "report(message: \(String(describing: message)))"
      case .finish: "operation returns"
      case .fail(let message): "operation throws \(message)"
      case .throwCancellation: "operation throws CancellationError"
      case .staleReport(let value): "a cancelled run reports \(value)"
      case .staleFinish: "a cancelled run returns"
      case .staleFail: "a cancelled run throws"
      case .cancel: "cancel()"
      case .reset: "reset()"
      case .pause: "pause()"
      case .resume: "resume()"
      case .observe: "observe"
      case .cancelToken: "cancel a token"
      case .releaseToken: "release a token"
      case .advanceFrame: "advance one interval"
      case .advancePartly(let duration): "advance \(duration)"
      }
    }

    static func random(using random: inout SplitMix64, runIsActive: Bool) -> Event {
      let fractions: [Double] = [0, 0.25, 0.5, 0.75, 1, -1, 2, .nan, .infinity, -.infinity, 0.123]
      let counts: [(Int, Int)] = [
        (1, 4), (3, 4), (4, 4), (-1, 4), (9, 4), (5, 0), (5, -2), (Int.min, 10), (Int.max, 10),
        (7, Int.max), (Int.max, Int.max), (2, 1 << 40),
      ]
      let messages: [String?] = [
        nil, "", "Hashing a.jpg", "a longer message, beyond fifteen bytes",
      ]
      switch random.next(below: 110) {
      case 100..<104: return .reportMessage(messages[random.next(below: messages.count)])
      case 104..<107: return .pause
      case 107..<110: return .resume
      case 0..<10: return .start
      case 10..<24: return .reportFraction(fractions[random.next(below: fractions.count)])
      case 24..<32:
        let pair = counts[random.next(below: counts.count)]
        return .reportCounts(pair.0, pair.1)
      case 32..<35: return .reportIndeterminate([nil, 3, -3][random.next(below: 3)])
      case 35..<41: return .finish
      case 41..<45: return .fail(["disk full", "timeout"][random.next(below: 2)])
      case 45..<47: return .throwCancellation
      case 47..<50: return .staleReport(fractions[random.next(below: fractions.count)])
      case 50..<52: return .staleFinish
      case 52..<54: return .staleFail
      case 54..<60: return .cancel
      case 60..<64: return .reset
      case 64..<70: return .observe
      case 70..<74: return .cancelToken
      case 74..<76: return .releaseToken
      case 76..<96: return .advanceFrame
      case 96..<100: return .advancePartly(.milliseconds(random.next(below: 16) + 1))
      default: return .advanceFrame
      }
    }
  }

  // MARK: - The driver

  /// Plays one random sequence against a fresh runner and model; returns the first disagreement.
  static func play(seed: UInt64, events count: Int) async -> String? {
    var random = SplitMix64(seed: seed)
    let clock = ManualClock()
    let runner = TaskRunner(animation: .instant, clock: clock)
    var model = Model()
    var tokens: [Int: ObservationToken] = [:]
    var logs: [Int: Box] = [:]
    var staleRuns: [Model.Run] = []
    var nextObserver = 0
    var played: [String] = []
    let interval = runner.updateInterval

    func check(_ event: Event) -> String? {
      played.append(event.description)
      var problems: [String] = []
      if runner.state != model.state {
        problems.append("state \(runner.state), model \(model.state)")
      }
      if runner.displayedProgress != model.displayed {
        problems.append("displayed \(runner.displayedProgress), model \(model.displayed)")
      }
      for (key, log) in logs where log.states != model.histories[key] {
        problems.append("observer \(key) saw \(log.states), model \(model.histories[key] ?? [])")
      }
      guard !problems.isEmpty else { return nil }
      return "seed \(seed): after [\(played.joined(separator: ", "))]: "
        + problems.joined(separator: "; ")
    }

    defer {
      // End every operation still waiting, so no task outlives the sequence.
      for run in staleRuns + (model.activeRun.map { [$0] } ?? []) {
        Task { await run.script.send(.finish) }
      }
    }

    for _ in 0..<count {
      let event = Event.random(using: &random, runIsActive: model.activeRun != nil)
      switch event {
      case .start:
        let script = OperationScript()
        let started = runner.start(script.operation)
        if started {
          script.watch(runner.lastRunTask)
          model.runs += 1
          model.activeRun = Model.Run(number: model.runs, script: script)
          model.pending = nil
          model.message = nil
          model.publish(.running(.zero))
        } else if model.activeRun == nil {
          return "seed \(seed): start refused while the model is \(model.state)"
        }
      case .reportFraction(let value):
        guard let run = model.activeRun else { continue }
        await run.script.send(.report(value))
        if value.isFinite { model.report(RunProgress(fractionCompleted: value)) }
      case .reportCounts(let completed, let total):
        guard let run = model.activeRun else { continue }
        await run.script.send(.reportCounts(completed, total))
        model.report(RunProgress(completed: completed, of: total))
      case .reportIndeterminate(let completed):
        guard let run = model.activeRun else { continue }
        await run.script.send(.reportIndeterminate(completed))
        model.report(.indeterminate(completed: completed))
      case .reportMessage(let message):
        guard let run = model.activeRun else { continue }
        await run.script.send(.reportMessage(message))
        model.message = message
      case .pause:
        runner.pause()
        model.pause()
      case .resume:
        runner.resume()
        model.resume()
      case .finish:
        guard let run = model.activeRun else { continue }
        await run.script.send(.finish)
        model.end(with: .finished)
      case .fail(let message):
        guard let run = model.activeRun else { continue }
        await run.script.send(.fail(message))
        model.end(with: .failed(TestError(message: message)))
      case .throwCancellation:
        guard let run = model.activeRun else { continue }
        await run.script.send(.throwCancellation)
        model.end(with: .cancelled)
      case .staleReport(let value):
        guard let run = staleRuns.randomElement(using: &random) else { continue }
        await run.script.send(.report(value))
      case .staleFinish:
        guard let run = staleRuns.randomElement(using: &random) else { continue }
        await run.script.send(.finish)
      case .staleFail:
        guard let run = staleRuns.randomElement(using: &random) else { continue }
        await run.script.send(.fail("stale"))
      case .cancel:
        if let run = model.activeRun { staleRuns.append(run) }
        runner.cancel()
        model.cancel()
      case .reset:
        if let run = model.activeRun { staleRuns.append(run) }
        runner.reset()
        model.reset()
      case .observe:
        let key = nextObserver
        nextObserver += 1
        let log = Box()
        logs[key] = log
        model.histories[key] = [model.state]
        model.liveObservers.insert(key)
        tokens[key] = runner.observe { log.states.append($0) }
      case .cancelToken, .releaseToken:
        guard let key = tokens.keys.sorted().randomElement(using: &random) else { continue }
        if case .cancelToken = event {
          tokens[key]?.cancel()
        }
        tokens[key] = nil
        model.liveObservers.remove(key)
      case .advanceFrame:
        clock.advance(by: interval)
        model.frame()
      case .advancePartly(let duration):
        // Only when no report waits, since a frame may or may not fall within the step.
        guard model.pending == nil,
          model.activeRun == nil || model.message == model.state.progress?.message
        else { continue }
        clock.advance(by: duration)
      }
      if let problem = check(event) { return problem }
    }
    return nil
  }

  final class Box {
    var states: [RunState] = []
  }

  static var sequenceCount: Int {
    ProcessInfo.processInfo.environment["TASKPROGRESS_MODEL_SEQUENCES"].flatMap(Int.init)
      ?? TestScale.count(10_000, sanitized: 2_000)
  }

  static var baseSeed: UInt64 {
    ProcessInfo.processInfo.environment["TASKPROGRESS_MODEL_SEED"].flatMap(UInt64.init)
      ?? UInt64.random(in: 0...UInt64.max / 2)
  }

  @Test func theRunnerAgreesWithTheModelAfterEveryEventOfRandomSequences() async {
    let base = Self.baseSeed
    let count = Self.sequenceCount
    var failures: [String] = []
    for index in 0..<count {
      let seed = base &+ UInt64(index)
      var lengthRandom = SplitMix64(seed: seed ^ 0x5EED)
      let length = lengthRandom.next(below: 50) + 1
      if let failure = await Self.play(seed: seed, events: length) {
        failures.append(failure)
        if failures.count >= 3 { break }
      }
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n(base seed \(base))")
  }

  @Test func theModelCatchesARunnerThatLosesAReport() async {
    // A sanity check of the harness itself: a sequence that reports then advances must see the
    // report delivered; a model that forgot to deliver it would disagree.
    var model = Model()
    model.histories[0] = [.idle]
    model.liveObservers = [0]
    model.runs = 1
    model.activeRun = Model.Run(number: 1, script: OperationScript())
    model.publish(.running(.zero))
    model.report(0.5)
    model.frame()
    #expect(model.state == .running(0.5))
    #expect(model.histories[0] == [.idle, .running(0), .running(0.5)])
    model.report(0.5)
    model.frame()
    #expect(model.histories[0]?.count == 3)
  }
}
