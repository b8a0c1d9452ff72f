import Synchronization

/// The bytes and files one reporter counted, its own and summed over the reporters under it.
///
/// A node makes it the first time a reporter of its subtree counts bytes or files, so that a
/// run that never does costs one word per node. A count adds to the node's own fields and to
/// the sums of the node and of every ancestor, each an atomic add: the root's sums are the
/// run's, read by a frame with four loads, whatever the size of the tree.
final class NodeAmounts: Sendable {
  /// One of the four counts.
  enum Field: Int, Sendable {
    case completedBytes, totalBytes, completedFiles, totalFiles

    /// The bit of ``NodeAmounts/given`` that says a reporter counted this field.
    var bit: UInt8 { 1 << UInt8(rawValue) }
  }

  /// Four counters, one per field.
  struct Counters: ~Copyable, Sendable {
    let completedBytes = Atomic<Int>(0)
    let totalBytes = Atomic<Int>(0)
    let completedFiles = Atomic<Int>(0)
    let totalFiles = Atomic<Int>(0)

    /// Runs `body` with the counter of `field`.
    func with<Result>(_ field: Field, _ body: (borrowing Atomic<Int>) -> Result) -> Result {
      switch field {
      case .completedBytes: body(completedBytes)
      case .totalBytes: body(totalBytes)
      case .completedFiles: body(completedFiles)
      case .totalFiles: body(totalFiles)
      }
    }

    /// The value of `field`, never negative.
    func load(_ field: Field) -> Int {
      with(field) { max($0.load(ordering: .relaxed), 0) }
    }
  }

  /// What this node's own reporters counted.
  let own = Counters()
  /// What this node and every node under it counted.
  let sums = Counters()
  /// The fields that some reporter of the subtree counted, one bit each: a field never counted
  /// reads as `nil` rather than 0.
  let given = Atomic<UInt8>(0)

  /// Notes that a reporter of the subtree counted `field`: one load once it is noted.
  func noteGiven(_ field: Field) {
    if given.load(ordering: .relaxed) & field.bit == 0 {
      given.bitwiseOr(field.bit, ordering: .relaxed)
    }
  }

  /// The sums as a progress carries them; `nil` while nothing was counted.
  var reading: RunProgress.Amounts? {
    let given = given.load(ordering: .acquiring)
    guard given != 0 else { return nil }
    func value(_ field: Field) -> Int? {
      given & field.bit == 0 ? nil : sums.load(field)
    }
    return RunProgress.Amounts(
      completedBytes: value(.completedBytes), totalBytes: value(.totalBytes),
      completedFiles: value(.completedFiles), totalFiles: value(.totalFiles))
  }
}

extension ProgressNode {
  /// This node's amounts, made on first use.
  private var amountStorage: NodeAmounts {
    amounts.load() ?? amounts.storeIfNil(NodeAmounts())
  }

  /// Adds `delta` to this node's own `field`, and to the sums up to the root.
  func count(_ field: NodeAmounts.Field, adding delta: Int) {
    amountStorage.own.with(field) { _ = $0.wrappingAdd(delta, ordering: .relaxed) }
    addToSums(field, delta)
  }

  /// Sets this node's own `field` to `value`, and moves the sums up to the root by the change.
  func count(_ field: NodeAmounts.Field, setting value: Int) {
    let old = amountStorage.own.with(field) { $0.exchange(value, ordering: .relaxed) }
    addToSums(field, value &- old)
  }

  /// Adds `delta` to the sums of this node and of each ancestor, in a loop, so that a chain of
  /// any depth counts; then marks the node changed for the next frame.
  ///
  /// A child's amounts reach its ancestors also after it finished: its last bytes may come after
  /// its last unit, and the bytes a run counted are the bytes its work went through.
  private func addToSums(_ field: NodeAmounts.Field, _ delta: Int) {
    var next: ProgressNode? = self
    while let node = next {
      let storage = node.amountStorage
      if delta != 0 {
        storage.sums.with(field) { _ = $0.wrappingAdd(delta, ordering: .relaxed) }
      }
      storage.noteGiven(field)
      next = node.parent
    }
    noteChange()
  }

  /// The bytes and files counted by this node and the nodes under it; `nil` when none were.
  var amountsReading: RunProgress.Amounts? {
    amounts.load()?.reading
  }
}
