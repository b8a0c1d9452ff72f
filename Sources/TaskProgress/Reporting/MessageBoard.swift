// `public`: the inlinable message path of reporters reads these atomics from client code.
public import Synchronization

/// A run's status text: the latest message any of its reporters set.
///
/// Reporters often repeat their message, once per unit of work, so the unchanged case costs no
/// lock: a reporter compares a *fingerprint* of its text with the board's, read as a sequence
/// lock (a version that is odd while a writer changes the board, and the two words of the
/// fingerprint). Only a message that differs takes the lock to change the text, and the runner's
/// frame takes it only when the version moved.
///
/// A fingerprint identifies a text exactly, never by a hash that two texts could share. Where a
/// `String` is two 64-bit words (every 64-bit platform), the fingerprint is those two words: a
/// text of up to 15 UTF-8 bytes holds its bytes and length in them, and a longer one its length
/// and flags and the address of its storage. The board keeps its text alive, so while the board
/// holds a text whose storage is at an address, no other storage can be there: equal words mean
/// the same bytes. Equal texts in different storage have different fingerprints; posting one
/// takes the lock, finds the text equal and changes nothing, so the cost is a lock, never a
/// wrong text. Elsewhere, the fingerprint is computed from the text's bytes or the address of its
/// contiguous UTF-8 (see ``Fingerprint/init(portably:)``).
@usableFromInline
final class MessageBoard: Sendable {
  /// Even while the board is still, odd while a writer changes it; two more per change.
  @usableFromInline let version = Atomic<UInt64>(0)
  /// The fingerprint of the board's text.
  @usableFromInline let low = Atomic<UInt64>(0)
  @usableFromInline let high = Atomic<UInt64>(0)
  /// The text, kept alive while its fingerprint is on the board.
  private let text = Locked<String?>(nil)

  init() {}

  /// Sets the board's text, unless it has that text already: inlined into the caller, so that an
  /// unchanged text costs four loads and no call.
  @inlinable
  func post(_ message: String?) {
    let print = Fingerprint(message)
    if print != .unmatchable && matches(print) { return }
    replace(with: message, print)
  }

  /// Puts a text that differs from the board's on the board, under the lock.
  @usableFromInline
  func replace(with message: String?, _ print: Fingerprint) {
    text.withLock { text in
      // An equal text in other storage changes nothing that anyone sees.
      guard text != message else { return }
      let current = version.load(ordering: .relaxed)
      version.store(current &+ 1, ordering: .relaxed)
      atomicMemoryFence(ordering: .releasing)
      low.store(print.low, ordering: .relaxed)
      high.store(print.high, ordering: .relaxed)
      text = message
      version.store(current &+ 2, ordering: .releasing)
    }
  }

  /// Whether the board's fingerprint is `print`, read consistently.
  @inlinable
  func matches(_ print: Fingerprint) -> Bool {
    let before = version.load(ordering: .acquiring)
    guard before & 1 == 0 else { return false }
    let low = self.low.load(ordering: .acquiring)
    let high = self.high.load(ordering: .acquiring)
    return low == print.low && high == print.high
      && version.load(ordering: .acquiring) == before
  }

  /// The board's text and its version, read under the lock.
  func read() -> (version: UInt64, text: String?) {
    text.withLock { text in (version.load(ordering: .relaxed), text) }
  }

  /// The board's text if it changed since `version`, with its new version; `nil` otherwise.
  func read(ifChangedSince version: UInt64) -> (version: UInt64, text: String?)? {
    guard self.version.load(ordering: .acquiring) != version else { return nil }
    return read()
  }

  /// Two words that identify a text exactly while the text lives; see ``MessageBoard``.
  @usableFromInline
  struct Fingerprint: Equatable, Sendable {
    @usableFromInline let low: UInt64
    @usableFromInline let high: UInt64

    /// The fingerprint of `nil`, the board's before any message.
    ///
    /// No `String` has these words: even the empty string has flags in its second word.
    @usableFromInline static let none = Fingerprint(low: 0, high: 0)
    /// The fingerprint of a text that has none: it never matches the board's.
    @usableFromInline static let unmatchable = Fingerprint(low: 0, high: .max)
    private static let shortTag: UInt64 = 0x80 << 56
    private static let longTag: UInt64 = 0x40 << 56

    @usableFromInline
    init(low: UInt64, high: UInt64) {
      self.low = low
      self.high = high
    }

    /// The fingerprint of `text`: its two words where a `String` is two words.
    @inlinable
    init(_ text: String?) {
      guard let text else {
        self = .none
        return
      }
      if MemoryLayout<String>.size == 16 {
        // Reads the two words of the value without retaining what they point to; `text` keeps
        // it alive meanwhile. See ``MessageBoard`` for why equal words mean equal text.
        let words = unsafeBitCast(text, to: (UInt64, UInt64).self)
        self.init(low: words.0, high: words.1)
      } else {
        self.init(portably: text)
      }
    }

    /// The fingerprint from the text's public views, where a `String` is not two words: a text
    /// of at most 15 UTF-8 bytes is its bytes and length, a longer one the address of its
    /// contiguous UTF-8 and its length, and any other (not contiguous) text has none.
    @usableFromInline
    init(portably text: String) {
      var text = text
      let count = text.utf8.count
      if count <= 15 {
        self = text.withUTF8 { bytes in
          // Little-endian whatever the machine: byte 15, the length's, is never the text's.
          var low: UInt64 = 0
          var high = Fingerprint.shortTag | UInt64(count) << 56
          for (index, byte) in bytes.enumerated() {
            if index < 8 {
              low |= UInt64(byte) << (8 * index)
            } else {
              high |= UInt64(byte) << (8 * (index - 8))
            }
          }
          return Fingerprint(low: low, high: high)
        }
        return
      }
      let address = text.utf8.withContiguousStorageIfAvailable { bytes in
        UInt64(UInt(bitPattern: bytes.baseAddress))
      }
      guard let address else {
        self = .unmatchable
        return
      }
      self = Fingerprint(low: address, high: Fingerprint.longTag | UInt64(count))
    }
  }
}
