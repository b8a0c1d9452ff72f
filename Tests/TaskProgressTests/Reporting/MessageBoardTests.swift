import TaskProgressTestSupport
import Testing

@testable import TaskProgress

@Suite("Message board")
struct MessageBoardTests {
  typealias Fingerprint = MessageBoard.Fingerprint

  @Test func shortTextsAreTheirBytesAndLength() {
    #expect(
      Fingerprint("Hashing a.jpg") == Fingerprint(String("Hashing a.jpg".reversed().reversed())))
    #expect(Fingerprint("Hashing a.jpg") != Fingerprint("Hashing b.jpg"))
    #expect(Fingerprint("abc") != Fingerprint("abc\0"))
    #expect(Fingerprint("") != Fingerprint(nil))
    #expect(Fingerprint(nil) == .none)
    // 15 bytes is the longest short text: its last byte counts.
    #expect(Fingerprint("123456789012345") != Fingerprint("123456789012346"))
    // Canonically equal texts in other bytes differ: posting one takes the lock, and changes
    // what the board shows to text that reads the same.
    #expect(Fingerprint("\u{E9}") != Fingerprint("e\u{301}"))
  }

  @Test func longTextsAreTheirStorageWhileTheyLive() {
    let text = String(repeating: "long status text ", count: 4)
    let copy = text
    #expect(Fingerprint(text) == Fingerprint(copy), "copies share their storage")
    let rebuilt = String(text.utf8.map { Character(Unicode.Scalar($0)) })
    #expect(rebuilt == text)
    #expect(Fingerprint(rebuilt) != Fingerprint(text), "equal text in other storage differs")
    #expect(Fingerprint(text) != .unmatchable)
  }

  @Test func thePortableFingerprintFollowsTheSameRules() {
    typealias F = Fingerprint
    #expect(
      F(portably: "Hashing a.jpg") == F(portably: String("Hashing a.jpg".reversed().reversed())))
    #expect(F(portably: "Hashing a.jpg") != F(portably: "Hashing b.jpg"))
    #expect(F(portably: "abc") != F(portably: "abc\0"))
    #expect(F(portably: "") != .none)
    #expect(F(portably: "123456789012345") != F(portably: "123456789012346"))
    let long = String(repeating: "long status text ", count: 4)
    #expect(F(portably: long) == F(portably: long))
    #expect(
      F(portably: long) != F(portably: String(long.utf8.map { Character(Unicode.Scalar($0)) })))
    #expect(F(portably: long) != .unmatchable)
  }

  @Test func postingTheTextTheBoardHasChangesNothing() {
    let board = MessageBoard()
    #expect(board.read() == (0, nil))
    board.post(nil)
    #expect(board.read().version == 0, "nil on an empty board takes no lock")
    board.post("Hashing a.jpg")
    let first = board.read()
    #expect(first.text == "Hashing a.jpg" && first.version == 2)
    board.post("Hashing a.jpg")
    #expect(board.read().version == 2)
    let long = String(repeating: "x", count: 100)
    board.post(long)
    board.post(long)
    #expect(board.read().version == 4)
    // Equal text in other storage takes the lock, finds it equal, and changes nothing.
    board.post(String(long.utf8.map { Character(Unicode.Scalar($0)) }))
    #expect(board.read() == (4, long))
    board.post(nil)
    #expect(board.read() == (6, nil))
  }

  @Test func aReaderHearsOnlyOfChanges() {
    let board = MessageBoard()
    #expect(board.read(ifChangedSince: 0) == nil)
    board.post("a")
    let changed = board.read(ifChangedSince: 0)
    #expect(changed?.text == "a")
    #expect(board.read(ifChangedSince: changed?.version ?? 0) == nil)
  }

  @Test(.timeLimit(TestScale.timeLimit(minutes: 1)))
  func concurrentPostersLeaveOneOfTheirTexts() async {
    let board = MessageBoard()
    let texts = (0..<8).map { "worker \($0) is hashing a file with a long name.jpg" }
    await withTaskGroup(of: Void.self) { group in
      for text in texts {
        group.addTask {
          for round in 0..<2_000 {
            board.post(round.isMultiple(of: 100) ? "short \(round)" : text)
          }
          board.post(text)
        }
      }
    }
    let final = board.read()
    #expect(final.version.isMultiple(of: 2))
    #expect(final.text.map(texts.contains) == true)
  }
}
