import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// Something for an element's ID to name.
private final class Token {}

/// An element of the lists under test.
private struct Item: Identifiable {
  let id: ObjectIdentifier
  var label: String
}

@Suite("Slot list")
struct SlotListTests {
  private func item(_ token: Token, _ label: String) -> Item {
    Item(id: ObjectIdentifier(token), label: label)
  }

  @Test func markedElementsComeInTheOrderTheyJoinedWhateverTheOrderTheyWereMarked() {
    let tokens = (0..<5).map { _ in Token() }
    var list = SlotList<Item>()
    for (index, token) in tokens.enumerated() {
      let joined = list.append(item(token, "m\(index)"))
      #expect(joined)
    }
    for index in [3, 0, 4, 1] {
      list.setMarked(ObjectIdentifier(tokens[index]), true)
    }
    #expect(list.markedCount == 4)
    #expect(list.marked.prefix(3).map(\.label) == ["m0", "m1", "m3"])
    list.setMarked(ObjectIdentifier(tokens[1]), false)
    #expect(list.marked.prefix(10).map(\.label) == ["m0", "m3", "m4"])
  }

  @Test func anElementJoinsOnceAndLeavesOnce() {
    let token = Token()
    var list = SlotList<Item>()
    let joined = list.append(item(token, "a"), marked: true)
    let joinedAgain = list.append(item(token, "b"))
    #expect(joined && !joinedAgain)
    #expect(list[ObjectIdentifier(token)]?.label == "a")
    let left = list.remove(ObjectIdentifier(token)) != nil
    let leftAgain = list.remove(ObjectIdentifier(token)) != nil
    #expect(left && !leftAgain)
    #expect(list.isEmpty && list.markedCount == 0)
    // Setting or marking an element that is not in the list adds nothing.
    list[ObjectIdentifier(token)] = item(token, "c")
    list.setMarked(ObjectIdentifier(token), true)
    #expect(list[ObjectIdentifier(token)] == nil && list.markedCount == 0)
  }

  // Seconds of work under ThreadSanitizer: on a thread of its own, it holds none of the pool.
  @Test func randomJoinsMarksAndLeavesMatchAnArrayInJoinOrder() async {
    await onThreadsOfItsOwn { _ in playRandomJoinsMarksAndLeaves() }
  }

  private func playRandomJoinsMarksAndLeaves() {
    var random = SplitMix64(seed: 42)
    let tokens = (0..<300).map { _ in Token() }
    // What the list should be: (token, label, marked), in the order they joined.
    var model: [(token: Int, label: String, marked: Bool)] = []
    var list = SlotList<Item>()
    var joins = 0
    for _ in 0..<20_000 {
      let token = Int.random(in: 0..<tokens.count, using: &random)
      let id = ObjectIdentifier(tokens[token])
      let present = model.firstIndex { $0.token == token }
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<3:
        joins += 1
        let marked = Bool.random(using: &random)
        let joined = list.append(item(tokens[token], "m\(joins)"), marked: marked)
        #expect(joined == (present == nil))
        if present == nil {
          model.append((token, "m\(joins)", marked))
        }
      case 3..<6:
        let left = list.remove(id) != nil
        #expect(left == (present != nil))
        if let present {
          model.remove(at: present)
        }
      default:
        let marked = Bool.random(using: &random)
        list.setMarked(id, marked)
        // Changed in place through the subscript, which changes nothing for a non-element.
        list[id]?.label += ""
        if let present {
          model[present].marked = marked
        }
      }
      #expect(list[id]?.label == model.first { $0.token == token }?.label)
      #expect(list.isEmpty == model.isEmpty)
      #expect(list.elements.map(\.label) == model.map(\.label))
      let marked = model.filter(\.marked).map(\.label)
      #expect(list.markedCount == marked.count)
      #expect(list.marked.prefix(5).map(\.label) == Array(marked.prefix(5)))
      #expect(list.prefix(3).map(\.label) == Array(model.prefix(3).map(\.label)))
    }
  }
}
