import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@Suite("Progress line")
struct ProgressLineTests {
  private func render(_ line: ProgressLine, width: Int, unicode: Bool = true) -> String {
    line.rendered(width: width, unicode: unicode, color: false).line
  }

  @Test func eighthBlocksGiveSubCellPrecision() {
    let expected = [
      "▕          ▏", "▕▏         ▏", "▕▎         ▏", "▕▍         ▏", "▕▌         ▏",
      "▕▋         ▏", "▕▊         ▏", "▕▉         ▏", "▕█         ▏",
    ]
    for (eighths, bar) in expected.enumerated() {
      let line = ProgressLine(
        barFraction: Double(eighths) / 80, percentFraction: Double(eighths) / 80)
      #expect(render(line, width: 18).hasPrefix(bar), "\(eighths) eighths")
    }
    #expect(
      render(ProgressLine(barFraction: 1, percentFraction: 1), width: 18) == "▕██████████▏ 100%")
    #expect(
      render(ProgressLine(barFraction: 0.999, percentFraction: 0.999), width: 18)
        == "▕█████████▉▏  99%")
  }

  @Test func theASCIIBarShowsAHeadPastHalfACell() {
    #expect(
      render(ProgressLine(barFraction: 0.04, percentFraction: 0.04), width: 18, unicode: false)
        == "[          ]   4%")
    #expect(
      render(ProgressLine(barFraction: 0.05, percentFraction: 0.05), width: 18, unicode: false)
        == "[>         ]   5%")
    #expect(
      render(ProgressLine(barFraction: 0.5, percentFraction: 0.5), width: 18, unicode: false)
        == "[#####     ]  50%")
    #expect(
      render(ProgressLine(barFraction: 1, percentFraction: 1), width: 18, unicode: false)
        == "[##########] 100%")
  }

  @Test func thePercentageIsRoundedDownAndReaches100OnlyAtTheEnd() {
    #expect(TerminalFormat.percent(0.999_99) == "99")
    #expect(TerminalFormat.percent(0.5) == "50")
    #expect(TerminalFormat.percent(1) == "100")
    #expect(TerminalFormat.percent(-1) == "0")
  }

  @Test func thePercentageOfAFractionOfCountsIsTheCountsOne() {
    // 29.0 / 100 * 100 is 28.999…: a plain truncation would show 28%.
    let line = ProgressLine(barFraction: 0.29, percentFraction: 29.0 / 100)
    #expect(render(line, width: 18, unicode: false) == "[##>       ]  29%")
    let fiftySeven = ProgressLine(barFraction: 0.57, percentFraction: 57.0 / 100)
    #expect(render(fiftySeven, width: 18, unicode: false) == "[#####>    ]  57%")
  }

  @Test func countsGiveThePercentageWhenTheLineHasThem() {
    // Counts win over a fraction that says otherwise: the percentage agrees with what is shown.
    var line = ProgressLine(barFraction: 0.3, percentFraction: 0.3)
    line.percentCounts = .init(completed: 29, total: 100)
    #expect(render(line, width: 18, unicode: false) == "[###       ]  29%")
    line.percentCounts = .init(completed: (1 << 40) - 1, total: 1 << 40)
    line.percentFraction = 1
    #expect(render(line, width: 18, unicode: false).hasSuffix("  99%"))
    line.percentCounts = .init(completed: 0, total: 0)
    line.percentFraction = nil
    #expect(render(line, width: 18, unicode: false).hasSuffix(" 100%"))
  }

  @Test func partsGiveWayInOrderRateETACountsLabel() {
    var line = ProgressLine(
      label: "Importing", barFraction: 0.5, percentFraction: 0.5, counts: "50/100")
    line.rate = "12.0 it/s"
    line.eta = "ETA 0:04"
    line.reserved = .forRun(total: 100, determinate: true)
    let widths = [80, 55, 45, 30, 24]
    let rendered = widths.map { render(line, width: $0) }
    #expect(rendered[0].contains("12.0 it/s") && rendered[0].contains("ETA 0:04"))
    #expect(!rendered[1].contains("it/s") && rendered[1].contains("ETA"))
    #expect(!rendered[2].contains("ETA") && rendered[2].contains("50/100"))
    #expect(!rendered[3].contains("50/100") && rendered[3].hasPrefix("Importing"))
    #expect(!rendered[4].contains("Importing"))
    for (width, text) in zip(widths, rendered) {
      #expect(text.count <= width - 1)
    }
  }

  @Test func theBarKeepsItsWidthWhetherOrNotTheReservedPartsAreThere() {
    var early = ProgressLine(
      label: "Task", barFraction: 0.1, percentFraction: 0.1, counts: "10/100")
    early.reserved = .forRun(total: 100, determinate: true)
    var late = early
    late.rate = "9.9 it/s"
    late.eta = "ETA 0:09"
    let earlyText = render(early, width: 80)
    let lateText = render(late, width: 80)
    #expect(
      earlyText.firstIndex(of: "%").map { earlyText.distance(from: earlyText.startIndex, to: $0) }
        == lateText.firstIndex(of: "%").map { lateText.distance(from: lateText.startIndex, to: $0) }
    )
  }

  @Test func aStatusThatDoesNotFitGoesOnALineOfItsOwnAndKeepsTheBar() {
    var line = ProgressLine(label: "Task", barFraction: 0.4, percentFraction: 0.4, counts: "4/10")
    line.reserved = .forRun(total: 10, determinate: true)
    line.status = .failure("failed after 1.0s: the server closed the connection unexpectedly")
    let (text, overflow) = line.rendered(width: 60, unicode: true, color: false)
    #expect(overflow == "failed after 1.0s: the server closed the connection unexpectedly")
    #expect(text.hasSuffix("  40%  4/10"))
    line.status = .failure("failed: timeout")
    let (fitting, none) = line.rendered(width: 60, unicode: true, color: false)
    #expect(none == nil)
    #expect(fitting.hasSuffix("4/10  failed: timeout"))
  }

  @Test func aWideLabelTakesTheColumnsItReallyTakes() {
    let line = ProgressLine(label: "重いタスク", barFraction: 0.5, percentFraction: 0.5)
    let text = render(line, width: 40)
    #expect(TerminalFormat.columns(text) == 39)
    #expect(text.hasPrefix("重いタスク ▕"))
  }

  @Test func theEndOfAFractionOnlyRunFitsAfterItsBar() {
    var line = ProgressLine(label: "Task", barFraction: 1, percentFraction: 1)
    line.reserved = .forRun(total: nil, determinate: true)
    line.status = .success("done in 59.9s")
    let (text, overflow) = line.rendered(width: 60, unicode: true, color: false)
    #expect(overflow == nil)
    #expect(text.hasSuffix(" 100%  done in 59.9s"))
  }

  @Test func anIndeterminateBarIsABlockThatMoves() {
    let positions = [0.0, 0.5, 1.0].map {
      render(ProgressLine(indeterminatePosition: $0), width: 23)
    }
    #expect(
      positions == ["▕█████               ▏", "▕        █████       ▏", "▕               █████▏"])
    #expect(
      render(ProgressLine(indeterminatePosition: 0.5), width: 23, unicode: false)
        == "[        =====       ]")
  }

  @Test func aTinyWidthNeverTrapsAndKeepsABar() {
    for width in [-5, 0, 1, 2, 5, 9] {
      var line = ProgressLine(
        label: "Label", barFraction: 0.3, percentFraction: 0.3, counts: "3/10")
      line.status = .note("cancelled after 2.0s")
      let (text, _) = line.rendered(width: width, unicode: true, color: false)
      #expect(text.hasPrefix("▕"))
    }
  }
}
