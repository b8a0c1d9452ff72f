import ExampleSupport
import Testing

/// The keys of the interactive session, from the bytes a terminal sends.
@Suite("heavy-task keys")
struct KeyDecoderTests {
  private func keys(_ text: String) -> [Key] {
    var decoder = KeyDecoder()
    return text.utf8.compactMap { decoder.decode($0) }
  }

  @Test func everyKeyInEitherCase() {
    #expect(
      keys("\rpPcCqQ\u{03}\u{04}\n") == [
        .enter, .pause, .pause, .cancel, .cancel, .quit, .quit, .interrupt, .endOfInput, .enter,
      ])
  }

  @Test func theBytesOfEscapeSequencesAreNoKeys() {
    // F1 (`ESC O P`), Shift-F1 (`ESC [ 1 ; 2 P`), Right (`ESC [ C`), F2 (`ESC O Q`).
    #expect(keys("\u{1B}OP\u{1B}[1;2P\u{1B}[C\u{1B}OQ").isEmpty)
    #expect(keys("\u{1B}OPp") == [.pause])
  }

  @Test func aSequenceSplitOverReadsIsStillSkipped() {
    var decoder = KeyDecoder()
    #expect(decoder.decode(0x1B) == nil)
    #expect(decoder.decode(UInt8(ascii: "O")) == nil)
    #expect(decoder.decode(UInt8(ascii: "P")) == nil)  // F1's last byte, not `p`'s upper case
    #expect(decoder.decode(UInt8(ascii: "p")) == .pause)
  }
}
