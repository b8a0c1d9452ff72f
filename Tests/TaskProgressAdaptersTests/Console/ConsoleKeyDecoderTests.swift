import Testing

@testable import TaskProgressAdapters

/// The events a console reads from the bytes a terminal sends.
@Suite("Console key decoder")
struct ConsoleKeyDecoderTests {
  private func events(_ text: String) -> [ConsoleEvent] {
    var decoder = ConsoleKeyDecoder()
    return text.utf8.compactMap { decoder.decode($0) }
  }

  @Test func printableCharactersAreKeysInTheirOwnCase() {
    #expect(events("pP c9 ~") == ["p", "P", " ", "c", "9", " ", "~"].map { .key($0) })
  }

  @Test func namedKeysAndControlKeys() {
    #expect(
      events("\r\n\t\u{7F}\u{08}\u{0C}\u{01}\u{1A}") == [
        .key(.enter), .key(.enter), .key(.tab), .key(.backspace), .key(.backspace),
        .key(.control("l")), .key(.control("a")), .key(.control("z")),
      ])
  }

  @Test func ctrlCAndCtrlDAreTheInterruptAndTheEndOfInput() {
    #expect(events("\u{03}\u{04}") == [.interrupt, .endOfInput])
  }

  @Test func utf8CharactersAreOneKeyEach() {
    #expect(events("é€😀") == [.key("é"), .key("€"), .key("😀")])
  }

  @Test func invalidUTF8IsDroppedAndWhatFollowsIsRead() {
    var decoder = ConsoleKeyDecoder()
    // A lone continuation byte, a lead byte cut short by `a`, an overlong encoding of `/`.
    let bytes: [UInt8] = [0x80, 0xE2, 0x82, 0x61, 0xC0, 0xAF, 0xE0, 0x80, 0xAF, 0x62]
    #expect(bytes.compactMap { decoder.decode($0) } == [.key("a"), .key("b")])
  }

  @Test func theBytesOfEscapeSequencesAreNoKeys() {
    // F1 (`ESC O P`), Shift-F1 (`ESC [ 1 ; 2 P`), Right (`ESC [ C`), F2 (`ESC O Q`), Alt-x.
    #expect(events("\u{1B}OP\u{1B}[1;2P\u{1B}[C\u{1B}OQ\u{1B}x").isEmpty)
    #expect(events("\u{1B}OPp") == [.key("p")])
  }

  @Test func aSequenceOrACharacterSplitBetweenReadsIsStillDecoded() {
    var decoder = ConsoleKeyDecoder()
    #expect(decoder.decode(0x1B) == nil)
    #expect(decoder.decode(UInt8(ascii: "O")) == nil)
    #expect(decoder.decode(UInt8(ascii: "P")) == nil)  // F1's last byte, not `P`
    #expect(decoder.decode(UInt8(ascii: "p")) == .key("p"))
    #expect(decoder.decode(0xE2) == nil)
    #expect(decoder.decode(0x82) == nil)
    #expect(decoder.decode(0xAC) == .key("€"))
  }

  @Test func aKeyIsWrittenAsACharacterLiteral() {
    let event = ConsoleEvent.key("q")
    #expect(event == .key(.character("q")))
    switch event {
    case .key("q"): break
    default: Issue.record("\(event) did not match .key(\"q\")")
    }
  }
}
