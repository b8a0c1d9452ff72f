import Synchronization

/// The bytes and files one reporter counted, its own and summed over the reporters under it.
///
/// A node makes it the first time a reporter of its subtree counts bytes or files, so that a
/// run that never does costs one word per node. Each holds its parent node's, so that a count
/// adds to the node's own fields and to the sums of the node and of every ancestor by following
/// strong references, each an atomic add: the root's sums are the run's, read by a frame with
/// four loads, whatever the size of the tree.
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

    /// Adds `delta` to `field`.
    @inline(__always)
    func add(_ delta: Int, to field: Field) {
      switch field {
      case .completedBytes: completedBytes.wrappingAdd(delta, ordering: .relaxed)
      case .totalBytes: totalBytes.wrappingAdd(delta, ordering: .relaxed)
      case .completedFiles: completedFiles.wrappingAdd(delta, ordering: .relaxed)
      case .totalFiles: totalFiles.wrappingAdd(delta, ordering: .relaxed)
      }
    }

    /// Sets `field` to `value`; returns what it was.
    @inline(__always)
    func exchange(_ value: Int, in field: Field) -> Int {
      switch field {
      case .completedBytes: completedBytes.exchange(value, ordering: .relaxed)
      case .totalBytes: totalBytes.exchange(value, ordering: .relaxed)
      case .completedFiles: completedFiles.exchange(value, ordering: .relaxed)
      case .totalFiles: totalFiles.exchange(value, ordering: .relaxed)
      }
    }

    /// The value of `field`, never negative.
    func load(_ field: Field) -> Int {
      let value =
        switch field {
        case .completedBytes: completedBytes.load(ordering: .relaxed)
        case .totalBytes: totalBytes.load(ordering: .relaxed)
        case .completedFiles: completedFiles.load(ordering: .relaxed)
        case .totalFiles: totalFiles.load(ordering: .relaxed)
        }
      return max(value, 0)
    }
  }

  /// The amounts of the parent node when this one's were made; `nil` for a root, or for a child
  /// whose parent had gone.
  ///
  /// SAFETY: written in `init`, and in `deinit` of the amounts that hold it, which alone then
  /// reference them (`isKnownUniquelyReferenced`); read by counts, which hold a reference to
  /// these amounts or to amounts below them, so never during that `deinit`.
  nonisolated(unsafe) private var parentAmounts: NodeAmounts?  // SAFETY: above

  /// What this node's own reporters counted.
  let own = Counters()
  /// What this node and every node under it counted.
  let sums = Counters()
  /// The fields that some reporter of the subtree counted, one bit each: a field never counted
  /// reads as `nil` rather than 0.
  let given = Atomic<UInt8>(0)

  private init(parent: NodeAmounts?) {
    self.parentAmounts = parent
  }

  deinit {
    // A deep chain would release its ancestors' amounts in nested deinits, one stack frame per
    // level: each is taken here, and released by this loop when it holds the last reference.
    var next = parentAmounts.take()
    while var amounts = next.take(), isKnownUniquelyReferenced(&amounts) {
      next = amounts.parentAmounts.take()
    }
  }

  /// Adds `delta` to the sums of these amounts and of each ancestor's, and notes `field` as
  /// given in each: in a loop, without a retain per level.
  func addToSums(_ field: Field, _ delta: Int) {
    var current = Unmanaged.passUnretained(self)
    while true {
      let parent = current._withUnsafeGuaranteedRef { amounts -> Unmanaged<NodeAmounts>? in
        if delta != 0 {
          amounts.sums.add(delta, to: field)
        }
        amounts.noteGiven(field)
        return amounts.parentAmounts.map { Unmanaged.passUnretained($0) }
      }
      guard let parent else { return }
      current = parent
    }
  }

  /// Notes that a reporter of the subtree counted `field`: one load once it is noted.
  @inline(__always)
  private func noteGiven(_ field: Field) {
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

  // MARK: - Held by a node

  /// The amounts whose retained bits a node holds, if any.
  static func existing(bits: UInt) -> NodeAmounts? {
    guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return nil }
    return Unmanaged<NodeAmounts>.fromOpaque(pointer).takeUnretainedValue()
  }

  /// Releases the amounts whose retained bits a node held.
  static func release(bits: UInt) {
    guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return }
    Unmanaged<NodeAmounts>.fromOpaque(pointer).release()
  }

  /// The amounts of `node`, made on first use with those of its ancestors that have none, from
  /// the top down, in a loop.
  static func of(_ node: ProgressNode) -> NodeAmounts {
    if let amounts = existing(bits: node.amountsBits.load(ordering: .acquiring)) {
      return amounts
    }
    var missing: [ProgressNode] = []
    var next: ProgressNode? = node
    var above: NodeAmounts? = nil
    while let current = next {
      if let amounts = existing(bits: current.amountsBits.load(ordering: .acquiring)) {
        above = amounts
        break
      }
      missing.append(current)
      next = current.parent
    }
    for current in missing.reversed() {
      let made = NodeAmounts(parent: above)
      let bits = UInt(bitPattern: Unmanaged.passRetained(made).toOpaque())
      let (exchanged, original) = current.amountsBits.compareExchange(
        expected: 0, desired: bits, ordering: .acquiringAndReleasing)
      if exchanged {
        above = made
      } else {
        // Another reporter made them first: use theirs.
        release(bits: bits)
        above = existing(bits: original)
      }
    }
    return above ?? NodeAmounts(parent: nil)  // not reached: the loop made or found them
  }
}

extension ProgressNode {
  /// Adds `delta` to this node's own `field`, and to the sums up to the root.
  func count(_ field: NodeAmounts.Field, adding delta: Int) {
    withAmounts { amounts in
      amounts.own.add(delta, to: field)
      amounts.addToSums(field, delta)
    }
    noteChange()
  }

  /// Sets this node's own `field` to `value`, and moves the sums up to the root by the change.
  func count(_ field: NodeAmounts.Field, setting value: Int) {
    withAmounts { amounts in
      let old = amounts.own.exchange(value, in: field)
      amounts.addToSums(field, value &- old)
    }
    noteChange()
  }

  /// Runs `body` with this node's amounts, made on first use; once made, without a retain.
  @inline(__always)
  private func withAmounts(_ body: (NodeAmounts) -> Void) {
    if let pointer = UnsafeRawPointer(bitPattern: amountsBits.load(ordering: .acquiring)) {
      // The node holds them for as long as it lives, and this call holds the node.
      Unmanaged<NodeAmounts>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    } else {
      body(NodeAmounts.of(self))
    }
  }

  /// The bytes and files counted by this node and the nodes under it; `nil` when none were.
  var amountsReading: RunProgress.Amounts? {
    NodeAmounts.existing(bits: amountsBits.load(ordering: .acquiring))?.reading
  }
}
