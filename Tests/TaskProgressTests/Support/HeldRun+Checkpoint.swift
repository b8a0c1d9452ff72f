import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// What a test of pausing reads of a ``HeldRun``: its signals, and a task waiting at a
/// checkpoint of the paused run.
extension HeldRun {
  /// What every reporter of the run shares: its pause and cancel signals.
  var signals: RunSignals {
    reporter.node.signals
  }

  /// How a task's call to `checkpoint()` ended.
  enum CheckpointEnd: Equatable, Sendable, CustomStringConvertible {
    case returned, threwCancellation, threwOtherError

    var description: String {
      switch self {
      case .returned: "returned"
      case .threwCancellation: "threw CancellationError"
      case .threwOtherError: "threw an error other than CancellationError"
      }
    }
  }

  /// Starts a task that calls `checkpoint()` on the run, which the test paused, and returns it
  /// once it waits there for the run to resume, for at most ``waitLimit``.
  ///
  /// A checkpoint that ends instead of waiting is a failure the test hears of at once, not at a
  /// deadline: the issue says that `checkpoint()` did not wait, and the task comes back ended.
  func checkpointWaitingWhilePaused(
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Task<CheckpointEnd, Never> {
    let (reporter, signals, ended) = (self.reporter, self.signals, Latch())
    let worker = Task.detached { () -> CheckpointEnd in
      defer { ended.open() }
      do {
        try await reporter.checkpoint()
        return .returned
      } catch is CancellationError {
        return .threwCancellation
      } catch {
        return .threwOtherError
      }
    }
    await waitUntil(
      "a task to wait at checkpoint() for the paused run to resume (\(signals.waitingTaskCount) do)",
      sourceLocation: sourceLocation
    ) { signals.waitingTaskCount == 1 || ended.isOpen }
    if ended.isOpen {
      Issue.record(
        "checkpoint() did not wait while the run was paused: it \(await worker.value) at once",
        sourceLocation: sourceLocation)
    }
    return worker
  }
}
