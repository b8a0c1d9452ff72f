import Synchronization

/// A run's status text: the latest message any of its reporters set.
///
/// Reporters often repeat their message, once per unit of work, so the unchanged case costs no
/// lock: a reporter compares a *fingerprint* of its text with the board's, read as a sequence
/// lock (a version that is odd while a writer changes the board, and the two words of the
/// fingerprint). Only a message that differs takes the lock to change the text, and the runner's
/// frame takes it only when the version moved.
///
/// A fingerprint identifies a text exactly, never by a hash that two texts could share:
///
/// - a text of at most 15 UTF-8 bytes is its bytes and its length;
/// - a longer text whose bytes are contiguous in memory is the address of those bytes and their
///   length. The board keeps its text alive, so while the board holds a text at an address, no
///   other text can be there: equal fingerprints mean the same bytes;
/// - any other text (bridged, not contiguous) has no fingerprint and always takes the lock.
final class MessageBoard: Sendable {
  /// Even while the board is still, odd while a writer changes it; two more per change.
  private let version = Atomic<UInt64>(0)
  /// The fingerprint of the board's text.
  private let low = Atomic<UInt64>(0)
  private let high = Atomic<UInt64>(Fingerprint.none.high)
  /// The text, kept alive while its fingerprint is on the board.
  private let text = Locked<String?>(nil)

  init() {}

  /// Sets the board's text, unless it has that text already.
  func post(_ message: String?) {
    let print = Fingerprint(message)
    if print != .unmatchable && matches(print) { return }
    text.withLock { text in
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
  private func matches(_ print: Fingerprint) -> Bool {
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
  struct Fingerprint: Equatable {
    let low: UInt64
    let high: UInt64

    /// The board's fingerprint before any message: the same as `nil`'s.
    static let none = Fingerprint(low: 0, high: 0)
    /// The fingerprint of a text that has none: it never matches the board's.
    static let unmatchable = Fingerprint(low: 0, high: .max)
    private static let longTag: UInt64 = 0x40 << 56

    private init(low: UInt64, high: UInt64) {
      self.low = low
      self.high = high
    }

    init(_ text: String?) {
      guard var text else {
        self = .none
        return
      }
      let count = text.utf8.count
      if count <= 15 {
        self = text.withUTF8 { bytes in
          // Little-endian whatever the machine: byte 15, the length's, is never the text's.
          var low: UInt64 = 0
          var high = (0x80 | UInt64(count)) << 56
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
