import TaskProgress
import TaskProgressTestSupport
import Testing

/// A run whose operation hands its reporter to the test and then holds until the test lets it
/// end, or throws `TestError` when the test fails it.
final class ReportingRun: Sendable {
  private let handedOver = Latch()
  private let slot = Locked<TaskRunner.Reporter?>(nil)
  private let failing = Locked(false)
  /// Opened by the test to let the operation end.
  let proceed = Latch()

  /// Starts the run on `runner`; returns once the operation holds its reporter.
  @MainActor
  static func start(on runner: TaskRunner) async -> ReportingRun {
    let run = ReportingRun()
    runner.start { reporter in
      run.slot.withLock { $0 = reporter }
      run.handedOver.open()
      await run.proceed.wait()
      if run.failing.withLock({ $0 }) {
        throw TestError()
      }
    }
    await run.handedOver.wait(for: "the operation to start")
    return run
  }

  /// The run's reporter.
  var reporter: TaskRunner.Reporter {
    // A reporter of no run if the operation never started (an issue says so).
    slot.withLock { $0 } ?? TaskRunner.Reporter()
  }

  /// Lets the operation end by throwing.
  func fail() {
    failing.withLock { $0 = true }
    proceed.open()
  }
}
