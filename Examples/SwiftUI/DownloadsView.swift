// The `downloads` example as a SwiftUI view: a queue of downloads, three at a time, run by a
// TaskRunnerGroup weighted by size. A row per file shows its bar and its bytes, and below the
// list the group's overall bar and how many downloads are in each phase. One button starts the
// queue, or cancels it: the downloads under way and the ones still waiting.
// The terminal version is in Examples/downloads.
//
// Where SwiftUI does not exist, SwiftUIExampleTests compiles this file against a stand-in for the
// SwiftUI names it uses (SWIFTUI_STAND_IN), as it does MyView.swift.
#if canImport(SwiftUI) || SWIFTUI_STAND_IN
#if canImport(SwiftUI)
import SwiftUI
#endif
import TaskProgress

struct DownloadsView: View {
  @State private var group = TaskRunnerGroup(weighting: .units, unit: .bytes)
  /// The queue under way, or the last one: a runner for each file, in the files' order.
  @State private var queue: TaskRunnerGroup.Queue<RemoteFile>?
  let files: [RemoteFile]
  /// How many files download at a time.
  var jobs = 3

  var body: some View {
    VStack(alignment: .leading) {
      List(rows) { row in
        VStack(alignment: .leading) {
          Text(row.file.name)
          ProgressView(value: row.runner?.displayedProgress ?? 0)  // animates
          Text(bytes(of: row))
            .monospacedDigit()
            .foregroundStyle(.secondary)
        }
      }
      // The weighted total: a big file counts more.
      ProgressView(value: group.summary.displayedProgress)
      Text(group.counts.description)  // "3 running, 5 waiting", then "8 finished"
      // The queue ends in the turn its last download ends, whose new state redraws the view.
      Button(queue?.isOver == false ? "Cancel" : "Start") {
        queue?.isOver == false ? group.cancelAll() : start()
      }
    }
  }

  /// A file, and the runner of its download once a queue has one.
  private struct Row: Identifiable {
    let id: Int
    let file: RemoteFile
    let runner: TaskRunner?
  }

  /// Every file, waiting until the first start.
  private var rows: [Row] {
    files.indices.map { Row(id: $0, file: files[$0], runner: queue?.runners[$0]) }
  }

  /// Starts the queue, `jobs` downloads at a time; the last run's downloads leave the group.
  ///
  /// The next download starts as soon as one ends, finished or failed.
  private func start() {
    group.removeEnded()
    group.start(
      files, maxConcurrency: jobs, label: \.name, weight: { Double($0.size) },
      perform: { file, reporter in try await file.download(reporter: reporter) })
    queue = group.queue(of: RemoteFile.self)
  }

  /// `45.2 MB / 137 MB` while a file downloads, its size once it has, or what became of it.
  private func bytes(of row: Row) -> String {
    let size = row.file.size
    switch row.runner?.state ?? .idle {
    case .running(let progress), .paused(let progress):
      return ProgressUnit.bytes.format(completed: progress.completedCount ?? 0, of: size)
    case .finished: return ProgressUnit.bytes.format(size)
    case .failed(let error): return "Failed: \(error)"
    // The queue starts the files in their order: those past the last it started never did.
    case .cancelled where row.id >= queue?.startedCount ?? 0:
      return "Not started, " + ProgressUnit.bytes.format(size)
    case .cancelled: return "Cancelled"
    case .idle: return "Waiting, " + ProgressUnit.bytes.format(size)
    }
  }
}

/// A file to download: its name and size.
///
/// The download is simulated, as in the terminal example.
struct RemoteFile: Sendable {
  let name: String
  /// The size in bytes.
  let size: Int

  /// Downloads the file, reporting the bytes received as they come, a chunk every 25 ms at
  /// 40 MB/s.
  func download(reporter: TaskRunner.Reporter) async throws {
    let chunk = 1_000_000
    var received = 0
    reporter.report(completed: 0, of: size)
    while received < size {
      try await Task.sleep(for: .milliseconds(25))
      received = min(size, received + chunk)
      reporter.report(completed: received, of: size)
    }
  }
}
#endif
