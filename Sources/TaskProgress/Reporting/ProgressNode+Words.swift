// `public` because the reporter's inlinable fast path stores into an `Atomic` from client code.
public import Synchronization

extension ProgressNode {
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
}
