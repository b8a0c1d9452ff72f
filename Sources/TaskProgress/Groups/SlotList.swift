/// Elements kept in the order they were appended, found by ID, with a hole where one was removed.
///
/// Removing from the middle of an array would move every later element; a hole costs nothing.
/// The holes are closed once they are more than half of the slots, which costs at most twice the
/// removals since the last time: appending, removing and finding cost amortised O(1) whatever
/// the number of elements.
package struct SlotList<Element: Identifiable> {
  package typealias ID = Element.ID

  /// The elements in the order they were appended, `nil` where one was removed.
  private(set) var slots: [Element?] = []
  /// Where each element is in ``slots``.
  private var slotsByID: [ID: Int] = [:]

  /// An empty list.
  package init() {}

  /// How many elements the list holds.
  package var count: Int { slotsByID.count }

  /// Whether the list holds no element.
  package var isEmpty: Bool { slotsByID.isEmpty }

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

  /// Appends `element`; returns `false`, and changes nothing, when its ID is in the list.
  @discardableResult
  package mutating func append(_ element: Element) -> Bool {
    guard slotsByID[element.id] == nil else { return false }
    slotsByID[element.id] = slots.count
    slots.append(element)
    return true
  }

  /// Removes the element `id`, and returns it, or `nil` when it is not in the list.
  @discardableResult
  package mutating func remove(_ id: ID) -> Element? {
    guard let slot = slotsByID.removeValue(forKey: id) else { return nil }
    let element = slots[slot]
    slots[slot] = nil
    if slots.count > 16 && slotsByID.count < slots.count / 2 {
      slots.removeAll { $0 == nil }
      for (slot, element) in slots.enumerated() {
        slotsByID[element!.id] = slot
      }
    }
    return element
  }

  /// The elements, in the order they were appended.
  package var elements: [Element] {
    slots.compactMap { $0 }
  }
}
