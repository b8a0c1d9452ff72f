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

  /// Creates a root: a run's own reporter, or a standalone one.
  init(signals: RunSignals) {
    self.signals = signals
    self.isChild = false
    self.parent = nil
    self.assigned = 0
  }

  /// Creates a child of `parent` that stands for `assigned` of its units.
  init(parent: ProgressNode, assigned: Int, totalCount: Int?) {
    self.signals = parent.signals
    self.isChild = true
    self.parent = parent
    self.assigned = assigned
    if let totalCount {
      setTotal(totalCount)
    }
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
