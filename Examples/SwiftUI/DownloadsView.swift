// The `downloads` example as a SwiftUI view: a queue of downloads, three at a time, each a
// TaskRunner in one TaskRunnerGroup weighted by size. A row per file shows its bar and its bytes,
// and below the list the group's overall bar and how many downloads are in each phase. One
// button starts the queue, or cancels it: the downloads under way and the ones still waiting.
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
  /// The queue's run, while one is under way.
  @State private var queue: Task<Void, Never>?
  let files: [RemoteFile]
  /// How many files download at a time.
  var jobs = 3

  var body: some View {
    VStack(alignment: .leading) {
      List(group.members) { member in
        VStack(alignment: .leading) {
          Text(member.label)
          ProgressView(value: member.runner.displayedProgress)  // animates
          Text(bytes(of: member))
            .monospacedDigit()
            .foregroundStyle(.secondary)
        }
      }
      ProgressView(value: group.displayedProgress)  // the weighted total: a big file counts more
      Text(group.counts.description)  // "3 running, 5 idle", then "8 finished"
      Button(queue == nil ? "Start" : "Cancel") {
        queue == nil ? start() : cancel()
      }
    }
    .onAppear(perform: addFiles)
  }

  /// Puts every file in the group once, idle, weighted by its size, so that the total counts
  /// the files still waiting.
  private func addFiles() {
    guard group.members.isEmpty else { return }
    for file in files {
      let runner = TaskRunner()
      runner.unit = .bytes
      // A size is a finite number, 0 or more: a valid weight.
      _ = try? group.add(runner, label: file.name, weight: Double(file.size))
    }
  }

  /// Runs the queue: every download back to idle, then `jobs` of them at a time, the next one
  /// starting as soon as one ends, finished or failed.
  private func start() {
    queue = Task {
      for runner in group.runners {
        runner.reset()
      }
      await withTaskGroup(of: Void.self) { lanes in
        for (index, (file, runner)) in zip(files, group.runners).enumerated() {
          if index >= jobs {
            _ = await lanes.next()  // one download ended: the next one starts
          }
          guard !Task.isCancelled else { break }  // cancelled: the waiting ones never start
          lanes.addTask {
            await runner.run { reporter in try await file.download(reporter: reporter) }
          }
        }
      }
      queue = nil
    }
  }

  /// Cancels the downloads under way at once; the waiting ones never start.
  private func cancel() {
    queue?.cancel()
    group.cancelAll()
  }

  /// `45.2 MB / 137 MB` while a file downloads, its size once it has, or what became of it.
  private func bytes(of member: TaskRunnerGroup.Member) -> String {
    let size = Int(member.weight ?? 0)
    switch member.runner.state {
    case .running(let progress), .paused(let progress):
      return ProgressUnit.bytes.format(completed: progress.completedCount ?? 0, of: size)
    case .finished: return ProgressUnit.bytes.format(size)
    case .failed(let error): return "Failed: \(error)"
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
