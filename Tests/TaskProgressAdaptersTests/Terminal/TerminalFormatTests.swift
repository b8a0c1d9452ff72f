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
  ])
  func remainingTimesRoundUp(duration: Duration, text: String) {
    #expect(TerminalFormat.remaining(duration) == text)
  }

  @Test(arguments: [
    (0.4, "2.5 s/it"), (1, "1.0 it/s"), (12.34, "12.3 it/s"), (99.96, "100 it/s"),
    (250, "250 it/s"),
    (4_500, "4.5k it/s"), (1_234_567, "1.2M it/s"), (3e9, "3.0G it/s"),
  ])
  func rates(perSecond: Double, text: String) {
    #expect(TerminalFormat.rate(perSecond) == text)
  }

  @Test(arguments: [
    ("Heavy task", 10), ("重いタスク", 10), ("진행", 4), ("ＡＢ", 4), ("e\u{301}", 1), ("🚀 go", 5),
    ("", 0),
  ])
  func columnsCountWideCharactersTwiceAndMarksNotAtAll(text: String, columns: Int) {
    #expect(TerminalFormat.columns(text) == columns)
  }

  @Test(arguments: [0, -1, Double.nan, .infinity])
  func meaninglessRatesAreEmpty(perSecond: Double) {
    #expect(TerminalFormat.rate(perSecond).isEmpty)
  }
}
