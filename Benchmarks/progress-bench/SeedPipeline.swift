/// The seed's view, minus SwiftUI: the blog's `MyView` with its `performTask()` as written, and
/// the `@State private var progress` it draws.
///
/// Like a SwiftUI view, it is isolated to the main actor, so the worker `Task { ... }` that
/// `performTask()` creates inherits the main actor, as it does in the blog. The only additions
/// are the measurements: a delivery count, the instant the bar shows 100 %, and the instant of
/// the last `yield`.
@MainActor
final class SeedView {
  /// The value the progress view draws, in `0...1`.
  private(set) var progress: Float = 0
  /// How many main-actor tasks have stored a value into ``progress``.
  private(set) var deliveries = 0
  /// How many deliveries had run when the bar first showed 100 %.
  private(set) var deliveriesWhenFull = 0
  /// When the bar first showed 100 %, as ``nowNanoseconds()`` measures it.
  private(set) var fullAt: Int64?
  /// When the worker yielded its last value.
  private(set) var lastYieldAt: Int64?
  private var waitingForFull: CheckedContinuation<Void, Never>?

  /// The blog's `performTask()` with no-op objects, and `withAnimation` left out.
  ///
  /// - Returns: The detached consumer task, the blog's `progressReportingTask`.
  func performTask(totalObjectCount: Int) -> Task<Void, Never> {
    let (stream, continuation) = AsyncStream<Float>.makeStream()

    let progressReportingTask = Task.detached {  // point 1
      for await progress in stream {
        Task { @MainActor in
          self.progress = progress  // withAnimation { self.progress = progress }
          self.deliveries += 1
          self.noteFullBar()
        }
      }
    }

    Task {
      defer { continuation.finish() }  // point 2
      for index in 1...totalObjectCount {
        await noOp()  // try await object.someTask()
        continuation.yield(Float(index) / Float(totalObjectCount))  // point 3
      }
      self.lastYieldAt = nowNanoseconds()
    }

    return progressReportingTask
  }

  /// Suspends until the bar shows 100 %.
  func waitUntilFull() async {
    guard fullAt == nil else { return }
    await withCheckedContinuation { waitingForFull = $0 }
  }

  private func noteFullBar() {
    guard progress == 1, fullAt == nil else { return }
    fullAt = nowNanoseconds()
    deliveriesWhenFull = deliveries
    waitingForFull?.resume()
    waitingForFull = nil
  }
}
