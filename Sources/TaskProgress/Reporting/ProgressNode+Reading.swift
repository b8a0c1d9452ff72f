import Synchronization

extension ProgressNode {
  /// How many times a reader tries for a consistent reading before it gives up for this frame.
  static let readAttempts = 64

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
  enum Counts {
    /// Nothing reported, nothing assigned.
    case zero
    case fraction(Double)
    case indeterminate(completed: Int?)
    /// `completed` unclamped; `implicit` when the total is the counts assigned to children.
    case counts(completed: Int, total: Int, implicit: Bool)
  }

  func counts(total word: ProgressWord, count: ProgressWord) -> Counts {
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
  private struct NodeVisit {
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
    var first = NodeVisit(
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
          NodeVisit(
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
}
