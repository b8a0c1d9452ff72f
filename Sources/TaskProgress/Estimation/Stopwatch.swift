/// The time something has been running, stopped and started again at will, on its owner's
/// clock: a run's active time, its pauses left out, or the time some run of a group was running.
struct Stopwatch: Hashable, Sendable {
  /// The time run before the current stretch.
  private var before: Duration = .zero
  /// When the current stretch began, while running.
  private var since: Duration?

  /// A stopwatch that has not run yet.
  init() {}

  /// A stopwatch running from `now`.
  init(startedAt now: Duration) {
    since = now
  }

  /// Whether the stopwatch is running.
  var isRunning: Bool {
    since != nil
  }

  /// The time run up to `now`: every stretch so far, the current one until `now`.
  func elapsed(at now: Duration) -> Duration {
    before + (since.map { max(now - $0, .zero) } ?? .zero)
  }

  /// Starts a stretch at `now`, unless running.
  mutating func start(at now: Duration) {
    if since == nil {
      since = now
    }
  }

  /// Ends the current stretch at `now`, if running; a time before the stretch began counts as
  /// its start.
  mutating func stop(at now: Duration) {
    guard let start = since else { return }
    before += max(now - start, .zero)
    since = nil
  }
}
