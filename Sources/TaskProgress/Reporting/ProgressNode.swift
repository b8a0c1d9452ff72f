// `public` because the reporter's inlinable fast path stores into an `Atomic` from client code.
public import Synchronization

/// One reporter's progress: a run's own reporter, a started child, or a standalone reporter.
///
/// Reporting writes the node's ``words`` without a lock and without allocating; ``ProgressWord``
/// says how a report is encoded in them. A node's children are read when the node is: the
/// runner's frames read the run's root, and a standalone reporter is read when a test asks for its
/// ``TaskRunner/Reporter/progress``. A child that finishes adds its assigned count to its
/// parent's added units and marks itself finished, inside the parent's ``version`` window; a
/// reader that saw the window move reads again, so it counts each child's share once, in the
/// fraction or in the count.
///
/// The lock, ``shared``, guards what is off the reporting path: the children and a wide total.
/// What runs under it is a method of ``Shared``, given the ``Words`` and nothing that locks, so
/// no path takes the lock twice; and the lock is never held while a child is read.
@usableFromInline
final class ProgressNode: Sendable {
  /// What a report writes.
  @usableFromInline let words = Words()
  /// Units under way beyond the completed count, as a `Double`'s bits.
  ///
  /// They are what a mirrored source with children of its own has done of its unfinished
  /// children. Only a ``ProgressSource`` writes them, on the frames that read the node; they
  /// count while the node reports counts.
  let inFlight = Atomic<UInt64>(0)
  /// Whether a child was ever started: a leaf is read without taking its lock.
  let hasChildren = Atomic<Bool>(false)
  /// What every reporter of the run shares: cancellation and checkpoint pacing.
  @usableFromInline let signals: RunSignals
  /// Whether the node has a parent to hand its share to when it finishes.
  @usableFromInline let isChild: Bool
  /// The parent, while it lives; a finished parent no longer needs its children's shares.
  weak let parent: ProgressNode?
  /// The count this node stands for in its parent.
  let assigned: Int
  /// Whether the node finished and handed its share to its parent.
  let finished = Atomic<Bool>(false)
  /// The counts assigned to this node's subprogresses: its total while it has none of its own.
  let assignedToChildren = Atomic<Int>(0)
  /// Children handing their shares over, as ``ProgressWord/HandOver`` packs them.
  let version = Atomic<UInt64>(0)
  /// What is off the reporting path: the children, and a total too large for the words.
  let shared = Locked(Shared())

  /// The atomics a report writes, and nothing that locks.
  @usableFromInline
  struct Words: ~Copyable, Sendable {
    /// The total or the mode, a ``ProgressWord``.
    @usableFromInline let totalWord = Atomic<UInt64>(ProgressWord.neverGivenMode)
    /// The completed count's base or a fraction, a ``ProgressWord`` of the total word's
    /// generation.
    @usableFromInline let countWord = Atomic<UInt64>(0)
    /// What `complete(count:)` and finished children added since the node began.
    ///
    /// The completed count is `base + added`, so that `report(completed:of:)` replaces the whole
    /// count, shares included, with a load and a store, and `complete(count:)` is one atomic add.
    @usableFromInline let added = Atomic<Int>(0)
    /// The completed count's base while the words hold none (a fraction, an indeterminate report
    /// without a count, wide counts), so that the count survives them.
    let savedBase = Atomic<Int>(0)

    /// The base that stands for a completed count now.
    @inlinable
    @inline(__always)
    func base(for completed: Int) -> Int {
      completed &- added.load(ordering: .relaxed)
    }

    /// Adds completed units: one atomic add.
    @inlinable
    @inline(__always)
    func add(_ count: Int) {
      added.wrappingAdd(count, ordering: .relaxed)
    }

    /// Stores a report: the total word when it changed (with a new generation), then the count.
    @inlinable
    @inline(__always)
    func write(total: UInt64, count: UInt64) {
      var word = ProgressWord(rawValue: totalWord.load(ordering: .relaxed))
      if word.payload != total {
        word = changeTotal(from: word, to: total)
      }
      countWord.store(word.with(payload: count).rawValue, ordering: .releasing)
    }

    /// Stores a new total or mode with the next generation, first saving the base if the new mode
    /// holds none; returns the new total word.
    @usableFromInline
    func changeTotal(from current: ProgressWord, to total: UInt64) -> ProgressWord {
      let next = current.next(payload: total)
      if next.mode.savesBase,
        let base = ProgressWord.base(
          total: current, count: ProgressWord(rawValue: countWord.load(ordering: .acquiring)))
      {
        savedBase.store(base, ordering: .relaxed)
      }
      totalWord.store(next.rawValue, ordering: .releasing)
      return next
    }

    /// Reads the total and count words as a pair of one generation; `nil` if a report was caught
    /// half-way.
    ///
    /// With `settled`, a pair of different generations that reads the same twice is taken as it
    /// is: two tasks reporting different totals at once can leave the count of one beside the
    /// total of the other until the next report, and a reader must not wait for that report.
    func pair(settled: Bool = false) -> (total: ProgressWord, count: ProgressWord)? {
      let total = totalWord.load(ordering: .acquiring)
      let count = countWord.load(ordering: .acquiring)
      let again = totalWord.load(ordering: .acquiring)
      let pair = (ProgressWord(rawValue: total), ProgressWord(rawValue: count))
      if again == total, pair.0.isSameGeneration(as: pair.1) {
        return pair
      }
      guard settled, again == total, countWord.load(ordering: .acquiring) == count,
        totalWord.load(ordering: .acquiring) == total
      else { return nil }
      return pair
    }

    /// The completed count's base now, in the words or saved: what a new total keeps.
    func currentBase() -> Int {
      let total = ProgressWord(rawValue: totalWord.load(ordering: .acquiring))
      let count = ProgressWord(rawValue: countWord.load(ordering: .acquiring))
      return ProgressWord.base(total: total, count: count) ?? savedBase.load(ordering: .relaxed)
    }

    /// The completed count of a base just read, with the units added so far.
    func completed(base: Int) -> Int {
      // Loaded after the base: at least what its writer loaded, so the count is never below
      // the one it reported.
      ProgressWord.completed(base: base, added: added.load(ordering: .acquiring))
    }
  }

  /// The part of a node behind the lock; its methods reach nothing that locks.
  struct Shared: Sendable {
    /// The started children not seen finished yet, in the order they started; pruned of
    /// finished ones as they are read or added to.
    var children: [ProgressNode] = []
    /// The count after the last pruning: adding prunes again once the list doubles.
    var prunedCount = 0
    /// In wide mode, the total (`nil` when indeterminate); the base is the saved one.
    var wideTotal: Int?

    /// Stores counts: in the words when they fit, else as wide counts.
    mutating func store(base: Int, total: Int?, in words: borrowing Words) {
      let totalPayload =
        total.map(ProgressWord.payload(total:)) ?? ProgressWord.indeterminateCountingMode
      if let totalPayload, let count = ProgressWord.payload(base: base) {
        words.write(total: totalPayload, count: count)
      } else {
        wideTotal = total
        words.write(total: ProgressWord.wideMode, count: 0)
        // After the mode change, which saved the words' base: readers of wide counts take the
        // lock, so they see this one.
        words.savedBase.store(base, ordering: .relaxed)
      }
    }

    /// The wide counts.
    func wide(_ words: borrowing Words) -> (base: Int, total: Int?) {
      (words.savedBase.load(ordering: .relaxed), wideTotal)
    }

    /// Adds a child, first pruning finished ones if the list doubled since the last pruning.
    mutating func append(_ child: ProgressNode) {
      if children.count >= 2 * prunedCount + 8 {
        pruneFinished()
      }
      children.append(child)
    }

    /// Drops the finished children: reading one costs a load of its flag, not a walk.
    mutating func pruneFinished() {
      children.removeAll { $0.isFinished }
      prunedCount = children.count
    }
  }

  /// How many times a reader tries for a consistent reading before it gives up for this frame.
  static let readAttempts = 64

  /// Creates a root: a run's own reporter, or a standalone one.
  init(signals: RunSignals) {
    self.signals = signals
    self.isChild = false
    self.parent = nil
    self.assigned = 0
  }

  /// Creates a child of `parent` that stands for `assigned` of its units.
  private init(parent: ProgressNode, assigned: Int, totalCount: Int?) {
    self.signals = parent.signals
    self.isChild = true
    self.parent = parent
    self.assigned = assigned
    if let totalCount {
      setTotal(totalCount)
    }
  }

  // MARK: - Writing

  /// Stores counts that do not fit the words, under the lock.
  @usableFromInline
  func storeWide(base: Int, total: Int?) {
    shared.withLock { $0.store(base: base, total: total, in: words) }
  }

  /// Sets the total and keeps the completed count (`nil`: indeterminate, keeping the count),
  /// beyond the total too: the total may grow again.
  ///
  /// Under the lock, so that callers changing the total at once from several tasks store each
  /// pair of words whole.
  func setTotal(_ total: Int?) {
    let total = total.map { max($0, 0) }
    shared.withLock { $0.store(base: words.currentBase(), total: total, in: words) }
    finishIfComplete()
  }

  // MARK: - Children

  /// Assigns `count` units to a subprogress that is not started yet.
  func assign(_ count: Int) {
    assignedToChildren.wrappingAdd(count, ordering: .relaxed)
  }

  /// Starts a child that stands for `assigned` units of this node.
  func startChild(assigned: Int, totalCount: Int?) -> ProgressNode {
    let child = ProgressNode(parent: self, assigned: assigned, totalCount: totalCount)
    hasChildren.store(true, ordering: .releasing)
    shared.withLock { $0.append(child) }
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
  /// fraction, in one step as the parent's readers see it.
  @usableFromInline
  func finish() {
    guard !finished.load(ordering: .relaxed) else { return }
    guard let parent else {
      finished.store(true, ordering: .releasing)
      return
    }
    parent.handOver(assigned) {
      finished.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    }
  }

  /// Adds a share of `count` units inside the version window, if `claim` says it is this
  /// caller's to add, and finishes this node if that completes it.
  func handOver(_ count: Int, claim: () -> Bool = { true }) {
    version.wrappingAdd(ProgressWord.HandOver.opening, ordering: .acquiringAndReleasing)
    let claimed = claim()
    if claimed {
      words.added.wrappingAdd(count, ordering: .acquiringAndReleasing)
    }
    version.wrappingAdd(ProgressWord.HandOver.closing, ordering: .acquiringAndReleasing)
    if claimed {
      finishIfComplete()
    }
  }

  /// Finishes a child whose count reached its total.
  @usableFromInline
  func finishIfComplete() {
    guard isChild, !isFinished else { return }
    // A few tries: a report caught half-way is over within nanoseconds. If another writer keeps
    // changing the total, the child still finishes by its later reports or when released.
    var pair: (total: ProgressWord, count: ProgressWord)?
    for _ in 0..<8 where pair == nil {
      pair = words.pair()
    }
    guard let (total, count) = pair else { return }
    switch counts(total: total, count: count) {
    case .fraction(let fraction):
      if fraction >= 1 { finish() }
    case .counts(let completed, let total, implicit: false):
      if completed >= total { finish() }
    case .counts(_, _, implicit: true), .zero, .indeterminate:
      return  // no total: finishes when its reporters are released
    }
  }

  // MARK: - Reading

  /// The node's progress now: its counts, and its unfinished children's fractions weighted by
  /// their assigned counts; `nil` when writers kept it from a consistent reading.
  func read(attempts: Int = ProgressNode.readAttempts) -> RunProgress? {
    for attempt in 0..<attempts {
      let before = version.load(ordering: .acquiring)
      guard ProgressWord.HandOver.isQuiet(before),
        let (total, count) = words.pair(settled: attempt >= attempts / 2)
      else { continue }
      // A child that could not be read already spent its own attempts: give up at once, so
      // that retries do not multiply with the depth of the tree.
      guard let progress = progress(total: total, count: count) else { return nil }
      if version.load(ordering: .acquiring) == before {
        return progress
      }
    }
    return nil
  }

  /// A reading even if writers race it: what the last report of an ended run is read with, after
  /// a consistent reading failed.
  func readAnyway() -> RunProgress {
    if let progress = read() { return progress }
    let total = ProgressWord(rawValue: words.totalWord.load(ordering: .acquiring))
    let count = ProgressWord(rawValue: words.countWord.load(ordering: .acquiring))
    return progress(total: total, count: count, childrenAnyway: true) ?? .zero
  }

  /// What a pair of words says, before the children are read.
  private enum Counts {
    /// Nothing reported, nothing assigned.
    case zero
    case fraction(Double)
    case indeterminate(completed: Int?)
    /// `completed` unclamped; `implicit` when the total is the counts assigned to children.
    case counts(completed: Int, total: Int, implicit: Bool)
  }

  private func counts(total word: ProgressWord, count: ProgressWord) -> Counts {
    switch word.mode {
    case .fraction:
      return .fraction(count.fraction)
    case .indeterminate:
      return .indeterminate(completed: nil)
    case .indeterminateCounting:
      return .indeterminate(completed: words.completed(base: count.base))
    case .total(let total):
      return .counts(completed: words.completed(base: count.base), total: total, implicit: false)
    case .wide:
      let wide = shared.withLock { $0.wide(words) }
      let completed = words.completed(base: wide.base)
      guard let total = wide.total else { return .indeterminate(completed: completed) }
      return .counts(completed: completed, total: total, implicit: false)
    case .neverGiven:
      let completed = words.completed(base: 0)
      let assigned = ProgressWord.saturated(assignedToChildren.load(ordering: .acquiring))
      if assigned > 0 {
        return .counts(completed: completed, total: assigned, implicit: true)
      }
      return completed == 0 ? .zero : .indeterminate(completed: completed)
    }
  }

  private func progress(
    total: ProgressWord, count: ProgressWord, childrenAnyway: Bool = false
  ) -> RunProgress? {
    switch counts(total: total, count: count) {
    case .zero:
      return .zero
    case .fraction(let fraction):
      return RunProgress(fractionCompleted: fraction)
    case .indeterminate(let completed):
      return .indeterminate(completed: completed)
    case .counts(let completed, let total, _):
      guard total > 0 else { return RunProgress(completed: 0, of: 0) }
      guard let shares = childShares(anyway: childrenAnyway) else { return nil }
      let counted = min(completed, total)
      let inFlight = min(
        Double(bitPattern: self.inFlight.load(ordering: .acquiring)), Double(total - counted))
      let fraction = (Double(counted) + shares + inFlight) / Double(total)
      return RunProgress(fractionCompleted: fraction, completed: counted, of: total)
    }
  }

  /// The sum of the unfinished children's assigned counts times their fractions, in the order
  /// they started; prunes finished children.
  ///
  /// The lock is held to copy the list and to prune it, never while a child is read.
  private func childShares(anyway: Bool) -> Double? {
    guard hasChildren.load(ordering: .acquiring) else { return 0 }
    let children = shared.withLock { $0.children }
    var sum = 0.0
    var passedFinished = false
    defer {  // drop the finished children passed over, even when giving up half-way
      if passedFinished { shared.withLock { $0.pruneFinished() } }
    }
    for child in children {
      guard !child.isFinished else {
        passedFinished = true
        continue
      }
      guard let progress = anyway ? child.readAnyway() : child.read() else { return nil }
      sum += Double(child.assigned) * min(progress.fractionCompleted ?? 0, 1)
    }
    return sum
  }
}

/// Ends a started child when the last copy of its reporter goes away.
final class ChildLifetime: Sendable {
  let node: ProgressNode

  init(_ node: ProgressNode) {
    self.node = node
  }

  deinit {
    node.finish()  // released before it finished: its share counts as done
  }
}
