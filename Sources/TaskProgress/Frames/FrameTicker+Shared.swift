extension FrameTicker {
  private struct WeakTicker {
    weak var ticker: FrameTicker?
  }

  /// The ticker of the system's continuous clock, shared by every runner on it.
  private static let continuous = FrameTicker(
    timer: MainQueueFrameTimer(clock: ContinuousClock()), lastsForever: true)
  /// The ticker of the suspending clock, shared by every runner on it.
  private static let suspending = FrameTicker(
    timer: MainQueueFrameTimer(clock: SuspendingClock()), lastsForever: true)
  /// The tickers of clocks that are objects, such as a ``ManualClock``, by the clock's identity.
  private static var byClock: [ObjectIdentifier: WeakTicker] = [:]

  /// The ticker shared by every runner on `clock`.
  ///
  /// Clocks that are objects share a ticker per instance; the standard library's clocks share one
  /// per kind. Any other clock that is a value gets a ticker of its own, since two values of one
  /// type need not be the same clock.
  static func shared(for clock: some Clock<Duration>) -> FrameTicker {
    if clock is ContinuousClock {
      return continuous
    }
    if clock is SuspendingClock {
      return suspending
    }
    guard type(of: clock) is AnyObject.Type else {
      return FrameTicker(timer: SleepingFrameTimer(clock: clock))
    }
    let key = ObjectIdentifier(clock as AnyObject)
    if let ticker = byClock[key]?.ticker {
      return ticker
    }
    byClock = byClock.filter { $0.value.ticker != nil }
    let timer: any FrameTimer =
      if let manual = clock as? ManualClock {
        ManualFrameTimer(clock: manual)
      } else {
        SleepingFrameTimer(clock: clock)
      }
    let ticker = FrameTicker(timer: timer)
    byClock[key] = WeakTicker(ticker: ticker)
    return ticker
  }
}
