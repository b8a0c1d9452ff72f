import Foundation
import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@Suite("Log line")
struct LogLineTests {
  private static func epoch(_ seconds: Int64, milliseconds: Int64 = 0) -> Duration {
    .seconds(seconds) + .milliseconds(milliseconds)
  }

  @Test(arguments: [
    (epoch(0), "1970-01-01T00:00:00.000Z"),
    (epoch(1_795_962_903, milliseconds: 123), "2026-11-29T14:35:03.123Z"),
    (epoch(951_782_400), "2000-02-29T00:00:00.000Z"),
    (epoch(4_102_444_799, milliseconds: 999), "2099-12-31T23:59:59.999Z"),
    (epoch(253_402_300_799), "9999-12-31T23:59:59.000Z"),
    (epoch(-1, milliseconds: 999), "1969-12-31T23:59:59.999Z"),
    (epoch(0) - .milliseconds(1), "1969-12-31T23:59:59.999Z"),
    (epoch(-86_400 * 365), "1969-01-01T00:00:00.000Z"),
  ])
  func timestampsAreISO8601InUTCWithMilliseconds(time: Duration, text: String) {
    #expect(LogLine.iso8601(time) == text)
  }

  @Test func timesBeyondYear9999OrBeforeYear0AreShownAsTheNearestEnd() {
    #expect(LogLine.iso8601(.seconds(Int64.max)) == "9999-12-31T23:59:59.000Z")
    #expect(LogLine.iso8601(.seconds(Int64.min)) == "0000-01-01T00:00:00.000Z")
    #expect(LogLine.iso8601(.seconds(-62_167_219_200)) == "0000-01-01T00:00:00.000Z")
  }

  @Test func timestampsAgreeWithFoundationAcrossCenturies() {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    formatter.timeZone = TimeZone(identifier: "UTC")
    var seconds: Int64 = -2_208_988_800  // 1900
    while seconds < 4_102_444_800 {  // 2100
      let date = Date(timeIntervalSince1970: TimeInterval(seconds) + 0.25)
      #expect(
        LogLine.iso8601(.seconds(seconds) + .milliseconds(250)) == formatter.string(from: date))
      seconds += 7_654_321
    }
  }

  @Test func stringsAreEscapedForJSON() throws {
    let nasty =
      "quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} del \u{7F} ls \u{2028} é 🚀"
    let json = LogLine.quoted(nasty)
    #expect(!json.contains("\n") && !json.contains("\u{0}") && !json.contains("\u{2028}"))
    let decoded =
      try JSONSerialization.jsonObject(
        with: Data("[\(json)]".utf8), options: []) as? [String]
    #expect(decoded == [nasty])
  }

  @Test func aLineIsOneJSONObjectWithTheFieldsThatApply() throws {
    let line = LogLine(
      time: .seconds(1_795_962_903), label: "import", phase: .running, fraction: 0.42,
      completed: 42,
      total: 100, elapsed: .milliseconds(1234), error: nil)
    #expect(
      line.encoded()
        == #"{"time":"2026-11-29T14:35:03.000Z","label":"import","phase":"running","fraction":0.42,"completed":42,"total":100,"elapsed":1.234}"#
        + "\n")
    let failed = LogLine(
      time: .zero, label: "", phase: .failed, fraction: 0, completed: nil, total: nil, elapsed: nil,
      error: "disk \"full\"")
    #expect(
      failed.encoded()
        == #"{"time":"1970-01-01T00:00:00.000Z","phase":"failed","fraction":0.0,"error":"disk \"full\""}"#
        + "\n")
    let indeterminate = LogLine(
      time: .zero, label: "", phase: .running, fraction: nil, completed: 7, total: nil,
      elapsed: nil,
      error: nil)
    #expect(indeterminate.encoded().contains(#""fraction":null,"completed":7"#))
  }

  @Test func numbersAreAlwaysValidJSON() {
    #expect(LogLine.number(.nan) == "null")
    #expect(LogLine.number(.infinity) == "null")
    #expect(LogLine.number(1) == "1.0")
    #expect(LogLine.number(.leastNonzeroMagnitude) == "5e-324")
    #expect(LogLine.seconds(.milliseconds(-1500)) == "-1.500")
    #expect(LogLine.seconds(.milliseconds(7)) == "0.007")
  }
}
