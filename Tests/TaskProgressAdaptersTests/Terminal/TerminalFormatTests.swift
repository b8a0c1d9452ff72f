import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@Suite("Terminal format")
struct TerminalFormatTests {
  @Test(arguments: [
    (Duration.zero, "0.0s"), (.milliseconds(1234), "1.2s"), (.milliseconds(59_940), "59.9s"),
    (.milliseconds(59_960), "1:00"), (.seconds(61), "1:01"), (.seconds(3_599), "59:59"),
    (.seconds(3_600), "1:00:00"), (.seconds(3_725), "1:02:05"), (.seconds(-3), "0.0s"),
  ])
  func elapsedTimes(duration: Duration, text: String) {
    #expect(TerminalFormat.elapsed(duration) == text)
  }

  @Test(arguments: [
    (Duration.zero, "0:00"), (.milliseconds(100), "0:01"), (.seconds(59), "0:59"),
    (.milliseconds(59_001), "1:00"), (.seconds(3_661), "1:01:01"), (.seconds(-1), "0:00"),
    (.seconds(5.000_000_000_000_001), "0:05"), (.seconds(Int64.max), "277777777777:46:40"),
  ])
  func remainingTimesRoundUp(duration: Duration, text: String) {
    #expect(TerminalFormat.remaining(duration) == text)
  }

  @Test func anElapsedTimeBeyondAnyRunNeverTraps() {
    #expect(TerminalFormat.elapsed(.seconds(Int64.max)) == TerminalFormat.remaining(.seconds(1e15)))
  }

  @Test(arguments: [
    ("Heavy task", 10), ("重いタスク", 10), ("진행", 4), ("ＡＢ", 4), ("e\u{301}", 1), ("🚀 go", 5),
    ("", 0),
    // Emoji drawn as pictures by default, and those asked for as pictures with U+FE0F.
    ("✅ ⏳⌛⭐❌⚡☕", 15), ("\u{2714}\u{FE0F}", 2), ("\u{2714}", 1),
    // The soft hyphen shows as a hyphen.
    ("co\u{AD}op", 5),
  ])
  func columnsCountWideCharactersTwiceAndMarksNotAtAll(text: String, columns: Int) {
    #expect(TerminalFormat.columns(text) == columns)
  }

  // MARK: - Percentages

  private static let twoTo40 = 1 << 40
  /// The least count that is 29% of 2^40: one fewer is still 28%.
  private static let twentyNinePercentOf2To40 = (29 * twoTo40 + 99) / 100

  /// Counts and the whole percentage they are, rounded down: 100 only when complete.
  static let countPercentages: [(Int, Int, String)] = [
    (29, 100, "29"), (57, 100, "57"), (58, 100, "58"), (1, 3, "33"), (2, 3, "66"),
    (99, 100, "99"), (100, 100, "100"), (0, 0, "100"), (0, 100, "0"), (1, 100, "1"),
    (1, 1_000, "0"), (999, 1_000, "99"), (9_999, 10_000, "99"), (7, 7, "100"),
    (twoTo40 / 2, twoTo40, "50"), (twoTo40 - 1, twoTo40, "99"), (twoTo40, twoTo40, "100"),
    (twentyNinePercentOf2To40, twoTo40, "29"), (twentyNinePercentOf2To40 - 1, twoTo40, "28"),
    (Int.max - 1, Int.max, "99"), (Int.max / 2, Int.max, "49"), (Int.max, Int.max, "100"),
    (1, Int.max, "0"),
  ]

  @Test(arguments: countPercentages)
  func aPercentageFromCountsIsExact(completed: Int, total: Int, percent: String) {
    #expect(TerminalFormat.percent(completed: completed, of: total) == percent)
    #expect(TerminalFormat.percent(RunProgress(completed: completed, of: total)) == percent)
  }

  // Past a billion units, two counts can be closer to a percentage boundary than a fraction's
  // rounding error allows for: there only the counts tell.
  @Test(arguments: countPercentages.filter { $0.1 < 1_000_000_000 })
  func aPercentageFromTheFractionOfCountsAgreesWithThem(
    completed: Int, total: Int, percent: String
  ) {
    // What a renderer that has only the fraction shows: 0.29 * 100 is 28.999…, shown as 29.
    let fraction = total == 0 ? 1 : Double(completed) / Double(total)
    #expect(TerminalFormat.percent(fraction) == percent)
  }

  @Test func everyFractionOfSmallCountsShowsTheCountsPercentage() {
    var disagreements: [String] = []
    for total in 1...400 {
      for completed in 0...total {
        let exact = TerminalFormat.percent(completed: completed, of: total)
        if TerminalFormat.percent(Double(completed) / Double(total)) != exact {
          disagreements.append("\(completed)/\(total)")
        }
      }
    }
    #expect(disagreements.isEmpty)
  }

  @Test func countsOutsideTheirRangeAreClamped() {
    #expect(TerminalFormat.percent(completed: -5, of: 10) == "0")
    #expect(TerminalFormat.percent(completed: 15, of: 10) == "100")
    #expect(TerminalFormat.percent(completed: 3, of: -1) == "100")
  }

  @Test(arguments: [
    (0.0, "0"), (-1, "0"), (-.infinity, "0"), (.nan, "0"), (0.5, "50"), (0.999_99, "99"),
    (1 - 1e-12, "99"), (0.009_9, "0"), (1, "100"), (.infinity, "100"),
  ])
  func aBareFractionIsRoundedDownAndReaches100OnlyAtOne(fraction: Double, percent: String) {
    #expect(TerminalFormat.percent(fraction) == percent)
  }

  @Test func aProgressWithoutCountsUsesItsFractionAndAnIndeterminateOneHasNone() {
    #expect(TerminalFormat.percent(RunProgress(fractionCompleted: 0.57)) == "57")
    #expect(TerminalFormat.percent(RunProgress.indeterminate(completed: 5)) == nil)
  }

  @Test func unfinishedChildrenShowInThePercentageBeyondTheCounts() {
    // 2 of 10 done, and a child worth 4 of them half way: 40%, beside the counts 2/10.
    let progress = RunProgress(fractionCompleted: 0.4, completed: 2, of: 10)
    #expect(TerminalFormat.percent(progress) == "40")
    // With nothing beyond the counts, the counts decide: 29/100 is 29%, not 28%.
    #expect(
      TerminalFormat.percent(RunProgress(fractionCompleted: 0.29, completed: 29, of: 100)) == "29")
  }

  /// The percentage the terminal renderer writes beside `completed/total`.
  @MainActor
  @Test(arguments: [(29, 100), (57, 100), (2, 3), (99, 100)])
  func theRendererShowsThePercentageOfItsCounts(completed: Int, total: Int) {
    let expected = TerminalFormat.percent(completed: completed, of: total) + "%"
    let start = ProgressUpdate(
      reason: .stateChanged, state: .running(0), displayedProgress: 0, time: .zero)
    let report = ProgressUpdate(
      reason: .stateChanged, state: .running(RunProgress(completed: completed, of: total)),
      displayedProgress: 0, time: .seconds(1))
    let plain = MemoryTerminal(columns: 80, capabilities: .plain)
    let plainRenderer = TerminalRenderer(label: "Task", output: plain)
    plainRenderer.render(start)
    plainRenderer.render(report)
    #expect(plain.lines.contains("Task: \(expected)  \(completed)/\(total)"))
    let terminal = MemoryTerminal(columns: 80, capabilities: .interactiveUnicode)
    let renderer = TerminalRenderer(
      label: "Task", output: terminal, restoresTerminalOnSignals: false)
    renderer.render(start)
    renderer.render(report)
    #expect(terminal.output.contains(" \(expected)  \(completed)/\(total)"))
  }

  // MARK: - Text

  @Test(arguments: [
    ("plain", "plain"), ("a\nb", "a b"), ("a\r\nb", "a  b"), ("\u{1B}[2J", " [2J"),
    ("tab\there", "tab here"), ("del\u{7F}", "del "), ("c1\u{9B}31m", "c1 31m"),
    ("nel\u{85}ls\u{2028}ps\u{2029}", "nel ls ps "), ("é 日本 🚀", "é 日本 🚀"),
  ])
  func singleLineTextHasNoControlCharacters(text: String, expected: String) {
    #expect(TerminalFormat.singleLine(text) == expected)
  }

  @Test(arguments: [
    ("file\u{202E}gpj.exe", "filegpj.exe"),  // a right-to-left override
    ("\u{202A}a\u{202B}b\u{202C}c\u{202D}d", "abcd"),  // embeddings and their end
    ("\u{2066}a\u{2067}b\u{2068}c\u{2069}", "abc"),  // isolates
    ("a\u{200B}b\u{200E}c\u{200F}d\u{61C}e", "abcde"),  // zero-width space, marks
    ("\u{FEFF}bom\u{2060}joined", "bomjoined"),  // byte order mark, word joiner
    ("soft\u{AD}hyphen", "softhyphen"),  // a format character too: dropped like the others
    ("tag\u{E0041}\u{E007F}", "tag"),  // tags, which hide ASCII
    ("👩\u{200D}💻 می\u{200C}خواهم", "👩\u{200D}💻 می\u{200C}خواهم"),  // the joiners stay
  ])
  func singleLineTextHasNoInvisibleFormatCharacters(text: String, expected: String) {
    #expect(TerminalFormat.singleLine(text) == expected)
    #expect(
      !TerminalFormat.singleLine(text).unicodeScalars.contains {
        $0.properties.generalCategory == .format && $0 != "\u{200C}" && $0 != "\u{200D}"
      })
  }

  @Test func escapedTextShowsTheFormatCharactersItHeld() {
    #expect(TerminalFormat.escapingBreaks("a\u{202E}b\nc") == "a\\u{202E}b\\nc")
    #expect(TerminalFormat.escapingBreaks("soft\u{AD}") == "soft\\u{00AD}")
    #expect(TerminalFormat.escapingBreaks("👩\u{200D}💻") == "👩\u{200D}💻")
  }

  @Test(arguments: [
    ("Hashing IMG_0042.jpg", 20, "Hashing IMG_0042.jpg"),
    ("Hashing IMG_0042.jpg", 19, "Hashing IMG_0042.j…"),
    ("Hashing IMG_0042.jpg", 9, "Hashing…"),  // no space before the ellipsis
    ("日本語のテキスト", 16, "日本語のテキスト"),
    ("日本語のテキスト", 15, "日本語のテキス…"),
    ("日本語のテキスト", 14, "日本語のテキ…"),  // 13 columns: a wide character is never halved
    ("e\u{301}e\u{301}e\u{301}", 2, "e\u{301}…"),  // combining marks stay with their letter
    ("abc", 0, ""),
  ])
  func truncationCutsAtAColumnBoundary(text: String, width: Int, expected: String) {
    #expect(TerminalFormat.truncated(text, toColumns: width, ellipsis: "…") == expected)
  }
}
