import Foundation
import TaskProgress
import TaskProgressFoundation

/// A standalone reporter following a progress: what the follow bridge shows for it, read as a
/// runner's frame reads it.
struct Mirror {
  let reporter = TaskRunner.Reporter()

  init(following progress: Progress) {
    reporter.follow(progress)
  }

  /// The mirrored fraction; `nil` while indeterminate.
  var fraction: Double? {
    reporter.progress.fractionCompleted
  }

  var progress: RunProgress {
    reporter.progress
  }
}

/// A progress with no parent, whatever progress is current on this thread.
func rootProgress(total: Int64) -> Progress {
  let progress = Progress(parent: nil, userInfo: nil)
  progress.totalUnitCount = total
  return progress
}
