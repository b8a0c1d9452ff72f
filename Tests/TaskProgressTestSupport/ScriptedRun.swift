package import TaskProgress
import Testing

/// A run on a manual clock that reports `completed` counts one step at a time, advancing the clock
/// by `step` after each report, and optionally throws after `failAfter` steps.
@MainActor
package struct ScriptedRun {
  package var counts: [Int] = [5, 10, 20, 30, 45, 50]
  package var total = 50
  package var step: Duration = .milliseconds(200)
  package var failAfter: Int?
  package var error: any Error = TestError(message: "disk full")
  package var animation = ProgressAnimation(curve: .linear)

  /// Creates the default script: counts 5, 10, 20, 30, 45 and 50 of 50, 200 ms apart.
  package init() {}

  /// Runs the script against `renderer` and returns when the run is over.
  package func play(into renderer: some ProgressRenderer) async {
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
      await reached[index].wait(for: "the run to report \(counts[index]) of \(total)")
      harness.clock.advance(by: step)
      proceed[index].open()
    }
    await harness.waitForEnd()
    token.cancel()
  }
}
