package import TaskProgress
package import Testing

/// A runner on a manual clock with a recorder attached: the usual set-up of a runner test.
///
/// Its waits give up after ``waitLimit`` with an issue that says what they waited for.
@MainActor
package struct Harness {
  package let clock = ManualClock()
  package let runner: TaskRunner
  package let recorder: StateRecorder

  package init(animation: ProgressAnimation = .instant, recordingFrames: Bool = false) {
    runner = TaskRunner(animation: animation, clock: clock)
    recorder = StateRecorder(observing: runner, recordingFrames: recordingFrames)
  }

  /// Starts a run that reports `fraction` and then holds until the returned latch opens, and
  /// advances the clock one frame, so that the report is delivered.
  package func startHeldRun(reporting fraction: Double) async -> Latch {
    let run = await HeldRun.start(on: runner)
    run.reporter.report(fractionCompleted: fraction)
    clock.advance(by: frame)
    return run.proceed
  }

  /// Advances the clock a frame at a time, letting other tasks run between two frames, until
  /// `condition` holds, for at most `limit` of real time; returns whether it held.
  ///
  /// Past `limit` it records an issue that says what it waited for: `what`, such as "the state
  /// running(0.5)".
  @discardableResult
  package func advanceFrames(
    until what: @autoclosure () -> String, within limit: Duration = waitLimit,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
  ) async -> Bool {
    await clock.advance(
      by: frame, until: what(), within: limit, sourceLocation: sourceLocation, condition)
  }

  /// Starts a run that reports indeterminate progress with `completed` units, then holds until
  /// it is cancelled; returns once the report is made.
  package func startIndeterminateRun(completed: Int) async {
    let reported = Latch()
    runner.start { reporter in
      reporter.reportIndeterminate(completed: completed)
      reported.open()
      await Latch().wait()
    }
    await reported.wait(for: "the operation to report \(completed) units")
  }

  /// Waits until the runner's run ends, for at most `limit`; returns the terminal state, or
  /// `nil` past `limit`, when it records an issue.
  @discardableResult
  package func waitForEnd(
    within limit: Duration = waitLimit, sourceLocation: SourceLocation = #_sourceLocation
  ) async -> RunState? {
    await recorder.waitForEnd(within: limit, sourceLocation: sourceLocation)
  }

  /// Drives the runner into `phase` through its public API.
  package func drive(to phase: RunPhase) async {
    switch phase {
    case .idle:
      runner.reset()
    case .running:
      runner.start { _ in await Latch().wait() }
    case .paused:
      runner.start { _ in await Latch().wait() }
      runner.pause()
    case .finished:
      _ = await runner.run { _ in }
    case .failed:
      _ = await runner.run { _ in throw TestError() }
    case .cancelled:
      runner.start { _ in await Latch().wait() }
      runner.cancel()
    }
  }
}
