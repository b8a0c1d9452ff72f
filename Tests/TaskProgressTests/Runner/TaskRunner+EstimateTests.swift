import Observation
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@MainActor
@Suite("Task runner estimates", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct TaskRunnerEstimateTests {
  /// Reports `perStep` more units every `step` on a manual clock, `steps` times: each report at
  /// the end of its step, drained by the frame at that instant, so that the samples are exactly
  /// `step` apart and the estimate is read at the last one.
  private func reportSteadily(
    _ run: HeldRun, on harness: Harness, from start: Int = 0, perStep: Int, total: Int?,
    step: Duration, steps: Int
  ) async {
    var turns = MainActorTurns()
    for index in 1...steps {
      await turns.yieldIfDue()  // the main actor to other suites now and then
      harness.clock.advance(by: step - frame)
      let completed = start + index * perStep
      if let total {
        run.reporter.report(completed: completed, of: total)
      } else {
        run.reporter.reportIndeterminate(completed: completed)
      }
      harness.clock.advance(by: frame)
    }
  }

  @Test(arguments: [1.0, 10, 1e3, 1e6, 1e9, 1e12])
  func aConstantRateIsRecovered(rate: Double) async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    // Whole units per step: a step of a second for slow rates, a frame for fast ones.
    let step: Duration = rate < 60 ? .seconds(1) : frame
    let perStep = Int((rate * TaskRunnerEstimateTests.seconds(step)).rounded())
    let measured = Double(perStep) / TaskRunnerEstimateTests.seconds(step)
    let total = perStep * 1_000
    await reportSteadily(run, on: harness, perStep: perStep, total: total, step: step, steps: 100)
    let throughput = try #require(harness.runner.throughput)
    #expect(abs(throughput - measured) / measured < 1e-6)
    let remaining = try #require(harness.runner.estimatedTimeRemaining)
    let expected = Double(total - 100 * perStep) / measured
    #expect(abs(TaskRunnerEstimateTests.seconds(remaining) - expected) / expected < 1e-6)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
    #expect(harness.runner.throughput == nil)
    #expect(harness.runner.estimatedTimeRemaining == nil)
  }

  @Test(arguments: [false, true])
  func nothingIsSaidUntilThreeSamples(framesBeforeTheFirstReport: Bool) async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    if framesBeforeTheFirstReport {
      // Frames that read the run's zero before it reports are no samples, nor a change of kind.
      harness.clock.advance(by: frame * 3)
    }
    #expect(harness.runner.throughput == nil)
    await reportSteadily(run, on: harness, perStep: 10, total: 1_000, step: frame, steps: 2)
    #expect(harness.runner.throughput == nil)
    #expect(harness.runner.estimatedTimeRemaining == nil)
    await reportSteadily(
      run, on: harness, from: 20, perStep: 10, total: 1_000, step: frame, steps: 1)
    #expect(harness.runner.throughput != nil)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func aRunnerNobodyWatchesComputesItsEstimateWhenFirstReadAsAWatchedOneDid() async throws {
    // Frames leave the estimate to whoever reads it while no renderer, observer or read asks for
    // it; the first read computes what a watched runner on the same clock shows.
    let harness = Harness()
    let unwatched = TaskRunner(animation: .instant, clock: harness.clock)
    let watchedRun = await HeldRun.start(on: harness.runner)
    let unwatchedRun = await HeldRun.start(on: unwatched)
    for index in 1...40 {
      for run in [watchedRun, unwatchedRun] {
        run.reporter.report(completed: index * (index < 30 ? 7 : 1), of: 1_000)
      }
      harness.clock.advance(by: frame)
    }
    // A stall after the last report: the rate decays frame by frame.
    harness.clock.advance(by: frame * 30)
    #expect(harness.runner.throughput != nil)
    #expect(unwatched.throughput == harness.runner.throughput)
    #expect(unwatched.estimatedTimeRemaining == harness.runner.estimatedTimeRemaining)
    // Read once, it is computed on every frame from then on, and Observation hears of it.
    let heard = Latch()
    withObservationTracking {
      _ = unwatched.throughput
    } onChange: {
      heard.open()
    }
    unwatchedRun.reporter.report(completed: 900, of: 1_000)
    watchedRun.reporter.report(completed: 900, of: 1_000)
    harness.clock.advance(by: frame)
    await heard.wait()
    #expect(unwatched.throughput == harness.runner.throughput)
    #expect(unwatched.estimatedTimeRemaining == harness.runner.estimatedTimeRemaining)
    for run in [watchedRun, unwatchedRun] {
      run.proceed.open()
    }
    await harness.recorder.waitForTerminalState()
  }

  @Test func aStallDecaysTheRateFrameByFrame() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    await reportSteadily(run, on: harness, perStep: 100, total: 1_000_000, step: frame, steps: 600)
    let steady = try #require(harness.runner.throughput)
    var previous = steady
    for _ in 0..<15 {
      harness.clock.advance(by: .seconds(1))
      let now = try #require(harness.runner.throughput)
      #expect(now < previous)
      previous = now
    }
    // After 15 s without progress, the samples weigh 0.1: w(2 - w) = 0.19 of the rate for a run
    // that had gone on for ever; the estimator's formula gives 0.15394 for these 10 s of samples.
    #expect(abs(previous / steady - 0.153_937) < 1e-5)
    run.reporter.report(completed: 60_100, of: 1_000_000)
    harness.clock.advance(by: frame)
    #expect(try #require(harness.runner.throughput) > previous)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func pausedTimeDoesNotCount() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    await reportSteadily(run, on: harness, perStep: 50, total: 100_000, step: frame, steps: 120)
    let before = try #require(harness.runner.throughput)
    let remainingBefore = try #require(harness.runner.estimatedTimeRemaining)
    harness.runner.pause()
    // 36,000 frames, or 3,600 under the sanitizer: a paused minute would have halved the rate.
    var turns = MainActorTurns()
    for _ in 0..<TestScale.count(600, sanitized: 60) {
      harness.clock.advance(by: .seconds(1))
      await turns.yieldIfDue()
    }
    #expect(harness.runner.throughput == before, "no decay while paused")
    #expect(harness.runner.estimatedTimeRemaining == remainingBefore)
    // Work that goes on while paused counts in the position, not in the rate.
    run.reporter.report(completed: 9_000, of: 100_000)
    harness.clock.advance(by: .seconds(10))
    #expect(harness.runner.throughput == before)
    harness.runner.resume()
    await reportSteadily(
      run, on: harness, from: 9_000, perStep: 50, total: 100_000, step: frame, steps: 60)
    let after = try #require(harness.runner.throughput)
    #expect(abs(after - 3_000) / 3_000 < 1e-6, "still 50 units a frame, the pause left out")
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func everyPauseOfARunIsLeftOutOfTheRateAndTheTimeRemaining() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    let total = 1_000_000
    var completed = 0
    /// The rate and the time left now, which must agree: the time left at the rate.
    func estimate(_ when: String) throws -> (rate: Double, remaining: Double) {
      let rate = try #require(harness.runner.throughput, "\(when): no rate")
      let remaining = TaskRunnerEstimateTests.seconds(
        try #require(harness.runner.estimatedTimeRemaining, "\(when): no time left"))
      let atTheRate = Double(total - completed) / rate
      #expect(abs(remaining - atTheRate) / atTheRate < 1e-6, "\(when): \(remaining) s left")
      return (rate, remaining)
    }
    /// Pauses for `seconds` of the clock, 60 frames each, and checks that neither the rate nor
    /// the time left moves meanwhile.
    func pause(for seconds: Int, _ when: String) async throws {
      let before = try estimate("before \(when)")
      harness.runner.pause()
      var turns = MainActorTurns()
      for _ in 0..<seconds {
        harness.clock.advance(by: .seconds(1))
        await turns.yieldIfDue()
      }
      // Read again while paused, from the same samples: equal but for rounding.
      let paused = try estimate(when)
      #expect(abs(paused.rate - before.rate) / before.rate < 1e-9, "\(when): the rate moved")
      #expect(abs(paused.remaining - before.remaining) < 1e-6, "\(when): the time left moved")
      harness.runner.resume()
    }

    // 5 s at 3,000 units a second (50 a frame), then a pause of 30 s.
    await reportSteadily(
      run, on: harness, perStep: 50, total: total, step: frame, steps: 300)
    completed = 300 * 50
    try await pause(for: 30, "the first pause")
    // 1 s at the same speed: the rate stays 3,000 exactly, as if there had been no pause.
    await reportSteadily(
      run, on: harness, from: completed, perStep: 50, total: total, step: frame, steps: 60)
    completed += 60 * 50
    let steady = try estimate("after the first pause")
    #expect(abs(steady.rate - 3_000) / 3_000 < 1e-6, "after the first pause: \(steady.rate)")
    try await pause(for: 12, "the second pause")
    // 1 s at twice the speed: the rate rises at once (to 3,046: it weighs 15 s of samples).
    // Had the first stretch's 5 s been lost from the run's active time at the second pause,
    // time would have gone back, and these samples, older than the last, changed nothing.
    await reportSteadily(
      run, on: harness, from: completed, perStep: 100, total: total, step: frame, steps: 60)
    completed += 60 * 100
    let faster = try estimate("after the second pause")
    #expect(
      faster.rate > steady.rate * 1.01, "after the second pause, at 6,000 a second: \(faster.rate)")
    try await pause(for: 45, "the third pause")
    // A stall right after the third pause: the rate decays from the first frame on, and the
    // time left grows.
    var previous = faster
    for second in 1...3 {
      harness.clock.advance(by: .seconds(1))
      let now = try estimate("\(second) s into a stall after the third pause")
      #expect(now.rate < previous.rate, "\(second) s into the stall: \(now.rate)")
      #expect(now.remaining > previous.remaining)
      previous = now
    }
    run.proceed.open()
    await harness.waitForEnd()
  }

  @Test func withoutATotalThereIsARateButNoTimeRemaining() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    await reportSteadily(run, on: harness, perStep: 7, total: nil, step: frame, steps: 30)
    #expect(abs(try #require(harness.runner.throughput) - 420) / 420 < 1e-6)
    #expect(harness.runner.estimatedTimeRemaining == nil)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func aRunOfFractionsHasATimeRemainingButNoThroughput() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    for index in 1...30 {
      harness.clock.advance(by: .seconds(1) - frame)
      run.reporter.report(fractionCompleted: Double(index) / 100)
      harness.clock.advance(by: frame)
    }
    #expect(harness.runner.throughput == nil)
    let remaining = try #require(harness.runner.estimatedTimeRemaining)
    #expect(abs(TaskRunnerEstimateTests.seconds(remaining) - 70) < 1e-6)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  @Test func renderersGetTheEstimateAndTheUnitInEveryUpdate() async throws {
    let harness = Harness()
    harness.runner.unit = .bytes
    let renderer = RecordingRenderer()
    harness.runner.attach(renderer)
    let run = await HeldRun.start(on: harness.runner)
    await reportSteadily(run, on: harness, perStep: 1_000, total: 1_000_000, step: frame, steps: 10)
    let last = try #require(renderer.updates.last)
    #expect(last.unit == .bytes)
    // The last report, published as the run ends, still carries the estimate.
    run.reporter.report(completed: 11_000, of: 1_000_000)
    #expect(last.throughput == harness.runner.throughput)
    #expect(last.estimatedTimeRemaining == harness.runner.estimatedTimeRemaining)
    #expect(last.throughput != nil)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
    let lastReport = try #require(
      renderer.updates.last { $0.state == .running(RunProgress(completed: 11_000, of: 1_000_000)) })
    #expect(lastReport.throughput != nil && lastReport.estimatedTimeRemaining != nil)
    let end = try #require(renderer.updates.last)
    #expect(end.state == .finished && end.throughput == nil && end.estimatedTimeRemaining == nil)
  }

  @Test func theLastReportOfARunThatEndsHasNoTimeLeft() async throws {
    let harness = Harness()
    let renderer = RecordingRenderer()
    harness.runner.attach(renderer)
    let run = await HeldRun.start(on: harness.runner)
    await reportSteadily(run, on: harness, perStep: 10, total: 100, step: frame, steps: 5)
    run.reporter.report(completed: 100, of: 100)
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
    let last = try #require(
      renderer.updates.last { $0.state == .running(RunProgress(completed: 100, of: 100)) })
    #expect(last.estimatedTimeRemaining == .zero)
    #expect(last.throughput != nil)
    #expect(harness.runner.throughput == nil && harness.runner.estimatedTimeRemaining == nil)
  }

  @Test func observationHearsOfTheEstimateChanging() async throws {
    let harness = Harness()
    let run = await HeldRun.start(on: harness.runner)
    await reportSteadily(run, on: harness, perStep: 10, total: 10_000, step: frame, steps: 5)
    let changed = Latch()
    withObservationTracking {
      _ = harness.runner.throughput
    } onChange: {
      changed.open()
    }
    harness.clock.advance(by: .seconds(1))
    #expect(changed.isOpen, "the rate decays while no progress is made")
    run.proceed.open()
    await harness.recorder.waitForTerminalState()
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
  }
}
