/// One of the `objects` of the AsyncStream pattern's view: something whose `someTask()` takes a
/// while.
struct HeavyObject: Sendable {
  let number: Int
  let duration: Duration
  let fails: Bool

  /// Does the work: waits for `duration` (giving way to cancellation), then fails if told to.
  func someTask() async throws {
    if duration > .zero {
      try await Task.sleep(for: duration)
    }
    if fails {
      throw HeavyTaskError.itemFailed(number)
    }
  }
}

/// Why a heavy task failed.
enum HeavyTaskError: Error, CustomStringConvertible {
  case itemFailed(Int)

  var description: String {
    switch self {
    case .itemFailed(let number): "item \(number) threw an error (as --fail-at asked)"
    }
  }
}
