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
  // Beside `assigned` and `finished`: a frame passing over an unchanged child loads one cache
  // line of it.
  /// Whether the node or a node under it changed since a frame last read it, as
  /// ``ChangeMark`` says: what lets a frame keep the last reading of what did not change.
  @usableFromInline let changeMark = Atomic<UInt8>(ChangeMark.changed)
  /// What a frame last read of this node as a child: `min(fraction, 1)`, a `Double`'s bits.
  ///
  /// NaN until a frame read it. Only the frame reader touches it.
  let lastShare = Atomic<UInt64>(Double.nan.bitPattern)
  /// The counts assigned to this node's subprogresses: its total while it has none of its own.
  let assignedToChildren = Atomic<Int>(0)
  /// Children handing their shares over, as ``ProgressWord/HandOver`` packs them.
  let version = Atomic<UInt64>(0)
  /// What is off the reporting path: the children, and a total too large for the words.
  let shared = Locked(Shared())
  /// The bytes and files counted in this node's subtree, once a reporter counted any.
  ///
  /// The bits of a retained ``NodeAmounts``, 0 until then; set once, released in `deinit`.
  let amountsBits = Atomic<UInt>(0)

  /// The values of ``changeMark``.
  ///
  /// A writer stores its report and then loads the mark: when the mark is not ``changed``, it
  /// marks the node and each ancestor up to the first that is marked already, so that a second
  /// report before the next frame costs one load. A frame reads a node whose mark is not
  /// ``clean``, lowering it by one step as it does, and keeps its last reading of the others.
  ///
  /// Two steps, rather than one, because a writer's load of the mark may be ordered before its
  /// store becomes visible to the reader (a store followed by a load of another location; only
  /// a full fence on the reporting path would forbid it): a frame that read a node a moment
  /// before its writer's store landed reads it once more on the next frame, when it has.
  @usableFromInline
  enum ChangeMark {
    /// Read on a frame, with nothing changed since.
    static let clean: UInt8 = 0
    /// Read on one frame since it changed: read once more on the next.
    static let readOnce: UInt8 = 1
    /// Changed since a frame last read it.
    @usableFromInline static let changed: UInt8 = 2
  }

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
    ///
    /// - Returns: What was added since the node began, this count included.
    @inlinable
    @inline(__always)
    @discardableResult
    func add(_ count: Int) -> Int {
      added.wrappingAdd(count, ordering: .relaxed).newValue
    }

    /// Whether units added up to `added` may have completed a total: `false` only when the
    /// words hold a total and a count of one report, and the count with `added` is below it.
    ///
    /// Two loads and a comparison, so that `complete(count:)` on a child costs about what it
    /// does on a root. No other mode completes by adding units (a fraction, an unknown size, a
    /// total never given), except wide counts, which say `true`, as does a report caught
    /// half-way: the full check decides. A report that changes the total or the count checks
    /// for itself.
    @inlinable
    @inline(__always)
    func mayHaveCompleted(added: Int) -> Bool {
      let total = ProgressWord(rawValue: totalWord.load(ordering: .acquiring))
      guard total.payload < ProgressWord.fractionMode else {
        return total.payload == ProgressWord.wideMode
      }
      let count = ProgressWord(rawValue: countWord.load(ordering: .acquiring))
      guard count.isSameGeneration(as: total) else { return true }
      return ProgressWord.completed(base: count.base, added: added) >= Int(total.payload)
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
    var children = ChildList()
    /// The count after the last pruning: adding prunes again once the list doubles.
    var prunedCount = 0
    /// What the last frame read of this node as a run's root: what the next frame shows when
    /// nothing changed.
    var lastReading: RunProgress?
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
      children.removeFinished()
      prunedCount = children.count
    }

    /// Takes the children out, leaving none.
    mutating func takeChildren() -> [ProgressNode] {
      defer { children = ChildList() }
      return children.chunks.flatMap { $0 }
    }
  }

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

  /// Stores a report in the words, then marks the node changed for the next frame: what every
  /// lock-free report does, so that none stores without marking.
  @inlinable
  @inline(__always)
  func report(total: UInt64, count: UInt64) {
    words.write(total: total, count: count)
    noteChange()
  }

  /// Adds completed units, then marks the node changed for the next frame.
  ///
  /// - Returns: What was added since the node began, this count included.
  @inlinable
  @inline(__always)
  func add(_ count: Int) -> Int {
    let added = words.add(count)
    noteChange()
    return added
  }

  /// Marks the node changed for the next frame, after a report stored: one load when a report
  /// since the last frame marked it already.
  @inlinable
  @inline(__always)
  func noteChange() {
    if changeMark.load(ordering: .relaxed) != ChangeMark.changed {
      markChanged()
    }
  }

  /// Marks the node and its ancestors changed, up to the first that is marked already: in a
  /// loop, so that a chain of any depth is marked.
  @usableFromInline
  func markChanged() {
    changeMark.store(ChangeMark.changed, ordering: .releasing)
    var next = parent
    while let node = next, node.changeMark.load(ordering: .relaxed) != ChangeMark.changed {
      node.changeMark.store(ChangeMark.changed, ordering: .releasing)
      next = node.parent
    }
  }

  /// Stores counts that do not fit the words, under the lock.
  @usableFromInline
  func storeWide(base: Int, total: Int?) {
    shared.withLock { $0.store(base: base, total: total, in: words) }
    noteChange()
  }

  /// Sets the total and keeps the completed count (`nil`: indeterminate, keeping the count),
  /// beyond the total too: the total may grow again.
  ///
  /// Under the lock, so that callers changing the total at once from several tasks store each
  /// pair of words whole.
  func setTotal(_ total: Int?) {
    let total = total.map { max($0, 0) }
    shared.withLock { $0.store(base: words.currentBase(), total: total, in: words) }
    noteChange()
    finishIfComplete()
  }

  // MARK: - Children

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

  // MARK: - Reading

  /// The share a frame last read of this child, when nothing under it changed since.
  var keptShare: Double? {
    guard changeMark.load(ordering: .acquiring) == ChangeMark.clean else { return nil }
    let share = Double(bitPattern: lastShare.load(ordering: .relaxed))
    return share.isNaN ? nil : share
  }

  /// The node's progress now: its counts, and its unfinished children's fractions weighted by
  /// their assigned counts; `nil` when writers kept it from a consistent reading.
  func read(attempts: Int = ProgressNode.readAttempts) -> RunProgress? {
    ProgressNode.read(self, attempts: attempts, anyway: false)
  }

  /// A reading even if writers race it: what the last report of an ended run is read with, after
  /// a consistent reading failed.
  func readAnyway() -> RunProgress {
    ProgressNode.read(self, attempts: ProgressNode.readAttempts, anyway: true) ?? .zero
  }

  /// A frame's reading of a run's root: only the nodes marked changed are read, and the last
  /// reading of the others is kept; `nil` when writers kept it from a consistent reading.
  ///
  /// One reader at a time, the run's frames: it alone lowers the marks and keeps the readings.
  func readChanges() -> RunProgress? {
    if changeMark.load(ordering: .acquiring) == ChangeMark.clean,
      let last = shared.withLock({ $0.lastReading })
    {
      return last
    }
    let progress = ProgressNode.read(
      self, attempts: ProgressNode.readAttempts, anyway: false, keepingReadings: true)
    shared.withLock { $0.lastReading = progress }
    return progress
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

  /// A node being read, on the stack that stands for a recursion over the subtree: a tree of
  /// any depth is read without growing the call stack.
  private struct Reading {
    let node: ProgressNode
    let attempts: Int
    /// Whether the node is read anyway, racing writers, once a consistent reading fails.
    let mayReadAnyway: Bool
    /// Whether this is a frame's reading: unchanged children give their last reading, and the
    /// node keeps this one.
    let keepsReadings: Bool
    /// The node's ``ChangeMark`` once this reading lowered it.
    var mark = ChangeMark.changed
    /// Whether it is read anyway now: its words as they are, its children read anyway.
    var isAnyway = false
    var attempt = 0
    /// Whether the next step reads the words: a new attempt.
    var needsWords = true
    /// The version window before this attempt read the words.
    var before: UInt64 = 0
    /// The progress, when the words alone give it.
    var leaf: RunProgress?
    /// The counts, clamped, while the children are read.
    var completed = 0
    var total = 0
    /// The children's chunks, and the place of the next child to read in them.
    var chunks: [[ProgressNode]] = []
    var chunk = 0
    var next = 0
    /// The unfinished children's assigned counts times their fractions, so far.
    var shares = 0.0
    var passedFinished = false

    init(
      _ node: ProgressNode, attempts: Int = ProgressNode.readAttempts, mayReadAnyway: Bool,
      keepsReadings: Bool
    ) {
      self.node = node
      self.attempts = attempts
      self.mayReadAnyway = mayReadAnyway
      self.keepsReadings = keepsReadings
      if keepsReadings {
        lowerMark()
      }
    }

    /// Lowers the node's mark by one step before its words are read: a report stored after
    /// this marks it again.
    private mutating func lowerMark() {
      let current = node.changeMark.load(ordering: .acquiring)
      guard current != ChangeMark.clean else {
        mark = current
        return
      }
      let lowered = current - 1
      let exchange = node.changeMark.compareExchange(
        expected: current, desired: lowered, ordering: .acquiringAndReleasing)
      mark = exchange.exchanged ? lowered : exchange.original
    }

    /// Keeps the node marked while a child under it is: so that the next frame reaches it.
    mutating func keepMarked() {
      guard mark == ChangeMark.clean else { return }
      let exchange = node.changeMark.compareExchange(
        expected: ChangeMark.clean, desired: ChangeMark.readOnce, ordering: .acquiringAndReleasing)
      mark = exchange.exchanged ? ChangeMark.readOnce : exchange.original
    }

    /// Marks the node changed when its reading gave up: the next frame reads it again.
    func giveUp() {
      if keepsReadings {
        node.changeMark.store(ChangeMark.changed, ordering: .releasing)
      }
    }

    /// Keeps a finished reading of the node as a child, for frames while it is unchanged.
    func keep(_ progress: RunProgress) {
      if keepsReadings {
        node.lastShare.store(
          min(progress.fractionCompleted ?? 0, 1).bitPattern, ordering: .relaxed)
      }
    }

    /// Reads the words for a new attempt: the progress they give alone, or the children to read.
    ///
    /// - Returns: `false` when every attempt is spent.
    mutating func readWords() -> Bool {
      needsWords = false
      let pair: (total: ProgressWord, count: ProgressWord)
      if isAnyway {
        pair = (
          ProgressWord(rawValue: node.words.totalWord.load(ordering: .acquiring)),
          ProgressWord(rawValue: node.words.countWord.load(ordering: .acquiring))
        )
      } else {
        while true {
          guard attempt < attempts else { return false }
          before = node.version.load(ordering: .acquiring)
          if ProgressWord.HandOver.isQuiet(before),
            let words = node.words.pair(settled: attempt >= attempts / 2)
          {
            pair = words
            break
          }
          attempt += 1
        }
      }
      leaf = nil
      switch node.counts(total: pair.total, count: pair.count) {
      case .zero: leaf = .zero
      case .fraction(let fraction): leaf = RunProgress(fractionCompleted: fraction)
      case .indeterminate(let completed): leaf = .indeterminate(completed: completed)
      case .counts(_, let total, _) where total <= 0: leaf = RunProgress(completed: 0, of: 0)
      case .counts(let completed, let total, _):
        self.completed = min(completed, total)
        self.total = total
        chunks =
          node.hasChildren.load(ordering: .acquiring)
          ? node.shared.withLock { $0.children.chunks } : []
        chunk = 0
        next = 0
        shares = 0
      }
      return true
    }

    /// The next unfinished child to read, passing over finished ones and, in a frame's reading,
    /// taking in the last reading of the unchanged ones.
    mutating func nextChild() -> ProgressNode? {
      let usesReadings = keepsReadings && !isAnyway
      while chunk < chunks.count {
        // Through the buffer: a frame over thousands of unchanged children then costs a few
        // loads each, not a retain and a release of each.
        let (index, kept, passed) = chunks[chunk].withUnsafeBufferPointer { children in
          var index = next
          var kept = 0.0
          var passed = false
          while index < children.count {
            // The list holds each child for as long as this reading runs: borrowed, not
            // retained.
            let step = Unmanaged.passUnretained(children[index])._withUnsafeGuaranteedRef {
              child -> Double? in
              if child.isFinished { return -1 }
              guard usesReadings, let share = child.keptShare else { return nil }
              return Double(child.assigned) * share
            }
            guard let step else { break }
            if step < 0 {
              passed = true
            } else {
              kept += step
            }
            index += 1
          }
          return (index, kept, passed)
        }
        next = index
        shares += kept
        passedFinished = passedFinished || passed
        if next < chunks[chunk].count {
          return chunks[chunk][next]
        }
        chunk += 1
        next = 0
      }
      return nil
    }

    /// Takes in the reading of the child ``nextChild()`` gave.
    mutating func add(_ progress: RunProgress) {
      shares += Double(chunks[chunk][next].assigned) * min(progress.fractionCompleted ?? 0, 1)
      next += 1
    }

    /// Ends a pass over the children: the finished ones passed over are dropped from the list.
    mutating func endChildren() {
      if passedFinished {
        node.shared.withLock { $0.pruneFinished() }
        passedFinished = false
      }
      chunks = []
    }

    /// The progress of this attempt, its children read.
    var progress: RunProgress {
      if let leaf { return leaf }
      let inFlight = min(
        Double(bitPattern: node.inFlight.load(ordering: .acquiring)), Double(total - completed))
      let fraction = (Double(completed) + shares + inFlight) / Double(total)
      return RunProgress(fractionCompleted: fraction, completed: completed, of: total)
    }

    /// Whether nothing was handed over since the words were read: the reading holds.
    var isConsistent: Bool {
      isAnyway || node.version.load(ordering: .acquiring) == before
    }

    /// After a failed consistent reading, reads the node anyway, if it may.
    ///
    /// - Returns: Whether it does.
    mutating func fallBack() -> Bool {
      guard mayReadAnyway, !isAnyway else { return false }
      isAnyway = true
      needsWords = true
      return true
    }
  }

  /// Reads `root`'s subtree, its unfinished children's fractions weighted by their assigned
  /// counts, in the order they started, with an explicit stack instead of a recursion.
  ///
  /// A node read consistently tries up to `attempts` times for words that no writer changed
  /// under it. A child that could not be read already spent its own attempts, so its parent
  /// gives up at once rather than multiply retries with the depth of the tree; with `anyway`,
  /// a node that gives up is then read as it is, its children anyway too.
  private static func read(
    _ root: ProgressNode, attempts: Int, anyway: Bool, keepingReadings: Bool = false
  ) -> RunProgress? {
    var first = Reading(
      root, attempts: attempts, mayReadAnyway: anyway, keepsReadings: keepingReadings)
    // Most roots have no children: their reading needs no stack, which would cost an
    // allocation on every frame. A root found with children goes on below, where it stands.
    while first.needsWords {
      guard first.readWords() else {
        guard first.fallBack() else {
          first.giveUp()
          return nil
        }
        continue
      }
      guard first.chunks.isEmpty else { break }
      if first.isConsistent {
        let progress = first.progress
        first.keep(progress)
        return withAmounts(progress, of: root)
      }
      first.attempt += 1
      first.needsWords = true
    }
    var stack = [first]
    // What the reading just popped gave its parent: a progress, or `nil` when it gave up; and
    // whether the popped node is still marked.
    var returned: (progress: RunProgress?, marked: Bool)? = nil
    while !stack.isEmpty {
      let top = stack.count - 1
      if let result = returned {
        returned = nil
        if result.marked {
          stack[top].keepMarked()
        }
        if let progress = result.progress {
          stack[top].add(progress)
        } else {
          stack[top].endChildren()
          guard stack[top].fallBack() else {
            stack.removeLast().giveUp()
            returned = (nil, true)
            continue
          }
        }
      }
      if stack[top].needsWords, !stack[top].readWords() {
        guard stack[top].fallBack() else {
          stack.removeLast().giveUp()
          returned = (nil, true)
          continue
        }
        continue
      }
      if let child = stack[top].nextChild() {
        stack.append(
          Reading(
            child, mayReadAnyway: stack[top].isAnyway,
            keepsReadings: stack[top].keepsReadings && !stack[top].isAnyway))
        continue
      }
      stack[top].endChildren()
      if stack[top].isConsistent {
        let reading = stack.removeLast()
        let progress = reading.progress
        reading.keep(progress)
        returned = (progress, reading.mark != ChangeMark.clean)
      } else {
        stack[top].attempt += 1
        stack[top].needsWords = true
      }
    }
    return returned?.progress.map { withAmounts($0, of: root) }
  }

  /// `progress` with the bytes and files `root`'s tree counted, if it counted any.
  private static func withAmounts(_ progress: RunProgress, of root: ProgressNode) -> RunProgress {
    // Most runs count no bytes: their reading is returned as it is, without a copy.
    guard let amounts = root.amountsReading else { return progress }
    return progress.withAmounts(amounts)
  }

  deinit {
    // A deep chain would release its children in nested deinits, one stack frame per level:
    // they are taken from here and released one at a time, each first handing its own children
    // to this loop when this loop holds the last reference to it.
    var pending = shared.withLock { $0.takeChildren() }
    while var node = pending.popLast() {
      if isKnownUniquelyReferenced(&node) {
        pending += node.shared.withLock { $0.takeChildren() }
      }
    }
    NodeAmounts.release(bits: amountsBits.load(ordering: .acquiring))
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
