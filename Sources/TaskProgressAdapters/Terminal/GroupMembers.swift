import TaskProgress

/// The members of a group as ``TerminalGroupRenderer`` draws them: in the order they joined,
/// found by ID, and those with a run under way kept apart in the same order.
///
/// A group may hold tens of thousands of runners, most of them waiting or done, while only a few
/// have bars on the screen. Joining, leaving and changing a member cost amortised O(1) whatever
/// the number of members, and the members with a run are read without going over the others, so
/// that the renderer's work follows what changed and what is drawn.
struct GroupMembers {
  /// A member of the group, as drawn.
  struct Member {
    let id: ObjectIdentifier
    /// The member's label, on one line.
    let label: String
    /// The member's run and latest update, while a run is under way: in a box that only such
    /// members have, so that the thousands of a queue waiting or done are a few words each, and
    /// a member moves or is copied without its run's hundreds of bytes.
    private var live: Live?

    /// A member with no run under way.
    init(id: ObjectIdentifier, label: String) {
      self.id = id
      self.label = label
    }

    /// A member with `run` under way, as of `latest`, or with none.
    init(id: ObjectIdentifier, label: String, latest: ProgressUpdate, run: RunLines?) {
      self.init(id: id, label: label)
      live = run.map { Live(latest: latest, run: $0) }
    }

    /// The member's run, while one is under way.
    var run: RunLines? { live?.run }

    /// The latest update of the member's run under way.
    var latest: ProgressUpdate? { live?.latest }

    /// Sets the member's run under way and its latest update.
    mutating func setRun(_ run: RunLines, latest: ProgressUpdate) {
      // Checked before a second reference is bound: a copy of the member shares the box.
      if isKnownUniquelyReferenced(&live), let live {
        live.run = run
        live.latest = latest
      } else {
        live = Live(latest: latest, run: run)
      }
    }

    /// Ends the member's run under way, if any.
    mutating func endRun() {
      live = nil
    }

    /// A run under way and its latest update.
    private final class Live {
      var latest: ProgressUpdate
      var run: RunLines

      init(latest: ProgressUpdate, run: RunLines) {
        self.latest = latest
        self.run = run
      }
    }
  }

  /// The members in the order they joined, with a hole where one left: removing from the middle
  /// of an array would move every later member and renumber it.
  private var slots: [Member?] = []
  /// Where each member is in `slots`.
  private var slotsByID: [ObjectIdentifier: Int] = [:]
  /// The slots of the members with a run under way, ascending, so in the order they joined.
  ///
  /// As many as there are bars: a queue of thousands runs a few at a time.
  private var runSlots: [Int] = []

  /// Whether the group has no members.
  var isEmpty: Bool { slotsByID.isEmpty }

  /// How many members have a run under way.
  var runCount: Int { runSlots.count }

  /// The member `id`, if it is in the group; setting it changes the member in place, never
  /// adds one, and setting `nil` removes it.
  subscript(id: ObjectIdentifier) -> Member? {
    get { slotsByID[id].flatMap { slots[$0] } }
    _modify {
      guard let slot = slotsByID[id] else {
        var absent: Member? = nil
        yield &absent  // what is set is dropped: setting a member adds nothing
        return
      }
      // In place: a member with its latest update and its lines is hundreds of bytes, and the
      // renderer changes one on every update of a run.
      let hadRun = slots[slot]?.run != nil
      yield &slots[slot]
      if slots[slot] == nil {
        slotsByID.removeValue(forKey: id)
      }
      noteRun(at: slot, had: hadRun)
    }
  }

  /// Changes the member `id` in place, if it is one, with one lookup; returns whether it is.
  @discardableResult
  mutating func modify(_ id: ObjectIdentifier, _ body: (inout Member) -> Void) -> Bool {
    guard let slot = slotsByID[id], slots[slot] != nil else { return false }
    let hadRun = slots[slot]?.run != nil
    body(&slots[slot]!)
    noteRun(at: slot, had: hadRun)
    return true
  }

  /// Keeps the slots with a run in order after the member in `slot` changed, when it `had` one
  /// before.
  private mutating func noteRun(at slot: Int, had hadRun: Bool) {
    switch (hadRun, slots[slot]?.run != nil) {
    case (false, true): runSlots.insert(slot, at: runSlots.insertionIndex(of: slot))
    case (true, false): runSlots.remove(at: runSlots.insertionIndex(of: slot))
    default: break
    }
  }

  /// Adds `member` after the others; returns `false`, and changes nothing, when a member with
  /// its ID is in the group already.
  mutating func append(_ member: Member) -> Bool {
    guard slotsByID[member.id] == nil else { return false }
    slotsByID[member.id] = slots.count
    slots.append(member)
    if member.run != nil {
      runSlots.append(slots.count - 1)
    }
    return true
  }

  /// Removes the member `id`; returns whether it was in the group.
  mutating func remove(_ id: ObjectIdentifier) -> Bool {
    guard let slot = slotsByID.removeValue(forKey: id) else { return false }
    if slots[slot]?.run != nil {
      runSlots.remove(at: runSlots.insertionIndex(of: slot))
    }
    slots[slot] = nil
    // Closing the holes once they are more than half of the slots costs at most twice the
    // removals since the last time: O(1) for each, amortised.
    if slotsByID.count < slots.count / 2 {
      compact()
    }
    return true
  }

  /// The first `count` members with a run under way, in the order they joined.
  func withRuns(prefix count: Int) -> [Member] {
    runSlots.prefix(count).compactMap { slots[$0] }
  }

  /// Moves the members together, leaving no holes.
  private mutating func compact() {
    let members = slots.compactMap { $0 }
    slots = members
    runSlots.removeAll(keepingCapacity: true)
    for (slot, member) in members.enumerated() {
      slotsByID[member.id] = slot
      if member.run != nil {
        runSlots.append(slot)
      }
    }
  }
}

extension [Int] {
  /// The index of the first element not less than `value`, in this ascending array.
  fileprivate func insertionIndex(of value: Int) -> Int {
    partitioningIndex { $0 >= value }
  }
}
