public import Foundation
public import TaskProgress

/// Mirrors a `Foundation.Progress` into a reporter, read on the run's frames.
///
/// It holds the reporter weakly: what a run or a standalone reporter mirrors never keeps it
/// alive, and a subprogress that follows lives as long as its parent keeps it unfinished.
final class ProgressFollower: ProgressSource {
  let progress: Progress
  let reporter: TaskRunner.ReporterReference

  init(progress: Progress, reporter: TaskRunner.ReporterReference) {
    self.progress = progress
    self.reporter = reporter
  }

  func poll() -> ProgressSourceStatus {
    guard let reporter = reporter.reporter else { return .ended }
    let reading = ProgressReading(progress)
    switch reading.report {
    case .counts(let completed, let total, let inFlight):
      // A cancelled progress's children are cancelled with it: what they did no longer counts.
      reporter.report(completed: completed, of: total, inFlight: reading.isCancelled ? 0 : inFlight)
    case .indeterminate(let completed):
      reporter.reportIndeterminateClearingInFlight(completed: completed)
    }
    // A cancelled progress's values are shown, then the run is cancelled.
    if reading.isCancelled {
      return .cancelRun
    }
    return reading.isFinished ? .ended : .following
  }

  func runCancelled() {
    progress.cancel()
  }
}

extension TaskRunner.Reporter {
  /// Mirrors a `Foundation.Progress` in this reporter until it finishes or is cancelled.
  ///
  /// Use it for work that already reports through a `Progress`, such as a `URLSessionTask`, an
  /// `NSItemProvider` load or code written before Swift concurrency:
  ///
  /// ```swift
  /// runner.start { reporter in
  ///   let progress = Progress.discreteProgress(totalUnitCount: 100)
  ///   reporter.follow(progress)
  ///   try await legacyImport(progress: progress)  // sets progress.completedUnitCount
  /// }
  /// ```
  ///
  /// - Parameter progress: The progress to mirror. Following a progress after the run ended
  ///   does nothing, except that a run ended with ``/TaskProgress/TaskRunner/cancel()`` cancels
  ///   it.
  public func follow(_ progress: Progress) {
    let follower = ProgressFollower(progress: progress, reporter: reference)
    if !addSource(follower), isCancelled {
      progress.cancel()
    }
  }
}

extension TaskRunner.Subprogress {
  /// Starts this share as a child that mirrors a `Foundation.Progress` until it finishes or is
  /// cancelled, as ``TaskRunner/Reporter/follow(_:)`` does.
  ///
  /// The child's fraction is the progress's, times the count assigned to this share, in its
  /// parent's; when the progress finishes, the assigned count is added to the parent's count.
  /// An indeterminate progress adds 0 to its parent's fraction. A progress that never finishes,
  /// because it is cancelled or the run ends first, never adds its share to the count.
  ///
  /// ```swift
  /// func importArchive(_ url: URL, subprogress: consuming TaskRunner.Subprogress) async throws {
  ///   let progress = Progress.discreteProgress(totalUnitCount: 100)
  ///   subprogress.follow(progress)
  ///   try await legacyUnpack(url, progress: progress)  // sets progress.completedUnitCount
  /// }
  /// ```
  ///
  /// <doc:WorkingWithFoundationProgress> follows a `URLSession` download this way.
  ///
  /// - Parameter progress: The progress to mirror.
  public consuming func follow(_ progress: Progress) {
    // Kept by its parent while unfinished: the share joins the parent's count only when the
    // progress finishes, not when the run ends or the progress is cancelled before.
    startKeptByParent(totalCount: nil).follow(progress)
  }
}
