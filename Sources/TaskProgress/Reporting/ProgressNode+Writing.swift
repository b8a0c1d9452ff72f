// `public` because the inlinable reporting path loads an `Atomic` from client code.
public import Synchronization

extension ProgressNode {
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
}
