import TaskProgressTestSupport
import Testing

@Suite("Virtual terminal")
struct VirtualTerminalTests {
  @Test func textGoesWhereTheCursorIsAndTrailingSpacesAreTrimmed() {
    var terminal = VirtualTerminal(columns: 10, rows: 3)
    terminal.feed("ab  \r")
    terminal.feed("X\nsecond")
    #expect(terminal.screen == ["Xb", "second", ""])
    #expect(terminal.cursorRow == 1 && terminal.cursorColumn == 6)
    #expect(terminal.trimmedScreen == ["Xb", "second"])
  }

  @Test func aLineFeedAtTheBottomScrollsAndKeepsTheTopRowInTheScrollback() {
    var terminal = VirtualTerminal(columns: 10, rows: 2)
    terminal.feed("one\ntwo\nthree\n")
    #expect(terminal.screen == ["three", ""])
    #expect(terminal.scrollback == ["one", "two"])
    #expect(terminal.scrolls == 2)
    #expect(terminal.wraps == 0)
  }

  @Test func aLineFeedWithoutReturnKeepsTheColumnAsATerminalWithoutONLCR() {
    var terminal = VirtualTerminal(columns: 10, rows: 3, lineFeedReturns: false)
    terminal.feed("ab\ncd\r\nef")
    #expect(terminal.screen == ["ab", "  cd", "ef"])
  }

  @Test func theLastColumnWaitsToWrapUntilTheNextCharacter() {
    var terminal = VirtualTerminal(columns: 5, rows: 3)
    terminal.feed("12345")
    // Pending wrap: the cursor stays in the last column and nothing has wrapped yet.
    #expect(terminal.cursorColumn == 4 && terminal.cursorRow == 0)
    #expect(terminal.wraps == 0)
    terminal.feed("\r\n")
    #expect(terminal.wraps == 0)
    #expect(terminal.cursorRow == 1)
    terminal.feed("abcde")
    terminal.feed("\u{1B}[K")  // an erase ends the pending state, without a wrap
    terminal.feed("\rX")
    #expect(terminal.wraps == 0)
    terminal.feed("\u{1B}[Gabcdef")
    #expect(terminal.wraps == 1)
    #expect(terminal.screen == ["12345", "abcde", "f"])
  }

  @Test func aWrapAtTheBottomRowScrolls() {
    var terminal = VirtualTerminal(columns: 3, rows: 2)
    terminal.feed("abc\r\ndefg")
    #expect(terminal.screen == ["def", "g"])
    #expect(terminal.wraps == 1)
    #expect(terminal.scrolls == 1)
  }

  @Test func wideCharactersTakeTwoColumnsAndCombiningMarksNone() {
    var terminal = VirtualTerminal(columns: 10, rows: 2)
    terminal.feed("日本😀e\u{301}!")
    #expect(terminal.screen[0] == "日本😀e\u{301}!")
    #expect(terminal.cursorColumn == 8)
    #expect(VirtualTerminal.columns(of: "日本😀e\u{301}!") == 8)
    #expect(VirtualTerminal.columns(of: "\u{200D}") == 0)
    #expect(VirtualTerminal.columns(of: "ｱ") == 1)  // halfwidth katakana
    #expect(VirtualTerminal.columns(of: "Ａ") == 2)  // fullwidth Latin
  }

  @Test func aWideCharacterThatDoesNotFitInTheLastColumnWraps() {
    var terminal = VirtualTerminal(columns: 5, rows: 2)
    terminal.feed("abcd日")
    #expect(terminal.screen == ["abcd", "日"])
    #expect(terminal.wraps == 1)
  }

  @Test func overwritingHalfOfAWideCharacterBlanksTheOtherHalf() {
    var terminal = VirtualTerminal(columns: 6, rows: 1)
    terminal.feed("日本\u{1B}[2Gx")
    #expect(terminal.screen == [" x本"])
  }

  @Test func cursorMovementsStayOnTheScreen() {
    var terminal = VirtualTerminal(columns: 10, rows: 4)
    terminal.feed("\u{1B}[9A\u{1B}[3Bx\u{1B}[20C")
    #expect(terminal.cursorRow == 3 && terminal.cursorColumn == 9)
    terminal.feed("\u{1B}[4Dy\u{1B}[A\u{1B}[1Gz\u{1B}[C\u{1B}[Dw")
    #expect(terminal.screen == ["", "", "zw", "x    y"])
  }

  @Test func erasingInLineAndInDisplay() {
    var terminal = VirtualTerminal(columns: 8, rows: 3)
    terminal.feed("abcdefg\r\nhijklmn\r\nopqrstu")
    terminal.feed("\u{1B}[A\u{1B}[4G\u{1B}[K")
    #expect(terminal.screen == ["abcdefg", "hij", "opqrstu"])
    terminal.feed("\u{1B}[1K")
    #expect(terminal.screen == ["abcdefg", "", "opqrstu"])
    terminal.feed("\u{1B}[A\u{1B}[2K")
    #expect(terminal.screen == ["", "", "opqrstu"])
    terminal.feed("\r\nxyz\u{1B}[0J")
    #expect(terminal.screen == ["", "xyz", ""])
    terminal.feed("\u{1B}[2J")
    #expect(terminal.screen == ["", "", ""])
    #expect(terminal.cursorRow == 1 && terminal.cursorColumn == 3)
    terminal.feed("\u{1B}[1Gab\r\ncd\u{1B}[A\u{1B}[J")
    // `J` clears from the cursor, after "ab", to the end of the screen.
    #expect(terminal.screen == ["", "ab", ""])
  }

  @Test func theCursorIsHiddenAndShownAndColoursAreIgnored() {
    var terminal = VirtualTerminal(columns: 20, rows: 1)
    terminal.feed("\u{1B}[?25l\u{1B}[32mdone\u{1B}[0m")
    #expect(!terminal.isCursorVisible)
    terminal.feed("\u{1B}[?25h")
    #expect(terminal.isCursorVisible)
    #expect(terminal.screen == ["done"])
    #expect(terminal.unknownSequences.isEmpty)
  }

  @Test func otherSequencesAreRecordedAndSkipped() {
    var terminal = VirtualTerminal(columns: 20, rows: 1)
    terminal.feed("a\u{1B}[2Sb\u{1B}7c\u{1B}]0;title\u{07}d\u{1B}[?1049he")
    #expect(terminal.screen == ["abcde"])
    #expect(
      terminal.unknownSequences == [
        "\u{1B}[2S", "\u{1B}7", "\u{1B}]0;title\u{07}", "\u{1B}[?1049h",
      ])
  }

  @Test func bytesSplitAcrossFeedsArePutBackTogether() {
    var terminal = VirtualTerminal(columns: 20, rows: 2)
    let bytes = Array("日本\u{1B}[?25l語\r\n".utf8)
    for byte in bytes {
      terminal.feed([byte])
    }
    terminal.feed([0xFF, 0x41])  // an invalid byte, then "A"
    #expect(terminal.screen == ["日本語", "\u{FFFD}A"])
    #expect(!terminal.isCursorVisible)
  }

  @Test func resizingCutsWithoutReflowingAndKeepsTheCursorLine() {
    var terminal = VirtualTerminal(columns: 10, rows: 4)
    terminal.feed("0123456789\r\nabc日本\r\nline 3\r\nline 4")
    terminal.resize(columns: 4, rows: 2)
    #expect(terminal.screen == ["line", "line"])
    #expect(terminal.scrollback == ["0123456789", "abc日本"])
    #expect(terminal.cursorRow == 1 && terminal.cursorColumn == 3)
    terminal.resize(columns: 6, rows: 3)
    #expect(terminal.screen == ["line", "line", ""])
    terminal.feed("\u{1B}[Ax")
    #expect(terminal.screen == ["linx", "line", ""])
  }

  @Test func aWideCharacterCutInHalfByAResizeGoesWhole() {
    var terminal = VirtualTerminal(columns: 6, rows: 1)
    terminal.feed("ab日")
    terminal.resize(columns: 3, rows: 1)
    #expect(terminal.screen == ["ab"])
  }
}
