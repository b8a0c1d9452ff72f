// `public` because the reporter's inlinable fast path stores into an `Atomic` from client code.
public import Synchronization

/// One reporter's progress: a run's own reporter, a started child, or a standalone reporter.
///
/// Reporting writes a node without a lock and without allocating:
///
/// - ``totalWord`` holds the total, or a mode: never given, indeterminate, or a bare fraction.
/// - ``countWord`` holds the completed count as a *base*, the count minus ``added`` when it was
///   reported, or a fraction's bit pattern.
/// - ``added`` is what ``TaskRunner/Reporter/complete(count:)`` and the shares of finished
///   children add: one atomic add. The completed count is `base + added`, so that
///   `report(completed:of:)` replaces the whole count, shares included, with a load and a store.
///
/// Both words carry a two-bit generation in their top bits, which changes when the total does.
/// A report with an unchanged total is one store of ``countWord``; a new total is stored first,
/// then the count with the new generation, so a reader that sees a count and a total of
/// different generations knows it caught a report half-way and reads again. A total takes 62
/// bits, so counts up to 2^62 stay lock-free, as cheap as small ones; that is why the pair is not
/// an `Atomic<WordPair>`, whose store and load cost a `cmpxchg16b` (about 20 ns on x86-64).
///
/// A node's children are read when the node is: the runner's frames read the run's root, and a
/// standalone reporter is read when a test asks for its ``TaskRunner/Reporter/progress``. A
/// child that finishes adds its assigned count to its parent's ``added`` and marks itself
/// finished, inside the parent's ``version`` window; a reader that saw the window move reads
/// again, so it counts each child's share once, in the fraction or in the count.
@usableFromInline
final class ProgressNode: Sendable {
  /// The total or the mode, with the generation in the top two bits.
  @usableFromInline let totalWord: Atomic<UInt64>
  /// The base of the completed count, or a fraction's bits, with the generation.
  @usableFromInline let countWord: Atomic<UInt64>
  /// What `complete(count:)` and finished children added since the node began.
  @usableFromInline let added = Atomic<Int>(0)
  /// The completed count's base while the words hold none (after a fraction or a count-less
  /// indeterminate report), so that the count survives them; written only when the mode changes.
  let savedBase = Atomic<Int>(0)
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
  /// Children finishing: in-progress hand-overs in the low 32 bits, completed ones above.
  let version = Atomic<UInt64>(0)
  /// What is not on the reporting path: the children, and counts too large for the words.
  let shared = Locked(Shared())

  /// The part of a node behind a lock.
  struct Shared: Sendable {
    /// The started children not seen finished yet, in the order they started; pruned of
    /// finished ones as they are read or added to.
    var children: [ProgressNode] = []
    /// The count after the last pruning: adding prunes again once the list doubles.
    var prunedCount = 0
    /// In ``ProgressNode/wideMode``: the completed count's base and the total (`nil` when
    /// indeterminate), which do not fit in the words.
    var wide: (base: Int, total: Int?) = (0, nil)
  }

  // MARK: - Encoding

  @usableFromInline static let generationMask: UInt64 = 0b11 << 62
  @usableFromInline static let generationOne: UInt64 = 1 << 62
  @usableFromInline static let payloadMask: UInt64 = (1 << 62) - 1
  // Every constant below is a literal, so that the reporter's inlined fast path, in the client's
  // module, reads it as an immediate: a `static let` computed by a call, such as
  // `Int(clamping:)`, is initialised lazily, and each report would check that it was (about a
  // nanosecond per report, measured by progress-bench (d)).

  /// Counts and totals below this are kept in the words; larger ones take a lock.
  ///
  /// Where `Int` has 32 bits, every count but `Int.max` fits.
  #if _pointerBitWidth(_32)
  @usableFromInline static let countLimit = Int.max
  #else
  @usableFromInline static let countLimit = (1 << 62) - 8
  #endif
  /// The total word's payloads that are modes rather than totals: 2^62 - 8 and up, whatever the
  /// width of `Int`.
  @usableFromInline static let fractionMode: UInt64 = (1 << 62) - 8
  @usableFromInline static let indeterminateCountingMode: UInt64 = (1 << 62) - 7
  @usableFromInline static let indeterminateMode: UInt64 = (1 << 62) - 6
  @usableFromInline static let neverGivenMode: UInt64 = (1 << 62) - 5
  /// The counts are too large for the words and wait in ``Shared/wide``.
  static let wideMode: UInt64 = (1 << 62) - 4

  /// How many times a reader tries for a consistent reading before it gives up for this frame.
  static let readAttempts = 64

  /// Creates a root: a run's own reporter, or a standalone one.
  init(signals: RunSignals) {
    self.signals = signals
    self.isChild = false
    self.parent = nil
    self.assigned = 0
    totalWord = Atomic(ProgressNode.neverGivenMode)
    countWord = Atomic(0)
  }

  /// Creates a child of `parent` that stands for `assigned` of its units.
  private init(parent: ProgressNode, assigned: Int, totalCount: Int?) {
    self.signals = parent.signals
    self.isChild = true
    self.parent = parent
    self.assigned = assigned
    totalWord = Atomic(ProgressNode.neverGivenMode)
    countWord = Atomic(0)
    if let totalCount {
      setTotal(totalCount)
    }
  }

  // MARK: - Writing

  /// Stores a report: the total word when it changed (with a new generation), then the count.
  @inlinable
  @inline(__always)
  func write(total: UInt64, count: UInt64) {
    let current = totalWord.load(ordering: .relaxed)
    var generation = current & ProgressNode.generationMask
    if current & ProgressNode.payloadMask != total {
      generation = changeTotal(from: current, to: total)
    }
    countWord.store(generation | count, ordering: .releasing)
  }

  /// Stores a new total or mode with the next generation, first keeping the completed count's
  /// base when the new mode holds no count; returns the new generation.
  @usableFromInline
  func changeTotal(from current: UInt64, to total: UInt64) -> UInt64 {
    if !ProgressNode.holdsCount(total), ProgressNode.holdsCount(current & ProgressNode.payloadMask)
    {
      let added = self.added.load(ordering: .relaxed)
      let count = countWord.load(ordering: .relaxed)
      let completed = self.completed(mode: current, count: count, added: added)
      savedBase.store(completed &- added, ordering: .relaxed)
    }
    let generation = (current & ProgressNode.generationMask) &+ ProgressNode.generationOne
    totalWord.store(generation | total, ordering: .releasing)
    return generation
  }

  /// Whether the count word holds a count in `mode` (not a fraction, not nothing).
  static func holdsCount(_ mode: UInt64) -> Bool {
    mode != fractionMode && mode != indeterminateMode
  }

  /// The count word's payload for a completed count: the count minus what was added so far.
  @inlinable
  @inline(__always)
  func base(for completed: Int) -> UInt64 {
    ProgressNode.payload(base: completed &- added.load(ordering: .relaxed))
  }

  /// A base as the count word holds it: modulo 2^62.
  @inlinable
  @inline(__always)
  static func payload(base: Int) -> UInt64 {
    UInt64(bitPattern: Int64(base)) & payloadMask
  }

  /// Stores counts too large for the words, or an indeterminate count, under the lock.
  @usableFromInline
  func storeWide(completed: Int, total: Int?) {
    storeWide(base: completed &- added.load(ordering: .relaxed), total: total)
  }

  private func storeWide(base: Int, total: Int?) {
    shared.withLock { storeWide(base: base, total: total, in: &$0) }
  }

  /// Stores wide counts, the lock held: the words and the wide counts change in the same order.
  private func storeWide(base: Int, total: Int?, in shared: inout Shared) {
    shared.wide = (base, total)
    write(total: ProgressNode.wideMode, count: 0)
  }

  /// Sets the total and keeps the completed count (`nil`: indeterminate, keeping the count).
  ///
  /// Under the lock, so that callers changing the total at once from several tasks store each
  /// pair of words whole.
  func setTotal(_ total: Int?) {
    let total = total.map { max($0, 0) }
    shared.withLock { shared in
      let added = self.added.load(ordering: .relaxed)
      let mode = totalWord.load(ordering: .relaxed)
      // Kept whole, beyond the total too: the total may grow again.
      let count = countWord.load(ordering: .relaxed)
      let completed = self.completed(mode: mode, count: count, added: added, wide: shared.wide)
      let base = completed &- added
      if let total, total < ProgressNode.countLimit, completed < ProgressNode.countLimit {
        write(total: UInt64(total), count: ProgressNode.payload(base: base))
      } else if total == nil, completed < ProgressNode.countLimit {
        write(
          total: ProgressNode.indeterminateCountingMode, count: ProgressNode.payload(base: base))
      } else {
        storeWide(base: base, total: total, in: &shared)
      }
    }
    finishIfComplete()
  }

  /// Adds completed units: one atomic add.
  @inlinable
  @inline(__always)
  func add(_ count: Int) {
    added.wrappingAdd(count, ordering: .relaxed)
  }

  /// The completed count that a total word and a count word hold, given `added`, never
  /// negative; `wide` when the caller read the wide counts already, else they are read under the
  /// lock.
  private func completed(
    mode word: UInt64, count: UInt64, added: Int, wide: (base: Int, total: Int?)? = nil
  ) -> Int {
    switch word & ProgressNode.payloadMask {
    case ProgressNode.fractionMode, ProgressNode.indeterminateMode:
      // Wrapping: the base was taken as the count minus `added` then, wrapping too, so the sum
      // is exact whenever the count itself fits in an Int.
      return max(savedBase.load(ordering: .relaxed) &+ added, 0)
    case ProgressNode.neverGivenMode:
      // Nothing replaced the count yet: it is what was added, exactly, at any magnitude.
      return max(added, 0)
    case ProgressNode.wideMode:
      let base = wide?.base ?? shared.withLock { $0.wide.base }
      return max(base &+ added, 0)
    default:
      return ProgressNode.completed(base: count & ProgressNode.payloadMask, added: added)
    }
  }

  /// The completed count read as base plus added, modulo 2^62.
  static func completed(base word: UInt64, added: Int) -> Int {
    // Truncating: where `Int` has 32 bits, a count that fits in it is the low bits of the sum.
    Int(truncatingIfNeeded: (word &+ UInt64(bitPattern: Int64(added))) & payloadMask)
  }

  /// Reads the total and count words as a pair of one generation; `nil` if a report was caught
  /// half-way.
  ///
  /// With `settled`, a pair of different generations that reads the same twice is taken as it
  /// is: two tasks reporting different totals at once can leave the count of one beside the total
  /// of the other until the next report, and a reader must not wait for that report.
  private func words(settled: Bool = false) -> (total: UInt64, count: UInt64)? {
    let total = totalWord.load(ordering: .acquiring)
    let count = countWord.load(ordering: .acquiring)
    let again = totalWord.load(ordering: .acquiring)
    if again == total, total & ProgressNode.generationMask == count & ProgressNode.generationMask {
      return (total, count)
    }
    guard settled, again == total, countWord.load(ordering: .acquiring) == count,
      totalWord.load(ordering: .acquiring) == total
    else { return nil }
    return (total, count)
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
    shared.withLock { shared in
      if shared.children.count >= 2 * shared.prunedCount + 8 {
        shared.children.removeAll { $0.isFinished }
        shared.prunedCount = shared.children.count
      }
      shared.children.append(child)
    }
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
    version.wrappingAdd(1, ordering: .acquiringAndReleasing)
    let claimed = claim()
    if claimed {
      added.wrappingAdd(count, ordering: .acquiringAndReleasing)
    }
    version.wrappingAdd((1 << 32) - 1, ordering: .acquiringAndReleasing)
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
    var pair: (total: UInt64, count: UInt64)?
    for _ in 0..<8 where pair == nil {
      pair = words()
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
      guard before & 0xFFFF_FFFF == 0,
        let (total, count) = words(settled: attempt >= attempts / 2)
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
    let total = totalWord.load(ordering: .acquiring)
    let count = countWord.load(ordering: .acquiring)
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

  private func counts(total word: UInt64, count: UInt64) -> Counts {
    let mode = word & ProgressNode.payloadMask
    let added = self.added.load(ordering: .acquiring)
    switch mode {
    case ProgressNode.fractionMode:
      return .fraction(Double(bitPattern: count & ProgressNode.payloadMask))
    case ProgressNode.indeterminateMode:
      return .indeterminate(completed: nil)
    case ProgressNode.indeterminateCountingMode:
      return .indeterminate(completed: completed(mode: word, count: count, added: added))
    case ProgressNode.wideMode:
      let wide = shared.withLock { $0.wide }
      let completed = completed(mode: word, count: count, added: added, wide: wide)
      guard let total = wide.total else { return .indeterminate(completed: completed) }
      return .counts(completed: completed, total: total, implicit: false)
    case ProgressNode.neverGivenMode:
      let completed = completed(mode: word, count: count, added: added)
      let assigned = assignedToChildren.load(ordering: .acquiring)
      if assigned > 0 {
        return .counts(completed: completed, total: assigned, implicit: true)
      }
      return completed == 0 ? .zero : .indeterminate(completed: completed)
    default:
      let completed = completed(mode: word, count: count, added: added)
      return .counts(completed: completed, total: Int(mode), implicit: false)
    }
  }

  private func progress(total: UInt64, count: UInt64, childrenAnyway: Bool = false) -> RunProgress?
  {
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
  private func childShares(anyway: Bool) -> Double? {
    guard hasChildren.load(ordering: .acquiring) else { return 0 }
    return shared.withLock { shared -> Double? in
      var sum = 0.0
      var kept = 0
      var index = 0
      defer {  // drop the finished children passed over, even when giving up half-way
        shared.children.removeSubrange(kept..<index)
        shared.prunedCount = shared.children.count
      }
      while index < shared.children.count {
        let child = shared.children[index]
        index += 1
        guard !child.isFinished else { continue }
        shared.children[kept] = child
        kept += 1
        guard let progress = anyway ? child.readAnyway() : child.read() else { return nil }
        sum += Double(child.assigned) * min(progress.fractionCompleted ?? 0, 1)
      }
      return sum
    }
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
