import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A run whose operation hands its reporter to the test and then holds until the test lets it
/// end, so that the test reports, pauses and advances the clock itself.
final class HeldRun: Sendable {
  private let handedOver = Latch()
  private let slot = Locked<TaskRunner.Reporter?>(nil)
  /// Opened by the test to let the operation return.
  let proceed = Latch()

  /// Starts the run on `runner`; returns once the operation holds its reporter.
  @MainActor
  static func start(on runner: TaskRunner) async -> HeldRun {
    let run = HeldRun()
    runner.start { reporter in
      run.slot.withLock { $0 = reporter }
      run.handedOver.open()
      await run.proceed.wait()
    }
    await run.handedOver.wait(for: "the operation to start")
    return run
  }

  /// The run's reporter; a reporter of no run if the operation never started (an issue says
  /// so), so that the test goes on to its own assertions.
  var reporter: TaskRunner.Reporter {
    slot.withLock { $0 } ?? TaskRunner.Reporter()
  }

  /// What every reporter of the run shares: its pause and cancel signals.
  var signals: RunSignals {
    reporter.node.signals
  }

  /// Suspends until `count` tasks wait for the run to resume, for at most ``waitLimit``;
  /// records an issue past it.
  func waitForPausedTasks(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
    let signals = self.signals
    await waitUntil(
      "\(count) task(s) to wait for the paused run to resume (\(signals.waitingTaskCount) do)",
      sourceLocation: sourceLocation
    ) { signals.waitingTaskCount == count }
  }
}
