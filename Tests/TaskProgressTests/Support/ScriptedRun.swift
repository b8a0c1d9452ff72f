import TaskProgress

/// A run on a manual clock that reports `completed` counts one step at a time, advancing the clock
/// by `step` after each report, and optionally throws after `failAfter` steps.
@MainActor
struct ScriptedRun {
  var counts: [Int] = [5, 10, 20, 30, 45, 50]
  var total = 50
  var step: Duration = .milliseconds(200)
  var failAfter: Int?
  var error: any Error = TestError(message: "disk full")
  var animation: ProgressAnimation = .linear

  /// Runs the script against `renderer` and returns when the run is over.
  func play(into renderer: some ProgressRenderer) async {
    let harness = Harness(animation: animation)
    let token = harness.runner.attach(renderer)
    let reached = counts.map { _ in Latch() }
    let proceed = counts.map { _ in Latch() }
    let (counts, total, failAfter, error) = (self.counts, self.total, self.failAfter, self.error)
    harness.runner.start { reporter in
      for (index, count) in counts.enumerated() {
        if index == failAfter { throw error }
        reporter.report(completed: count, of: total)
        reached[index].open()
        await proceed[index].wait()
      }
    }
    for index in counts.indices {
      if index == failAfter { break }
      await reached[index].wait()
      harness.clock.advance(by: step)
      proceed[index].open()
    }
    await harness.recorder.waitForTerminalState()
    token.cancel()
  }
}
