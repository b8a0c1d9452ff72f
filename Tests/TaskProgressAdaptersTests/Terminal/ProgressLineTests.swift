import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@Suite("Progress line")
struct ProgressLineTests {
  private func render(_ line: ProgressLine, width: Int, unicode: Bool = true) -> String {
    fit(line, width: width, unicode: unicode).line
  }

  /// `line` fitted to a terminal `width` wide, as the one-bar renderer fits it.
  private func fit(
    _ line: ProgressLine, width: Int, unicode: Bool = true, color: Bool = false
  ) -> (line: String, overflow: String?) {
    let capabilities = TerminalCapabilities(
      redrawing: .anyRows, supportsUnicode: unicode, supportsColor: color)
    return line.fitted(columns: width, capabilities: capabilities, longStatus: .whole)
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
    line.reserved = .forRun(RunProgress(completed: 0, of: 100), unit: .items)
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
    early.reserved = .forRun(RunProgress(completed: 0, of: 100), unit: .items)
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
    line.reserved = .forRun(RunProgress(completed: 0, of: 10), unit: .items)
    line.status = .failure("failed after 1.0s: the server closed the connection unexpectedly")
    let (text, overflow) = fit(line, width: 60)
    #expect(overflow == "failed after 1.0s: the server closed the connection unexpectedly")
    #expect(text.hasSuffix("  40%  4/10"))
    line.status = .failure("failed: timeout")
    let (fitting, none) = fit(line, width: 60)
    #expect(none == nil)
    #expect(fitting.hasSuffix("4/10  failed: timeout"))
  }

  @Test func theColumnsALayoutAddsUpAreTheColumnsOfItsLine() {
    // Texts of every kind a part may hold: ASCII, wide, emoji asked for with U+FE0F, and texts
    // that begin with a mark, which joins the space before it into one character.
    let texts = [
      "a.jpg", "写真.jpg", "⭐️ star", "\u{301}accent", "\u{FE0F}selector", "\u{200D}joiner",
      "\u{0903}mark", "ok\u{0600}", "",
    ]
    let statuses: [ProgressLine.Status?] = [
      nil, .success("done"), .failure("\u{301}failed: timeout"), .note("⭐️ cancelled"),
      .failure(String(repeating: "long failure ", count: 8)),
    ]
    var added = 0
    for text in texts {
      for status in statuses {
        for width in [12, 40, 80] {
          var line = ProgressLine(
            label: text, barFraction: 0.4, percentFraction: 0.4, counts: text + "4/10")
          line.rate = text.isEmpty ? nil : text + " it/s"
          line.message = text.isEmpty ? nil : text + " message"
          line.status = status
          let layout = line.laidOut(width: width, unicode: true)
          let plain = layout.joined(color: false)
          let measured = TerminalFormat.columns(plain.line)
          if let columns = layout.columns {
            added += 1
            #expect(columns == measured, "\(text.debugDescription), \(width): \(plain.line)")
          }
          #expect(layout.statusColumns == status.map { TerminalFormat.columns($0.text) } ?? 0)
        }
      }
    }
    // Most lines are added up; those whose parts begin with a mark are measured.
    #expect(added > texts.count * statuses.count * 3 / 2)
  }

  @Test func colourChangesOnlyTheStatusOfOneLayout() {
    var line = ProgressLine(label: "Task", barFraction: 0.4, percentFraction: 0.4, counts: "4/10")
    line.reserved = .forRun(RunProgress(completed: 0, of: 10), unit: .items)
    let statuses: [ProgressLine.Status] = [
      .success("done in 1.0s"), .failure("failed: timeout"), .note("cancelled"),
      .failure("failed after 1.0s: the server closed the connection unexpectedly"),
    ]
    for status in statuses {
      line.status = status
      let layout = line.laidOut(width: 60, unicode: true)
      let plain = fit(line, width: 60)
      let colored = fit(line, width: 60, color: true)
      #expect(layout.joined(color: false) == plain)
      #expect(layout.joined(color: true) == colored)
      // The escapes wrap the status alone: without them, the coloured line is the plain one.
      let escapes = ["\u{1B}[32m", "\u{1B}[31m", "\u{1B}[0m"]
      let stripped = { (text: String) in
        escapes.reduce(text) { $0.replacing($1, with: "") }
      }
      #expect(stripped(colored.line) == plain.line)
      #expect(colored.overflow.map(stripped) == plain.overflow)
    }
  }

  @Test func aWideLabelTakesTheColumnsItReallyTakes() {
    let line = ProgressLine(label: "重いタスク", barFraction: 0.5, percentFraction: 0.5)
    let text = render(line, width: 40)
    #expect(TerminalFormat.columns(text) == 39)
    #expect(text.hasPrefix("重いタスク ▕"))
  }

  @Test func theEndOfAFractionOnlyRunFitsAfterItsBar() {
    var line = ProgressLine(label: "Task", barFraction: 1, percentFraction: 1)
    line.reserved = .forRun(RunProgress(fractionCompleted: 1), unit: .items)
    line.status = .success("done in 59.9s")
    let (text, overflow) = fit(line, width: 60)
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
      let (text, _) = line.laidOut(width: width, unicode: true).joined(color: false)
      #expect(text.hasPrefix("▕"))
    }
  }

  // MARK: - Messages, units and pauses

  /// The heavy task half way: 26 of 50 items at 24.8 per second, with a message.
  private func heavyTask(message: String?) -> ProgressLine {
    var line = ProgressLine(
      label: "Heavy task", barFraction: 0.52, percentFraction: 0.52, counts: "26/50")
    line.percentCounts = .init(completed: 26, total: 50)
    line.rate = "24.8 it/s"
    line.eta = "ETA 0:01"
    line.message = message
    line.reserved = .forRun(RunProgress(completed: 26, of: 50), unit: .items)
    line.reserved.message = true
    return line
  }

  @Test func theMessageComesLastAfterTheRateAndTheETA() {
    let text = render(heavyTask(message: "Hashing IMG_0042.jpg"), width: 80)
    #expect(
      text == "Heavy task ▕█████▏    ▏  52%  26/50  24.8 it/s  ETA 0:01  Hashing IMG_0042.jpg")
    #expect(TerminalFormat.columns(text) <= 79)
  }

  @Test func theMessageShrinksFirstThenThePartsGoAsBefore() {
    let message = "Hashing IMG_0042.jpg, the forty-second photo of the holiday in Kyoto"
    let widths = [200, 80, 70, 64, 60, 40, 30, 20]
    let rendered = widths.map { render(heavyTask(message: message), width: $0) }
    #expect(rendered[0].hasSuffix("  24.8 it/s  ETA 0:01  " + message))
    #expect(rendered[1].hasSuffix("  24.8 it/s  ETA 0:01  Hashing IMG_0042.jpg…"))
    #expect(rendered[2].hasSuffix("  24.8 it/s  ETA 0:01  Hashing IM…"))
    // The message is gone before anything else goes.
    #expect(rendered[3].hasSuffix("  52%  26/50  24.8 it/s  ETA 0:01"))
    #expect(rendered[4].hasSuffix("  52%  26/50  ETA 0:01"))
    #expect(rendered[5].hasPrefix("Heavy task ▕") && rendered[5].hasSuffix("  52%  26/50"))
    #expect(rendered[6].hasPrefix("Heavy task ▕") && rendered[6].hasSuffix("▏  52%"))
    #expect(rendered[7] == "▕██████▏     ▏  52%")
    for (width, text) in zip(widths, rendered) {
      #expect(TerminalFormat.columns(text) <= width - 1, "\(width): \(text)")
    }
    // The bar keeps at least its 10 cells while the message shrinks.
    #expect(rendered[1].contains("▕█████▏    ▏") && rendered[2].contains("▕█████▏    ▏"))
  }

  @Test func theBarKeepsItsWidthWhileTheMessageChangesOrGoes() {
    let positions = ["Hashing a.jpg", "Hashing a-much-longer-name-than-before.jpg", nil].map {
      let text = render(heavyTask(message: $0), width: 100)
      return text.firstIndex(of: "%").map { text.distance(from: text.startIndex, to: $0) }
    }
    #expect(Set(positions).count == 1)
  }

  @Test func aWideMessageIsCutAtAColumnBoundary() {
    let message = "写真を処理しています：京都の休日の四十二枚目"
    for width in [20, 40, 60, 80, 200] {
      let text = render(heavyTask(message: message), width: width)
      #expect(TerminalFormat.columns(text) <= width - 1, "\(width): \(text)")
      if text.contains("写真") && !text.hasSuffix(message) {
        #expect(text.hasSuffix("…"))
      }
    }
    // 21 columns for the message: ten wide characters and the ellipsis.
    #expect(render(heavyTask(message: message), width: 80).hasSuffix("  写真を処理しています…"))
    #expect(render(heavyTask(message: message), width: 200).hasSuffix("  " + message))
  }

  @Test func aMessageNeverBreaksTheLineNorWritesEscapes() {
    let message = "first line\nsecond line\r\u{1B}[2J\u{7}\u{85}\u{2028}end"
    let text = render(heavyTask(message: message), width: 200)
    #expect(text.hasSuffix("  first line second line  [2J   end"))
    #expect(text.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control })
  }

  @Test func anASCIILineCutsItsMessageWithThreeDots() {
    let text = render(
      heavyTask(message: "Hashing IMG_0042.jpg and more"), width: 80, unicode: false)
    #expect(text.hasSuffix("  ETA 0:01  Hashing IMG_0042.j..."))
  }

  @Test func aPausedLineShowsPausedInPlaceOfTheRateAndTheETA() {
    var line = heavyTask(message: "Hashing IMG_0042.jpg")
    let running = render(line, width: 80)
    line.isPaused = true
    let paused = render(line, width: 80)
    #expect(paused == "Heavy task ▕█████▏    ▏  52%  26/50  paused  Hashing IMG_0042.jpg")
    #expect(
      running.firstIndex(of: "%").map { running.distance(from: running.startIndex, to: $0) }
        == paused.firstIndex(of: "%").map { paused.distance(from: paused.startIndex, to: $0) })
    // Where the rate and the ETA have given way, `paused` stays, after the counts and the label.
    #expect(render(line, width: 40).hasPrefix("Heavy task ▕"))
    #expect(render(line, width: 40).hasSuffix("▏  52%  paused"))
    #expect(render(line, width: 30) == "▕███████▎      ▏  52%  paused")
    #expect(render(line, width: 25) == "▕████████▊        ▏  52%")
  }

  @Test func roomIsKeptForTheWidestCountsAndRateOfTheUnit() {
    let bytes = ProgressLine.Reservation.forRun(
      RunProgress(completed: 1_200_000_000, of: 3_400_000_000), unit: .bytes)
    // "999.9 MB / 3.4 GB" at most, and "99.9 kB/s".
    #expect(bytes.counts == 17 && bytes.rate == 9 && bytes.eta == 11)
    let binary = ProgressLine.Reservation.forRun(
      RunProgress(completed: 0, of: 1 << 30), unit: .binaryBytes)
    // "1023 MiB / 1.0 GiB" and "1023 KiB/s".
    #expect(binary.counts == 18 && binary.rate == 10)
    let items = ProgressLine.Reservation.forRun(RunProgress(completed: 3, of: 1000), unit: .items)
    #expect(items.counts == 9 && items.rate == 10)
    let files = ProgressLine.Reservation.forRun(
      RunProgress(completed: 3, of: 1000), unit: .items(named: "files"))
    #expect(files.rate == 13)
    // Indeterminate counts have a rate but no time left; a bare fraction has a time left only.
    #expect(
      ProgressLine.Reservation.forRun(.indeterminate(completed: 5), unit: .items)
        == .init(rate: 10, eta: ProgressLine.Reservation.status))
    #expect(
      ProgressLine.Reservation.forRun(0.5, unit: .items)
        == .init(eta: ProgressLine.Reservation.status))
  }

  // MARK: - Fitting a terminal's width

  /// Lines as the renderers fit them: a live one with a message, a wide one, a paused one, and
  /// final ones whose status is short, longer than the room after the bar, longer than a row,
  /// wide, or begins with a mark.
  private static let linesToFit: [ProgressLine] = {
    var live = ProgressLine(
      label: "Heavy task", barFraction: 0.52, percentFraction: 0.52, counts: "26/50")
    live.rate = "24.8 it/s"
    live.eta = "ETA 0:01"
    live.message = "Hashing IMG_0042.jpg"
    live.reserved = .forRun(RunProgress(completed: 26, of: 50), unit: .items)
    live.reserved.message = true
    var wide = live
    wide.label = "重いタスク"
    wide.message = "写真を処理しています：京都の休日の四十二枚目"
    var paused = live
    paused.isPaused = true
    var indeterminate = ProgressLine(label: "Scan", indeterminatePosition: 0.5, counts: "12")
    indeterminate.reserved = .forRun(.indeterminate(completed: 12), unit: .items)
    var lines = [live, wide, paused, indeterminate]
    let statuses: [ProgressLine.Status] = [
      .success("done in 2.6s"), .note("cancelled after 1.2s"),
      .failure("failed after 1.0s: the server closed the connection unexpectedly"),
      .failure("failed after 1.0s: " + String(repeating: "ディスクがいっぱいです", count: 6)),
      .failure("\u{301}failed: timeout"),
    ]
    for status in statuses {
      var final = live
      final.rate = nil
      final.eta = nil
      final.message = nil
      final.status = status
      lines.append(final)
    }
    return lines
  }()

  /// `text` without the escapes that colour a status, taken out scalar by scalar: a status that
  /// begins with a mark joins the escape's last letter into one character.
  private func uncoloured(_ text: String) -> String {
    var scalars = Array(text.unicodeScalars)
    for escape in ["\u{1B}[32m", "\u{1B}[31m", "\u{1B}[0m"].map({ Array($0.unicodeScalars) }) {
      while let range = scalars.firstRange(of: escape) {
        scalars.removeSubrange(range)
      }
    }
    return String(String.UnicodeScalarView(scalars))
  }

  @Test(arguments: [ProgressLine.LongStatus.whole, .cut])
  func everyRowFitsFromOneTo120ColumnsAndTheStatusGoesWhereThePolicySays(
    longStatus: ProgressLine.LongStatus
  ) {
    let capabilities: [TerminalCapabilities] = [
      .init(redrawing: .anyRows, supportsUnicode: true, supportsColor: true),
      .init(redrawing: .currentRow, supportsUnicode: false, supportsColor: false),
    ]
    for columns in 1...120 {
      for terminal in capabilities {
        for line in Self.linesToFit {
          let (row, overflow) = line.fitted(
            columns: columns, capabilities: terminal, longStatus: longStatus)
          let plainRow = uncoloured(row)
          let context = "\(columns), \(longStatus): \(plainRow) / \(overflow ?? "nil")"
          #expect(TerminalFormat.columns(plainRow) <= columns - 1, "\(context)")
          // Too narrow for the bar, the row is the line cut, not laid out anew.
          let laidOut = line.laidOut(width: columns, unicode: terminal.supportsUnicode)
          #expect(laidOut.joined(color: false).line.hasPrefix(plainRow), "\(context)")
          guard let status = line.status?.text else {
            #expect(overflow == nil, "\(context)")
            continue
          }
          guard let overflow else {
            // A status stays after the bar only where it fits.
            #expect(plainRow.hasSuffix("  " + status), "\(context)")
            continue
          }
          #expect(!plainRow.contains(status), "\(context)")
          let plainOverflow = uncoloured(overflow)
          if longStatus == .whole || TerminalFormat.columns(status) <= columns - 1 {
            #expect(plainOverflow == status, "\(context)")
          } else {
            let ellipsis = terminal.supportsUnicode ? "…" : "..."
            #expect(
              plainOverflow
                == TerminalFormat.truncated(status, toColumns: columns - 1, ellipsis: ellipsis),
              "\(context)")
            #expect(TerminalFormat.columns(plainOverflow) <= columns - 1, "\(context)")
          }
        }
      }
    }
  }

  @Test func aLongStatusIsWrittenWholeOrCutToARow() {
    var line = ProgressLine(label: "Task", barFraction: 1, percentFraction: 1, counts: "10/10")
    line.status = .failure("failed after 1.0s: the server closed the connection unexpectedly")
    let terminal = TerminalCapabilities(
      redrawing: .anyRows, supportsUnicode: true, supportsColor: false)
    let whole = line.fitted(columns: 40, capabilities: terminal, longStatus: .whole)
    let cut = line.fitted(columns: 40, capabilities: terminal, longStatus: .cut)
    #expect(whole.line == "Task ▕████████████████████▏ 100%  10/10")
    #expect(cut.line == whole.line)
    #expect(whole.overflow == "failed after 1.0s: the server closed the connection unexpectedly")
    #expect(cut.overflow == "failed after 1.0s: the server closed t…")
    // Colour wraps the cut status, as it wraps a whole one.
    let coloured = line.fitted(
      columns: 40,
      capabilities: .init(redrawing: .anyRows, supportsUnicode: true, supportsColor: true),
      longStatus: .cut)
    #expect(coloured.overflow == "\u{1B}[31mfailed after 1.0s: the server closed t…\u{1B}[0m")
  }

  @Test func tooNarrowForTheBarTheRowIsCutWithNoEllipsis() {
    var line = ProgressLine(label: "Task", barFraction: 0.3, percentFraction: 0.3, counts: "3/10")
    line.status = .note("cancelled")
    let terminal = TerminalCapabilities(
      redrawing: .anyRows, supportsUnicode: true, supportsColor: false)
    let rows = [1, 2, 6, 10, 11].map {
      line.fitted(columns: $0, capabilities: terminal, longStatus: .whole)
    }
    #expect(rows.map(\.line) == ["", "▕", "▕▉  ▏", "▕▉  ▏  30", "▕▉  ▏  30%"])
    #expect(rows.allSatisfy { $0.overflow == "cancelled" })
  }

  @Test func aSummaryShowsItsCountsPerPhaseWholeBeforeTheRateAndTheETA() {
    var line = ProgressLine(
      label: "Total", barFraction: 0.5, percentFraction: 0.5, counts: "100/200")
    line.rate = "12.0 it/s"
    line.eta = "ETA 0:04"
    line.message = "3 running, 5 waiting, 1 failed"
    line.prefersWholeMessage = true
    line.reserved = .forRun(RunProgress(completed: 100, of: 200), unit: .items)
    let terminal = TerminalCapabilities(
      redrawing: .anyRows, supportsUnicode: true, supportsColor: false)
    let fitted = { (columns: Int) in
      line.fitted(columns: columns, capabilities: terminal, longStatus: .cut).line
    }
    #expect(fitted(120).hasSuffix("  100/200  12.0 it/s  ETA 0:04  3 running, 5 waiting, 1 failed"))
    #expect(fitted(80).hasSuffix("▏  50%  100/200  3 running, 5 waiting, 1 failed"))
    #expect(TerminalFormat.columns(fitted(80)) <= 79)
    // Where the counts per phase do not fit even so, they are cut as any message.
    #expect(fitted(40) == "Total ▕█████     ▏  50%  100/200  3 ru…")
  }
}
