import Foundation
import TaskProgress
import TaskProgressFoundation
import TaskProgressTestSupport
import Testing

/// A run whose operation follows a progress and then holds until the test lets it end.
final class FollowingRun: Sendable {
  private let following = Latch()
  /// Opened by the test to let the operation return.
  let proceed = Latch()

  /// Starts a run on `runner` that follows `progress`, or a subprogress of `assigned` of
  /// `total` units follows it; returns once it follows.
  @MainActor
  static func start(
    on runner: TaskRunner, following progress: Progress,
    assigning assigned: (count: Int, of: Int)? = nil
  ) async -> FollowingRun {
    let run = FollowingRun()
    runner.start { reporter in
      if let assigned {
        reporter.report(totalCount: assigned.of)
        reporter.subprogress(assigningCount: assigned.count).follow(progress)
      } else {
        reporter.follow(progress)
      }
      run.following.open()
      await run.proceed.wait()
    }
    await run.following.wait(for: "the operation to follow the progress")
    return run
  }
}
