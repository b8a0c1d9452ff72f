import ExampleSupport
import Testing

@testable import downloads

@Suite("downloads options")
struct OptionsTests {
  @Test func defaultsMirrorTheHelp() throws {
    let options = try Options.parse([String]())
    #expect(options == Options(count: 8, jobs: 3, seed: 5, speed: 1, failAt: nil))
    for defaultValue in [
      "(default: 8)", "(default: 3)", "(default: 5)", "(default: 1)", "(default: none)",
    ] {
      #expect(Options.usage.contains(defaultValue), "\(defaultValue)")
    }
  }

  @Test func everyOptionTakesItsValueSeparatelyOrAfterAnEqualsSign() throws {
    let spaced = try Options.parse([
      "--count", "12", "--jobs", "4", "--seed", "99", "--speed", "2.5", "--fail-at", "12",
    ])
    let joined = try Options.parse([
      "--count=12", "--jobs=4", "--seed=99", "--speed=2.5", "--fail-at=12",
    ])
    #expect(spaced == joined)
    #expect(spaced == Options(count: 12, jobs: 4, seed: 99, speed: 2.5, failAt: 12))
  }

  @Test func theBoundsAreAccepted() throws {
    let low = try Options.parse(["--count", "1", "--jobs", "1", "--seed", "0", "--speed", "0.1"])
    #expect(low == Options(count: 1, jobs: 1, seed: 0, speed: 0.1))
    let high = try Options.parse([
      "--count", "1000", "--jobs", "100", "--seed", "18446744073709551615", "--speed", "1000",
      "--fail-at", "1000",
    ])
    #expect(
      high == Options(count: 1000, jobs: 100, seed: .max, speed: 1000, failAt: 1000))
  }

  @Test func theOrderDoesNotMatterForTheFailAtCheck() throws {
    #expect(try Options.parse(["--fail-at", "20", "--count", "20"]).failAt == 20)
    #expect(
      throws: Options.UsageError("option '--fail-at' is 9, past the last download (--count is 8)")
    ) {
      try Options.parse(["--fail-at", "9"])
    }
  }

  /// A speed is typed in digits and a point: what `Double` also reads, hex and exponents, is not
  /// a speed the help shows.
  @Test(arguments: ["0x10", "1e3", "inf", "+2", "fast", ""])
  func aSpeedThatIsNotPlainDecimalIsAnError(speed: String) {
    #expect(
      throws: Options.UsageError(
        "option '--speed' expects a factor from 0.1 to 1000; got '\(speed)'")
    ) {
      try Options.parse(["--speed", speed])
    }
  }

  @Test func helpWinsOverEverythingValid() throws {
    #expect(try Options.parse(["--count", "3", "--help"]).showsHelp)
    #expect(try Options.parse(["--fail-at", "99", "-h"]).showsHelp)
  }

  @Test func whateverIsTypedTheMessageStaysOnOneLine() {
    #expect {
      try Options.parse(["--speed", "1\n2\u{1B}[31m" + String(repeating: "x", count: 100)])
    } throws: { error in
      let message = "\(error)"
      return !message.contains("\n") && !message.contains("\u{1B}") && message.hasSuffix("…'")
    }
  }
}
