/// Turns the bytes a terminal sends into keys.
///
/// It skips the escape sequences of arrows, function keys and the like (`ESC [ … final`,
/// `ESC O x`, and `ESC x` for Alt with a key), whose bytes could otherwise read as letters, and
/// assembles the bytes of a UTF-8 character. A sequence or a character may arrive split over
/// reads: the decoder keeps its place between bytes.
struct ConsoleKeyDecoder {
  private enum Place {
    /// Between keys.
    case text
    /// After `ESC`.
    case escape
    /// Inside `ESC [`, until its final byte.
    case controlSequence
    /// After `ESC O`, before the one byte that ends it.
    case singleShift
    /// Inside a UTF-8 character, with its bytes so far and how many it has in all.
    case character([UInt8], length: Int)
  }

  private var place = Place.text

  /// The event `byte` completes, if any.
  mutating func decode(_ byte: UInt8) -> ConsoleEvent? {
    switch place {
    case .escape:
      place =
        byte == UInt8(ascii: "[")
        ? .controlSequence : byte == UInt8(ascii: "O") ? .singleShift : .text
      return nil
    case .controlSequence:
      if (0x40...0x7E).contains(byte) { place = .text }  // the final byte
      return nil
    case .singleShift:
      place = .text
      return nil
    case .character(var bytes, let length):
      guard byte & 0xC0 == 0x80 else {
        place = .text  // a character cut short: dropped, and this byte starts afresh
        return decode(byte)
      }
      bytes.append(byte)
      guard bytes.count == length else {
        place = .character(bytes, length: length)
        return nil
      }
      place = .text
      return character(bytes)
    case .text:
      return decodeText(byte)
    }
  }

  private mutating func decodeText(_ byte: UInt8) -> ConsoleEvent? {
    switch byte {
    case 0x1B:
      place = .escape
      return nil
    case 0x0D, 0x0A: return .key(.enter)
    case 0x09: return .key(.tab)
    case 0x08, 0x7F: return .key(.backspace)
    case 0x03: return .interrupt  // Ctrl-C, a byte in raw mode
    case 0x04: return .endOfInput  // Ctrl-D
    case 0x01...0x1A:
      return .key(.control(Character(Unicode.Scalar(byte + 0x60))))
    case 0x20...0x7E:
      return .key(.character(Character(Unicode.Scalar(byte))))
    case 0xC2...0xDF:
      place = .character([byte], length: 2)
      return nil
    case 0xE0...0xEF:
      place = .character([byte], length: 3)
      return nil
    case 0xF0...0xF4:
      place = .character([byte], length: 4)
      return nil
    default:
      return nil  // NUL, the other control bytes, and bytes that start no UTF-8 character
    }
  }

  /// The key of a complete UTF-8 character, or `nil` when its bytes are not valid UTF-8.
  private func character(_ bytes: [UInt8]) -> ConsoleEvent? {
    var decoder = UTF8()
    var iterator = bytes.makeIterator()
    guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return nil }
    return .key(.character(Character(scalar)))
  }
}
