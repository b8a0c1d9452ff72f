package import TaskProgress
import Testing

/// A run whose operation hands its reporter to the test and then holds until the test lets it
/// end, so that the test reports, pauses and advances the clock itself; or until the test fails
/// it, when it throws ``TestError``.
package final class HeldRun: Sendable {
  private let handedOver = Latch()
  private let slot = Locked<TaskRunner.Reporter?>(nil)
  private let failing = Locked(false)
  /// Opened by the test to let the operation return.
  package let proceed = Latch()

  /// Starts the run on `runner`; returns once the operation holds its reporter.
  @MainActor
  package static func start(on runner: TaskRunner) async -> HeldRun {
    let run = HeldRun()
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

  /// The run's reporter; a reporter of no run if the operation never started (an issue says
  /// so), so that the test goes on to its own assertions.
  package var reporter: TaskRunner.Reporter {
    slot.withLock { $0 } ?? TaskRunner.Reporter()
  }

  /// Lets the operation end by throwing ``TestError``.
  package func fail() {
    failing.withLock { $0 = true }
    proceed.open()
  }
}
