import Synchronization
import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

/// The counts a terminal bar shows beside its percentage agree with the bar: children under way
/// count by their share, and bytes counted apart from the units show in place of the units.
@MainActor
@Suite("Counts beside the bar", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct CountsBesideTheBarTests {
  /// The reporters a scripted operation keeps between its steps.
  final class Reporters: Sendable {
    let all = Mutex<[String: TaskRunner.Reporter]>([:])

    subscript(name: String) -> TaskRunner.Reporter {
      get { all.withLock { $0[name]! } }
      set { all.withLock { $0[name] = newValue } }
    }
  }

  typealias Step = @Sendable (TaskRunner.Reporter, Reporters) -> Void

  /// Runs `steps` one at a time in the runner's operation, calling `afterEach` after each has
  /// been drawn (a frame and a redraw interval later).
  private func play(
    _ harness: Harness, _ steps: [Step], afterEach: (Int) -> Void
  ) async {
    let reached = steps.map { _ in Latch() }
    let proceed = steps.map { _ in Latch() }
    let reporters = Reporters()
    harness.runner.start { reporter in
      for (index, step) in steps.enumerated() {
        await proceed[index].wait()
        step(reporter, reporters)
        reached[index].open()
      }
      await Latch().wait()
    }
    for index in steps.indices {
      proceed[index].open()
      await reached[index].wait(for: "step \(index) of the scripted run")
      harness.clock.advance(by: .milliseconds(100))
      afterEach(index)
    }
  }

  /// The `completed/total` pair of a line, such as `37/100`.
  private func counts(in line: String) -> (completed: Int, total: Int)? {
    for word in line.split(separator: " ") {
      let parts = word.split(separator: "/")
      if parts.count == 2, let completed = Int(parts[0]), let total = Int(parts[1]) {
        return (completed, total)
      }
    }
    return nil
  }

  /// A scan worth 10 of 100 units and hashing worth 90, three files of 30 units each under way
  /// at once: every frame's counts are within one unit of `fraction × total`.
  @Test func aStagedRunsCountsAreWithinOneUnitOfTheFractionAtEveryFrame() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 100)
    let token = harness.runner.attach(TerminalRenderer(label: "Hash", output: terminal))
    var steps: [Step] = [
      { root, kept in
        root.report(totalCount: 100)
        kept["scan"] = root.subprogress(assigningCount: 10).start(totalCount: 4)
      }
    ]
    for _ in 0..<4 {
      steps.append { _, kept in kept["scan"].complete(count: 1) }
    }
    steps.append { root, kept in
      let hashing = root.subprogress(assigningCount: 90).start(totalCount: 3)
      kept["hashing"] = hashing
      for file in 0..<3 {
        kept["file \(file)"] = hashing.subprogress(assigningCount: 1).start(totalCount: 7)
      }
    }
    for chunk in 0..<7 {
      for file in 0..<3 where chunk < 5 + file {
        steps.append { _, kept in kept["file \(file)"].complete(count: chunk == 4 + file ? 7 : 1) }
      }
    }
    var checked = 0
    await play(harness, steps) { index in
      guard let fraction = harness.runner.state.fractionCompleted,
        let line = terminal.redraws.last, let shown = counts(in: line)
      else {
        Issue.record("step \(index): no counts beside the bar in \(terminal.redraws.last ?? "")")
        return
      }
      #expect(shown.total == 100)
      #expect(
        abs(Double(shown.completed) - fraction * 100) <= 1,
        "step \(index): \(line) for a fraction of \(fraction)")
      // The percentage, rounded down, is the count's: both are the fraction's.
      #expect(
        line.contains("\(Int((fraction * 100 + 1e-9).rounded(.down)))%  \(shown.completed)/100"))
      checked += 1
    }
    #expect(checked == steps.count)
    // Children under way took the fraction well beyond the units done, and the counts followed.
    #expect(terminal.redraws.contains { $0.contains("%  10/100") })
    #expect(terminal.redraws.contains { $0.contains("%  40/100") })
    harness.runner.cancel()
    token.cancel()
  }

  /// A run whose stages weight the fraction 10 and 90 counts its bytes apart: the bar shows the
  /// bytes done of the bytes in all and a rate in bytes per second.
  @Test func bytesCountedApartFromTheStagesShowBesideTheBar() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 100)
    let token = harness.runner.attach(TerminalRenderer(label: "Hash", output: terminal))
    let fileSize = 350_000_000
    var steps: [Step] = [
      { root, kept in
        root.report(totalCount: 100)
        let scan = root.subprogress(assigningCount: 10).start(totalCount: 3)
        for _ in 0..<3 {
          root.expect(bytes: fileSize)
          scan.complete(count: 1)
        }
        kept["hashing"] = root.subprogress(assigningCount: 90).start(totalCount: 3)
      }
    ]
    for file in 0..<3 {
      steps.append { _, kept in
        kept["file"] = kept["hashing"].subprogress(assigningCount: 1).start(totalCount: fileSize)
        _ = file
      }
      for _ in 0..<7 {
        steps.append { _, kept in
          kept["file"].complete(count: 50_000_000)
          kept["file"].complete(bytes: 50_000_000)
        }
      }
    }
    var bytesLines: [String] = []
    await play(harness, steps) { _ in
      harness.clock.advance(by: .milliseconds(900))  // a second a step: 50 MB/s
      if let line = terminal.redraws.last { bytesLines.append(line) }
    }
    let last = harness.runner.state.progress
    #expect(last?.completedByteCount == 1_050_000_000)
    #expect(last?.totalByteCount == 1_050_000_000)
    #expect(bytesLines.first?.contains("10%  0 B / 1.1 GB") == true, "\(bytesLines.first ?? "")")
    // 50 MB a second while a file is hashed, none while the next one starts: about 45 MB/s.
    #expect(
      bytesLines.contains { $0.contains("40%  350 MB / 1.1 GB  4") && $0.contains(" MB/s  ETA") },
      "\(bytesLines)")
    #expect(bytesLines.last?.contains("100%  1.1 GB / 1.1 GB") == true, "\(bytesLines.last ?? "")")
    harness.runner.cancel()
    token.cancel()
  }

  /// A run that expects its bytes, then completes units in a first stage, shows its bytes beside
  /// the bar and its rate in units: only its units move.
  @Test func aRunThatExpectsBytesAndCompletesUnitsShowsItsRateInUnits() async {
    let harness = Harness(animation: .instant)
    let terminal = MemoryTerminal(columns: 100)
    let token = harness.runner.attach(TerminalRenderer(label: "Hash", output: terminal))
    var steps: [Step] = [
      { root, _ in
        root.report(totalCount: 1_000)
        root.expect(bytes: 1_050_000_000)
      }
    ]
    for _ in 0..<6 {
      steps.append { root, _ in root.complete(count: 38) }
    }
    var lines: [String] = []
    await play(harness, steps) { _ in
      harness.clock.advance(by: .milliseconds(900))  // a second a step: 38 units a second
      if let line = terminal.redraws.last { lines.append(line) }
    }
    // Everything after the bar: the counts stay bytes, the rate nears 38 units a second.
    #expect(
      lines.map { String($0.split(separator: "▏").last ?? "") } == [
        "   0%  0 B / 1.1 GB", "   3%  0 B / 1.1 GB", "   7%  0 B / 1.1 GB",
        "  11%  0 B / 1.1 GB  34.2 it/s  ETA 0:26", "  15%  0 B / 1.1 GB  35.2 it/s  ETA 0:25",
        "  19%  0 B / 1.1 GB  35.8 it/s  ETA 0:23", "  22%  0 B / 1.1 GB  36.1 it/s  ETA 0:22",
      ])
    harness.runner.cancel()
    token.cancel()
  }
}
