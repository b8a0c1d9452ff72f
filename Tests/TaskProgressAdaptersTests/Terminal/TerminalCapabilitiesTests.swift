import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@Suite("Terminal capabilities")
struct TerminalCapabilitiesTests {
  @Test func aUTF8TerminalGetsEverything() {
    let detected = TerminalCapabilities.detect(
      isTerminal: true, environment: ["TERM": "xterm-256color", "LANG": "en_US.UTF-8"])
    #expect(detected == .interactiveColor)
  }

  @Test func aPipeGetsNothingWhateverTheEnvironmentSays() {
    let detected = TerminalCapabilities.detect(
      isTerminal: false, environment: ["TERM": "xterm", "LANG": "en_US.UTF-8"])
    #expect(detected.redrawing == .never && !detected.supportsColor)
    #expect(
      detected
        == TerminalCapabilities(redrawing: .never, supportsUnicode: true, supportsColor: true))
  }

  @Test(arguments: [
    ["NO_COLOR": "1", "LANG": "C.UTF-8"], ["TERM": "dumb", "LANG": "C.UTF-8"],
  ])
  func noColorAndDumbTerminalsGetNoColour(environment: [String: String]) {
    let detected = TerminalCapabilities.detect(isTerminal: true, environment: environment)
    #expect(!detected.supportsColor)
    #expect(detected.redrawing == (environment["TERM"] == "dumb" ? .currentRow : .anyRows))
  }

  @Test func anEmptyNoColorDoesNotCount() {
    let detected = TerminalCapabilities.detect(isTerminal: true, environment: ["NO_COLOR": ""])
    #expect(detected.supportsColor)
  }

  @Test(arguments: [
    ([String: String](), false), (["LANG": "C"], false), (["LANG": "en_US.UTF-8"], true),
    (["LANG": "de_DE.utf8"], true), (["LC_ALL": "C", "LANG": "en_US.UTF-8"], false),
    (["LC_CTYPE": "ja_JP.UTF-8", "LANG": "C"], true), (["LC_ALL": "", "LANG": "C.UTF-8"], true),
    (["LANG": "sr_RS.UTF-8@latin"], true),
  ])
  func unicodeFollowsTheFirstLocaleVariableThatIsSet(environment: [String: String], unicode: Bool) {
    #expect(
      TerminalCapabilities.detect(isTerminal: true, environment: environment).supportsUnicode
        == unicode)
  }

  @Test(arguments: [
    (false, "xterm", TerminalCapabilities.Redrawing.never), (false, "dumb", .never),
    (true, "dumb", .currentRow), (true, "xterm", .anyRows), (true, "", .anyRows),
  ])
  func aTerminalRedrawsOneRowAndOneWithEscapeSequencesAnyRows(
    isTerminal: Bool, term: String, redrawing: TerminalCapabilities.Redrawing
  ) {
    let detected = TerminalCapabilities.detect(isTerminal: isTerminal, environment: ["TERM": term])
    #expect(detected.redrawing == redrawing)
    #expect(detected.supportsColor == (redrawing == .anyRows))
  }

  @Test func colourNeedsEscapeSequences() {
    let dumb = TerminalCapabilities(
      redrawing: .currentRow, supportsUnicode: true, supportsColor: true)
    #expect(!dumb.supportsColor)
  }
}
