// The "Perform a Heavy Task" view of the hand-written AsyncStream pattern, on TaskProgress. The
// pattern is described in the article "Migrating from the AsyncStream Pattern", in
// Sources/TaskProgress/TaskProgress.docc/Articles/MigratingFromAsyncStream.md. Compared with it:
// no AsyncStream, no consumer task to cancel, no `defer { continuation.finish() }`, no
// `withAnimation` per value, no trap on an empty collection, no work on the main actor. It also
// shows what the pattern left out: the item under way, the speed and the time left, and a button
// that pauses and resumes the run.
//
// Where SwiftUI does not exist, SwiftUIExampleTests compiles this file against a stand-in for the
// SwiftUI names it uses (SWIFTUI_STAND_IN), so that a change of TaskProgress that breaks it fails
// on Linux too.
#if canImport(SwiftUI) || SWIFTUI_STAND_IN
import Foundation
#if canImport(SwiftUI)
import SwiftUI
#endif
import TaskProgress

struct MyView: View {
  @State private var runner = TaskRunner()
  let objects: [HeavyObject]

  var body: some View {
    VStack(alignment: .leading) {
      HStack {
        Button("Perform a Heavy Task") {
          let count = objects.count
          runner.start { reporter in
            try await reporter.forEach(objects) { object, reporter in
              reporter.report(message: "Processing object \(object.number) of \(count)")
              try await object.someTask()
            }
          }
        }
        .disabled(runner.isActive)  // running or paused
        Button(runner.isPaused ? "Resume" : "Pause") {
          runner.isPaused ? runner.resume() : runner.pause()
        }
        .disabled(!runner.isActive)
      }
      ProgressView(value: runner.displayedProgress)  // animates, as withAnimation did
      Text(status)
      Text(speedAndTimeLeft)
        .monospacedDigit()
        .foregroundStyle(.secondary)
    }
    .alert("The task failed", isPresented: failed) {
      Button("OK") { runner.reset() }  // back to idle; the bar glided to 0 as the run failed
    } message: {
      Text(runner.state.error.map { "\($0)" } ?? "")
    }
  }

  /// The item under way, as the work last reported it, and whether the run is paused.
  private var status: String {
    let message = runner.state.progress?.message ?? ""
    return runner.isPaused ? "Paused. " + message : message
  }

  /// The speed and the time left, such as `24.5 it/s, 0:00:03 left`, once the runner can tell.
  private var speedAndTimeLeft: String {
    var parts: [String] = []
    if let throughput = runner.throughput {
      parts.append(runner.unit.format(throughput: throughput, of: runner.lastProgress))
    }
    if let remaining = runner.estimatedTimeRemaining {
      parts.append(remaining.formatted() + " left")
    }
    return parts.joined(separator: ", ")
  }

  private var failed: Binding<Bool> {
    Binding(get: { runner.phase == .failed }, set: { _ in })
  }
}

/// Something that takes a while, like the `objects` of the hand-written pattern.
struct HeavyObject: Sendable {
  /// The object's place among the objects, from 1, for the status text.
  let number: Int

  func someTask() async throws {
    try await Task.sleep(for: .milliseconds(40))
  }
}
#endif
