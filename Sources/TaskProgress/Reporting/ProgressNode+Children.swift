import Synchronization

extension ProgressNode {
  /// A node's children, in chunks of at most ``chunkSize``.
  ///
  /// A reader copies the list under the lock and reads the children without it. A child started
  /// while a reader holds its copy then copies the last chunk and the list of chunks, not every
  /// child: with a million children and frames at 60 Hz, a flat list was copied whole, a retain
  /// per child, on the first start after each frame.
  struct ChildList: Sendable {
    static let chunkSize = 1024
    /// The chunks, each full but the last.
    private(set) var chunks: [[ProgressNode]] = []
    /// The number of children.
    private(set) var count = 0

    mutating func append(_ child: ProgressNode) {
      if chunks.last.map({ $0.count >= ChildList.chunkSize }) ?? true {
        chunks.append([])  // grown as children come: most nodes have a few
      }
      chunks[chunks.count - 1].append(child)
      count += 1
    }

    /// Removes the finished children, keeping the order of the others.
    mutating func removeFinished() {
      var kept = ChildList()
      for chunk in chunks {
        for child in chunk where !child.isFinished {
          kept.append(child)
        }
      }
      self = kept
    }
  }

  /// Assigns `count` units to a subprogress that is not started yet.
  func assign(_ count: Int) {
    assignedToChildren.wrappingAdd(count, ordering: .relaxed)
    noteChange()
  }

  /// Starts a child that stands for `assigned` units of this node.
  func startChild(assigned: Int, totalCount: Int?) -> ProgressNode {
    let child = ProgressNode(parent: self, assigned: assigned, totalCount: totalCount)
    hasChildren.store(true, ordering: .releasing)
    shared.withLock { $0.append(child) }
    noteChange()
    if totalCount.map({ $0 <= 0 }) == true {
      child.finish()  // nothing to do: the share is complete at once
    }
    return child
  }

  /// Whether the node finished and handed its share to its parent.
  var isFinished: Bool {
    finished.load(ordering: .acquiring)
  }

  /// Finishes the node once: hands its assigned count to its parent and leaves the parent's
  /// fraction, in one step as the parent's readers see it; then the parent, if that completed
  /// it, and so on up, in a loop rather than a recursion, so that a chain of any depth finishes.
  @usableFromInline
  func finish() {
    var next: ProgressNode? = self
    while let node = next {
      next = node.finishOnce()
    }
  }

  /// Finishes this node once, without its ancestors.
  ///
  /// - Returns: The parent, when the share handed over completed it.
  private func finishOnce() -> ProgressNode? {
    guard !finished.load(ordering: .relaxed) else { return nil }
    guard let parent else {
      finished.store(true, ordering: .releasing)
      return nil
    }
    let claimed = parent.addShare(assigned) {
      finished.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    }
    return claimed && parent.isCompleteChild ? parent : nil
  }

  /// Adds a share of `count` units inside the version window, and finishes this node if that
  /// completes it: what a subprogress dropped without being started hands over.
  func handOver(_ count: Int) {
    if addShare(count, claim: { true }), isCompleteChild {
      finish()
    }
  }

  /// Adds a share of `count` units inside the version window, if `claim` says it is this
  /// caller's to add.
  ///
  /// - Returns: Whether the share was added.
  private func addShare(_ count: Int, claim: () -> Bool) -> Bool {
    version.wrappingAdd(ProgressWord.HandOver.opening, ordering: .acquiringAndReleasing)
    let claimed = claim()
    if claimed {
      words.added.wrappingAdd(count, ordering: .acquiringAndReleasing)
    }
    version.wrappingAdd(ProgressWord.HandOver.closing, ordering: .acquiringAndReleasing)
    if claimed {
      noteChange()
    }
    return claimed
  }

  /// Finishes a child whose count reached its total.
  @usableFromInline
  func finishIfComplete() {
    if isCompleteChild {
      finish()
    }
  }

  /// Whether this is an unfinished child whose count reached its total.
  private var isCompleteChild: Bool {
    guard isChild, !isFinished else { return false }
    // A few tries: a report caught half-way is over within nanoseconds. If another writer keeps
    // changing the total, the child still finishes by its later reports or when released.
    var pair: (total: ProgressWord, count: ProgressWord)?
    for _ in 0..<8 where pair == nil {
      pair = words.pair()
    }
    guard let (total, count) = pair else { return false }
    switch counts(total: total, count: count) {
    case .fraction(let fraction):
      return fraction >= 1
    case .counts(let completed, let total, implicit: false):
      return completed >= total
    case .counts(_, _, implicit: true), .zero, .indeterminate:
      return false  // no total: finishes when its reporters are released
    }
  }
}
