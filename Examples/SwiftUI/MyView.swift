// The "Perform a Heavy Task" view of the hand-written AsyncStream pattern, on TaskProgress. The
// pattern is described in the article "Migrating from the AsyncStream Pattern", in
// Sources/TaskProgress/TaskProgress.docc/Articles/MigratingFromAsyncStream.md. Compared with it:
// no AsyncStream, no consumer task to cancel, no `defer { continuation.finish() }`, no
// `withAnimation` per value, no trap on an empty collection, no work on the main actor.
#if canImport(SwiftUI)
import SwiftUI
import TaskProgress

struct MyView: View {
  @State private var runner = TaskRunner()
  let objects: [HeavyObject]

  var body: some View {
    Button("Perform a Heavy Task") {
      runner.start(over: objects) { object in
        try await object.someTask()
      }
    }
    .disabled(runner.isRunning)
    ProgressView(value: runner.displayedProgress)  // animates, as withAnimation did
      .alert("The task failed", isPresented: failed) {
        Button("OK") { runner.reset() }  // back to idle; the bar glided to 0 as the run failed
      } message: {
        Text(runner.state.error.map { "\($0)" } ?? "")
      }
  }

  private var failed: Binding<Bool> {
    Binding(get: { runner.state.phase == .failed }, set: { _ in })
  }
}

/// Something that takes a while, like the `objects` of the hand-written pattern.
struct HeavyObject: Sendable {
  func someTask() async throws {
    try await Task.sleep(for: .milliseconds(40))
  }
}
#endif
