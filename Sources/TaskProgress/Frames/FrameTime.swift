/// A frame client's times: the time on its ticker's clock since the client was made, never
/// earlier than a time given out before.
///
/// A runner and a group each keep one, so that the times their observers and renderers get
/// (``ProgressUpdate/time``) never go back, even on a clock that does.
@MainActor
struct FrameTime {
  /// The ticker whose clock the times are read from.
  let ticker: FrameTicker
  /// The ticker's time when the client was made: the zero of its times.
  private let origin: Duration
  /// The latest time given out.
  private(set) var latest: Duration = .zero

  /// Starts the times at the ticker's current time.
  init(ticker: FrameTicker) {
    self.ticker = ticker
    self.origin = ticker.now
  }

  /// The time now.
  mutating func now() -> Duration {
    at(ticker.now)
  }

  /// The time of a reading of the ticker's clock, such as a frame's.
  mutating func at(_ tickerTime: Duration) -> Duration {
    latest = max(latest, tickerTime - origin)
    return latest
  }
}
