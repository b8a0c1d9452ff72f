/// Elements kept in the order they were appended, found by ID, with a hole where one was removed,
/// and some of them marked, found in the same order without going over the others.
///
/// Removing from the middle of an array would move every later element; a hole costs nothing.
/// The holes are closed once they are more than half of the slots, which costs at most twice the
/// removals since the last time: appending, removing and finding cost amortised O(1) whatever
/// the number of elements. Marking costs O(log m + m) for m marked elements: a group marks the
/// few members with a run under way among thousands waiting or done.
package struct SlotList<Element: Identifiable> {
  package typealias ID = Element.ID

  /// The elements in the order they were appended, `nil` where one was removed.
  private(set) var slots: [Element?] = []
  /// Where each element is in ``slots``.
  private var slotsByID: [ID: Int] = [:]
  /// The slots of the marked elements, ascending: in the order they were appended.
  private var markedSlots: [Int] = []

  /// An empty list.
  package init() {}

  /// How many elements the list holds.
  package var count: Int { slotsByID.count }

  /// Whether the list holds no element.
  package var isEmpty: Bool { slotsByID.isEmpty }

  /// How many elements are marked.
  package var markedCount: Int { markedSlots.count }

  /// Whether an element with this ID is in the list.
  package func contains(_ id: ID) -> Bool {
    slotsByID[id] != nil
  }

  /// The place of the element `id` in ``slots``, until the holes are closed.
  package func slot(of id: ID) -> Int? {
    slotsByID[id]
  }

  /// The element `id`, if it is in the list; it is changed in place, and setting `nil` is not
  /// a removal: use ``remove(_:)``.
  package subscript(id: ID) -> Element? {
    get { slotsByID[id].flatMap { slots[$0] } }
    _modify {
      guard let slot = slotsByID[id] else {
        var absent: Element? = nil
        yield &absent  // what is set is dropped: setting an element adds nothing
        return
      }
      yield &slots[slot]
      precondition(slots[slot] != nil, "SlotList: remove elements with remove(_:)")
    }
  }

  /// Appends `element`, `marked` or not; returns `false`, and changes nothing, when its ID is in
  /// the list.
  @discardableResult
  package mutating func append(_ element: Element, marked: Bool = false) -> Bool {
    guard slotsByID[element.id] == nil else { return false }
    slotsByID[element.id] = slots.count
    if marked {
      markedSlots.append(slots.count)
    }
    slots.append(element)
    return true
  }

  /// Marks the element `id`, or takes its mark away; does nothing when it is not in the list.
  package mutating func setMarked(_ id: ID, _ marked: Bool) {
    guard let slot = slotsByID[id] else { return }
    let index = markedSlots.partitioningIndex { $0 >= slot }
    let isMarked = index < markedSlots.count && markedSlots[index] == slot
    if marked && !isMarked {
      markedSlots.insert(slot, at: index)
    } else if !marked && isMarked {
      markedSlots.remove(at: index)
    }
  }

  /// Removes the element `id`, and returns it, or `nil` when it is not in the list.
  @discardableResult
  package mutating func remove(_ id: ID) -> Element? {
    guard let slot = slotsByID.removeValue(forKey: id) else { return nil }
    let element = slots[slot]
    slots[slot] = nil
    let index = markedSlots.partitioningIndex { $0 >= slot }
    if index < markedSlots.count && markedSlots[index] == slot {
      markedSlots.remove(at: index)
    }
    if slots.count > 16 && slotsByID.count < slots.count / 2 {
      compact()
    }
    return element
  }

  /// Moves the elements together, leaving no holes; the marked ones stay marked, in order.
  private mutating func compact() {
    var newSlots = [Int](repeating: 0, count: slots.count)
    var next = 0
    for (slot, element) in slots.enumerated() {
      guard let element else { continue }
      newSlots[slot] = next
      slotsByID[element.id] = next
      next += 1
    }
    slots.removeAll { $0 == nil }
    for index in markedSlots.indices {
      markedSlots[index] = newSlots[markedSlots[index]]
    }
  }

  /// The elements, in the order they were appended.
  package var elements: [Element] {
    slots.compactMap { $0 }
  }

  /// The first `count` elements, in the order they were appended: it goes over as many holes
  /// as there are elements at most.
  package func prefix(_ count: Int) -> [Element] {
    var first: [Element] = []
    first.reserveCapacity(min(count, self.count))
    for case let element? in slots {
      guard first.count < count else { break }
      first.append(element)
    }
    return first
  }

  /// The marked elements, in the order they were appended.
  package var marked: some Sequence<Element> {
    markedSlots.lazy.map { self.slots[$0]! }
  }
}

extension SlotList: Sendable where Element: Sendable, ID: Sendable {}
