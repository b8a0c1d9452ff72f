import Testing

@testable import heavy_task

@Suite("heavy-task options")
struct OptionsTests {
  @Test func defaultsMirrorTheHelp() throws {
    let options = try Options.parse([String]())
    #expect(
      options
        == Options(items: 50, delayMilliseconds: 40, failAt: nil, logPath: nil, curve: .spring))
  }

  @Test func everyOptionTakesItsValueSeparatelyOrAfterAnEqualsSign() throws {
    let spaced = try Options.parse([
      "--items", "7", "--delay-ms", "0", "--fail-at", "7", "--log", "a b.log", "--curve", "easeIn",
    ])
    let joined = try Options.parse([
      "--items=7", "--delay-ms=0", "--fail-at=7", "--log=a b.log", "--curve=easeIn",
    ])
    #expect(spaced == joined)
    #expect(
      spaced
        == Options(items: 7, delayMilliseconds: 0, failAt: 7, logPath: "a b.log", curve: .easeIn))
  }

  @Test func jobsDefaultToOneAndTakeACount() throws {
    #expect(try Options.parse([String]()).jobs == 1)
    #expect(try Options.parse(["--jobs", "4"]).jobs == 4)
    #expect(try Options.parse(["--jobs=1000"]).jobs == 1000)
  }

  @Test func theOrderDoesNotMatterForTheFailAtCheck() throws {
    #expect(try Options.parse(["--fail-at", "80", "--items", "100"]).failAt == 80)
    #expect(throws: Options.UsageError.self) {
      try Options.parse(["--items", "10", "--fail-at", "11"])
    }
  }

  @Test func helpWinsOverEverythingValid() throws {
    #expect(try Options.parse(["--items", "3", "--help"]).showsHelp)
    #expect(try Options.parse(["--fail-at", "99", "-h"]).showsHelp)
  }

  @Test func whateverIsTypedTheMessageStaysOnOneLine() {
    #expect {
      try Options.parse(["--items", "1\n2\u{1B}[31m" + String(repeating: "x", count: 100)])
    } throws: { error in
      let message = "\(error)"
      return !message.contains("\n") && !message.contains("\u{1B}") && message.hasSuffix("…'")
    }
  }
}
