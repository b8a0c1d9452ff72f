import TaskProgress
import TaskProgressAdapters

/// The case about drawing a group: what a `TerminalGroupRenderer` costs per frame it draws.
extension Measure {
  /// The runners whose bars (q) draws.
  nonisolated static let drawnBars = 50

  /// (q) A `TerminalGroupRenderer` drawing the bars of 50 running runners and the total, on an
  /// in-memory interactive terminal of 120 × 40.
  ///
  /// The runners count bytes, each with a message of its own, and are in one group on a
  /// `ManualClock`; before each frame every runner reports a new count, and every 30 frames a
  /// new message, so that every bar changes. A frame is `clock.advance(by:)` one update interval
  /// on the main actor. The renderer's work is timed call by call through a renderer that
  /// forwards the group's events to it: the runners' updates it takes in, and the `.frame` event
  /// on which it fits the lines into the rows, builds the text and writes it. The renderer draws
  /// at most 20 times per second, so that some frames write nothing; a drawn frame is one with a
  /// write. Measures `drawnFrames` drawn frames after a warm-up of 20 frames: the renderer's
  /// time in each (`draw`), the whole wake-up (`wakeUp`), the bytes and writes it made, and the
  /// renderer's time in the frames that drew nothing (`quietFrame`).
  static func groupRendering(drawnFrames: Int) async -> Metrics {
    let clock = ManualClock()
    let group = TaskRunnerGroup(unit: .bytes, updateInterval: updateInterval, clock: clock)
    let runs = await HeldRuns(count: drawnBars, clock: clock, total: 2_000_000_000) { runner in
      runner.unit = .bytes
      group.add(runner, label: "IMG_\(4000 + group.members.count).mov")
    }
    let terminal = CountingTerminal(columns: 120, rows: 40)
    let renderer = TimedGroupRenderer(
      TerminalGroupRenderer(output: terminal, restoresTerminalOnSignals: false))
    group.attach(renderer)

    var (draws, wakeUps, quiet) = ([Double](), [Double](), [Double]())
    var (bytes, writes) = ([Double](), [Double]())
    var frame = -20
    // A bound, should the renderer draw far less often than it says.
    let frameLimit = 40 * drawnFrames
    while draws.count < drawnFrames, frame < frameLimit {
      frame += 1
      if frame % 30 == 0 || frame == -19 {
        for (index, reporter) in runs.reporters.enumerated() {
          reporter.report(message: "Uploading part \(frame / 30 + 1) of IMG_\(4000 + index).mov")
        }
      }
      runs.reportStep(frame + 21)
      let (writesBefore, bytesBefore) = (terminal.writes, terminal.bytes)
      renderer.elapsed = 0
      let start = nowNanoseconds()
      clock.advance(by: updateInterval)
      let wakeUp = Double(nowNanoseconds() - start)
      guard frame > 0 else { continue }
      let written = terminal.writes - writesBefore
      if written > 0 {
        draws.append(Double(renderer.elapsed))
        wakeUps.append(wakeUp)
        writes.append(Double(written))
        bytes.append(Double(terminal.bytes - bytesBefore))
      } else {
        quiet.append(Double(renderer.elapsed))
      }
    }
    let lines = terminal.lastWrite.count { $0 == "\n" }
    let finished = await runs.release()

    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    draws.sort()
    guard !draws.isEmpty else { return ["finished": 0] }
    return [
      "bars": Double(drawnBars), "draw": draws[draws.count / 2],
      "drawP90": draws[draws.count * 9 / 10], "drawMax": draws[draws.count - 1],
      "wakeUp": median(wakeUps), "quietFrame": quiet.isEmpty ? 0 : median(quiet),
      "bytes": median(bytes), "writes": median(writes), "lines": Double(lines),
      "framesPerDraw": Double(frame) / Double(draws.count),
      "finished": finished && draws.count == drawnFrames ? 1 : 0,
    ]
  }
}

/// An interactive UTF-8 colour terminal in memory that counts what it is given and keeps the
/// last write.
@MainActor
final class CountingTerminal: TerminalOutput {
  /// A terminal that understands everything a renderer may write.
  let capabilities = TerminalCapabilities(
    redrawing: .anyRows, supportsUnicode: true, supportsColor: true)
  /// The width.
  let columns: Int
  /// The height.
  let rows: Int?
  /// The writes so far.
  private(set) var writes = 0
  /// The bytes written so far, in UTF-8.
  private(set) var bytes = 0
  /// The text of the last write.
  private(set) var lastWrite = ""

  /// A terminal of `columns` × `rows`.
  init(columns: Int, rows: Int) {
    self.columns = columns
    self.rows = rows
  }

  /// Counts the text, and keeps it.
  func write(_ text: String) {
    writes += 1
    bytes += text.utf8.count
    lastWrite = text
  }
}

/// A renderer that hands every event to another one and adds up the time its calls take.
@MainActor
final class TimedGroupRenderer: GroupRenderer {
  private let renderer: any GroupRenderer
  /// The time the renderer's calls took since this was last set to 0, in nanoseconds.
  var elapsed: Int64 = 0

  /// Times `renderer`.
  init(_ renderer: any GroupRenderer) {
    self.renderer = renderer
  }

  /// Hands the event on, timed.
  func render(_ event: TaskRunnerGroup.Event) {
    let start = nowNanoseconds()
    renderer.render(event)
    elapsed += nowNanoseconds() - start
  }

  /// Hands the detach on.
  func didDetach() {
    renderer.didDetach()
  }
}

extension Report {
  /// The target of (q): 50 bars drawn in under a millisecond.
  var barsTargets: [Target] {
    [
      Target(
        "(q) TerminalGroupRenderer draws \(Measure.drawnBars) bars and the total in under 1 ms "
          + "per drawn frame (median of the renderer's time in the frames it wrote)",
        [("draw", median(.bars, 0, "draw"))], { $0 < 1e6 }, Format.microseconds)
    ]
  }

  /// The medians of (q).
  var barsDetails: [String] {
    let keys = [
      "bars", "draw", "drawP90", "drawMax", "quietFrame", "wakeUp", "bytes", "writes", "lines",
      "framesPerDraw",
    ]
    return detailLine(
      .bars, keys, times: ["draw", "drawP90", "drawMax", "quietFrame", "wakeUp"],
      in: Format.microseconds, ratios: ["framesPerDraw"])
  }

  /// What the medians of (q) are, when it ran.
  var barsNote: [String] {
    guard median(.bars, 0, "draw") != nil else { return [] }
    return [
      """
      (q) draw: the TerminalGroupRenderer's time, all its calls added up, in a frame in which \
      it wrote: the runners' updates it took in, then fitting the bars into the rows, building \
      the text and writing it; median, 90th percentile and worst of 200 drawn frames (50 with \
      --quick). quietFrame: its time in a frame in which it wrote nothing (it draws at most 20 \
      times per second). wakeUp: the whole ManualClock.advance(by:) of a drawn frame, the 50 \
      runners' frames and the group's pass included. bytes, writes: per drawn frame; lines: \
      the line breaks of the last write; framesPerDraw: frames per drawn frame.
      """
    ]
  }
}
