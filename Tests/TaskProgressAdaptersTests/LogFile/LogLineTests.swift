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

  @Test func whatATerminalWouldActOnOrHideIsEscapedAndDecodesBack() throws {
    let text = "c1 \u{9B}31m rlo \u{202E}gpj.exe zwsp \u{200B} shy \u{AD} tag \u{E0041} 👩\u{200D}💻"
    let json = LogLine.quoted(text)
    #expect(json.contains(#"\u009B"#) && json.contains(#"\u202E"#) && json.contains(#"\u200B"#))
    #expect(json.contains(#"\u00AD"#) && json.contains(#"\uDB40\uDC41"#))
    #expect(json.contains("👩\u{200D}💻"))  // the joiner stays as it is
    #expect(
      !json.unicodeScalars.contains {
        $0.properties.generalCategory == .format && $0 != "\u{200D}"
          || $0.properties.generalCategory == .control
      })
    let decoded =
      try JSONSerialization.jsonObject(
        with: Data("[\(json)]".utf8), options: []) as? [String]
    #expect(decoded == [text])
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

  // MARK: - Messages, units and estimates

  @Test func aLineWithEveryFieldHasThemInAStableOrder() {
    let line = LogLine(
      time: .seconds(1_795_962_903) + .milliseconds(123), label: "import", phase: .running,
      fraction: 0.42, completed: 42, total: 100, unit: .items, throughput: 24.5,
      eta: .milliseconds(2367), elapsed: .milliseconds(1234), message: "Reading photo-0042.jpg",
      error: nil)
    #expect(
      line.encoded()
        == #"{"time":"2026-11-29T14:35:03.123Z","label":"import","phase":"running","fraction":0.42,"completed":42,"total":100,"unit":"items","throughput":24.5,"eta":2.367,"elapsed":1.234,"message":"Reading photo-0042.jpg"}"#
        + "\n")
  }

  @Test func unknownEstimatesAndNoMessageAreLeftOut() throws {
    let line = LogLine(
      time: .zero, label: "", phase: .paused, fraction: 0.5, completed: nil, total: nil,
      unit: .bytes, throughput: nil, eta: nil, elapsed: .seconds(1), message: nil, error: nil)
    let record = try LogRecord.decode(line.encoded())
    #expect(
      record
        == LogRecord(
          time: "1970-01-01T00:00:00.000Z", phase: "paused", fraction: 0.5, unit: "bytes",
          elapsed: 1))
    #expect(!line.encoded().contains("throughput") && !line.encoded().contains("eta"))
    // A rate that is not a number cannot be spelled in JSON: it is left out too.
    var infinite = line
    infinite.throughput = .infinity
    #expect(infinite.encoded() == line.encoded())
  }

  @Test(arguments: [
    (ProgressUnit.items, "items"), (.items(named: "it"), "items"), (.items(named: ""), "items"),
    (.items(named: "files"), "items(files)"), (.bytes, "bytes"), (.binaryBytes, "binaryBytes"),
  ])
  func unitsHaveStableNames(unit: ProgressUnit, name: String) throws {
    #expect(LogLine.name(of: unit) == name)
    var line = LogLine(
      time: .zero, label: "", phase: .running, fraction: 0, completed: nil, total: nil,
      elapsed: nil, error: nil)
    line.unit = unit
    #expect(try LogRecord.decode(line.encoded()).unit == name)
  }

  @Test func everyFieldDecodesWithFoundation() throws {
    let message =
      "quote \" backslash \\ newline \n cr \r esc \u{1B}[2J nul \u{0} c1 \u{9B} ls \u{2028} é 日本 🚀"
    let line = LogLine(
      time: .seconds(1_795_962_903), label: "im\"port", phase: .failed, fraction: 0.25,
      completed: 1_200_000_000, total: 3_400_000_000, unit: .items(named: "\"q\""),
      throughput: 12_345_678.9, eta: .milliseconds(178_423), elapsed: .milliseconds(98_100),
      message: message, error: "disk \"full\"")
    let record = try LogRecord.decode(line.encoded())
    #expect(
      record
        == LogRecord(
          time: "2026-11-29T14:35:03.000Z", label: "im\"port", phase: "failed", fraction: 0.25,
          completed: 1_200_000_000, total: 3_400_000_000, unit: "items(\"q\")",
          throughput: 12_345_678.9, eta: 178.423, elapsed: 98.1, message: message,
          error: "disk \"full\""))
    let encoded = line.encoded()
    #expect(encoded.firstIndex(of: "\n") == encoded.index(before: encoded.endIndex))
  }

  @Test func randomMessagesSurviveTheRoundTrip() throws {
    // Scalars from every plane that matters: C0, ASCII, C1, Latin, separators, CJK, emoji.
    let ranges: [ClosedRange<UInt32>] = [
      0...0x7F, 0x80...0x9F, 0xA0...0x2FF, 0x2000...0x206F, 0x3000...0x30FF, 0x4E00...0x4E80,
      0xFFF0...0xFFFD, 0x1F300...0x1F64F,
    ]
    var generator = SplitMix64(seed: 42)
    for _ in 0..<500 {
      var scalars = String.UnicodeScalarView()
      for _ in 0..<Int(generator.next() % 40) {
        let range = ranges[Int(generator.next() % UInt64(ranges.count))]
        let value = range.lowerBound + UInt32(generator.next() % UInt64(range.count))
        scalars.append(Unicode.Scalar(value)!)
      }
      let message = String(scalars)
      var line = LogLine(
        time: .zero, label: "", phase: .running, fraction: 0, completed: nil, total: nil,
        elapsed: nil, error: nil)
      line.message = message
      let encoded = line.encoded()
      #expect(encoded.filter { $0 == "\n" }.count == 1)
      #expect(try LogRecord.decode(encoded).message == message)
    }
  }

  @Test func durationsOfAnySizeAreNumbers() {
    #expect(LogLine.seconds(.seconds(Int64.max)) == "9223372036854775.807")
    #expect(LogLine.seconds(.seconds(Int64.min)) == "-9223372036854775.808")
  }
}

/// One decoded line of the log, with every field the renderer may write.
struct LogRecord: Decodable, Equatable {
  var time: String
  var label: String?
  var phase: String
  var fraction: Double?
  var completed: Int?
  var total: Int?
  var unit: String?
  var throughput: Double?
  var eta: Double?
  var elapsed: Double?
  var message: String?
  var error: String?

  init(
    time: String, label: String? = nil, phase: String, fraction: Double? = nil,
    completed: Int? = nil, total: Int? = nil, unit: String? = nil, throughput: Double? = nil,
    eta: Double? = nil, elapsed: Double? = nil, message: String? = nil, error: String? = nil
  ) {
    self.time = time
    self.label = label
    self.phase = phase
    self.fraction = fraction
    self.completed = completed
    self.total = total
    self.unit = unit
    self.throughput = throughput
    self.eta = eta
    self.elapsed = elapsed
    self.message = message
    self.error = error
  }

  /// Decodes one line with Foundation's JSONDecoder, after checking that it is a JSON object
  /// for JSONSerialization too.
  static func decode(_ line: some StringProtocol) throws -> LogRecord {
    let data = Data(line.utf8)
    _ = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return try JSONDecoder().decode(LogRecord.self, from: data)
  }
}

extension LogLineTests {
  @Test func bytesAndFilesAreLoggedApartFromTheUnitsWithTheUnitOfTheRate() throws {
    let line = LogLine(
      time: .seconds(1_795_962_903), label: "hash", phase: .running, fraction: 0.5,
      completed: 50, total: 100, unit: .items, bytes: (117_000_000, 1_050_000_000),
      files: (3, 24), throughput: 52_000_000, throughputUnit: .bytes, elapsed: .seconds(2))
    let text = line.encoded()
    #expect(
      text.contains(
        "\"completed\":50,\"total\":100,\"unit\":\"items\",\"bytes\":117000000,"
          + "\"totalBytes\":1050000000,\"files\":3,\"totalFiles\":24,\"throughput\":52000000.0,"
          + "\"throughputUnit\":\"bytes\""), "\(text)")
    let object =
      try JSONSerialization.jsonObject(with: Data(text.utf8), options: []) as? [String: Any]
    #expect(object?["totalBytes"] as? Int == 1_050_000_000)
  }
}
