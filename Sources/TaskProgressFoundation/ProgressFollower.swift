public import Foundation
public import TaskProgress

/// Mirrors a `Foundation.Progress` into a reporter, read on the run's frames.
final class ProgressFollower: ProgressSource {
  let progress: Progress
  let reporter: TaskRunner.Reporter

  init(progress: Progress, reporter: TaskRunner.Reporter) {
    self.progress = progress
    self.reporter = reporter
  }

  func poll() -> ProgressSourceStatus {
    let reading = ProgressReading(progress)
    switch reading.report {
    case .counts(let completed, let total, let inFlight):
      reporter.report(completed: completed, of: total, inFlight: inFlight)
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
  ///   let progress = Progress(totalUnitCount: 100)
  ///   reporter.follow(progress)
  ///   try await legacyImport(progress: progress)  // sets progress.completedUnitCount
  /// }
  /// ```
  ///
  /// The runner reads the progress on its frames, as it reads reports, so a `Progress` updated
  /// a million times a second costs the main actor one reading per frame; nothing is observed
  /// on the thread that updates it. Each reading replaces this reporter's counts:
  ///
  /// - The fraction is the progress's `fractionCompleted`, which counts its unfinished
  ///   children; the counts are its `completedUnitCount` and `totalUnitCount`, which do not.
  /// - An indeterminate progress makes the reporter indeterminate, keeping its count.
  /// - A finished progress completes the reporter, and following ends.
  /// - A cancelled progress cancels the run, after the run shows the values read before.
  /// - Cancelling the run cancels the progress, and so the work that its `cancellationHandler`
  ///   stops, such as a `URLSessionTask`'s.
  ///
  /// The progress is read once more when the run's operation ends, so its last value reaches
  /// the run's last state. A standalone reporter reads it whenever its
  /// ``/TaskProgress/TaskRunner/Reporter/progress`` is read.
  /// Following returns at once; the operation waits for the work in its own way, such as the
  /// completion handler of the API that made the progress.
  ///
  /// - Parameter progress: The progress to mirror. Following a progress whose run ended does
  ///   nothing, except that the progress of a cancelled run is cancelled.
  public func follow(_ progress: Progress) {
    let follower = ProgressFollower(progress: progress, reporter: self)
    // The first reading at once: the reporter shows the progress before the next frame.
    let status = follower.poll()
    guard status != .ended else { return }
    guard addSource(follower) else {
      if isCancelled {
        progress.cancel()
      }
      return
    }
  }
}

extension TaskRunner.Subprogress {
  /// Starts this share as a child that mirrors a `Foundation.Progress` until it finishes or is
  /// cancelled, as ``TaskRunner/Reporter/follow(_:)`` does.
  ///
  /// The child's fraction is the progress's, times the count assigned to this share, in its
  /// parent's; when the progress finishes, the assigned count is added to the parent's count.
  /// An indeterminate progress adds 0 to its parent's fraction.
  ///
  /// ```swift
  /// func importArchive(_ url: URL, subprogress: consuming TaskRunner.Subprogress) async throws {
  ///   let progress = Progress(totalUnitCount: 100)
  ///   subprogress.follow(progress)
  ///   try await legacyUnpack(url, progress: progress)  // sets progress.completedUnitCount
  /// }
  /// ```
  ///
  /// <doc:WorkingWithFoundationProgress> follows a `URLSession` download this way.
  ///
  /// - Parameter progress: The progress to mirror.
  public consuming func follow(_ progress: Progress) {
    start(totalCount: nil).follow(progress)
  }
}
