import Synchronization

/// How many times a frame timer on the system clock has fired in this process.
private let systemFrameWakeUpCount = Atomic<Int>(0)

extension TaskRunner {
  /// How many times the frame timer of runners on the system clock has woken up since the process
  /// started: one wake-up serves every runner on that clock.
  ///
  /// For benchmarks that compare the cost of many runners with hand-written tasks.
  @_spi(Benchmarks)
  public nonisolated static var systemFrameWakeUps: Int {
    systemFrameWakeUpCount.load(ordering: .relaxed)
  }

  /// Counts one wake-up of the system clock's frame timer.
  nonisolated static func countSystemFrameWakeUp() {
    systemFrameWakeUpCount.add(1, ordering: .relaxed)
  }
}
