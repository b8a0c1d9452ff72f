extension TaskRunner {
  /// A share of a reporter's units, handed to a callee that starts it with a total of its own.
  ///
  /// Make one with ``Reporter/subprogress(assigningCount:)`` and pass it on; the callee calls
  /// ``start(totalCount:)`` once it knows its size and reports to the reporter it gets back. A
  /// subprogress can't be copied, so a share is started at most once; one that is dropped
  /// without being started counts as done, so its parent still reaches 1.0.
  public struct Subprogress: ~Copyable, Sendable {
    /// The reporter's node the share belongs to, until the share is started.
    private var parent: ProgressNode?
    /// The count of the parent's units the share stands for.
    private let assigned: Int

    init(parent: ProgressNode, assigned: Int) {
      self.parent = parent
      self.assigned = assigned
    }

    /// Starts the share: returns the reporter of a child whose progress, times the assigned
    /// count, shows in its parent's.
    ///
    /// The child is finished when its completed count reaches a total above zero, or at once for
    /// a total of zero or less; then the assigned count is added to the parent's completed count,
    /// once, and the child's later reports no longer reach the parent. A child whose reporter is
    /// released (every copy) before it finished counts as finished then.
    ///
    /// - Parameter totalCount: The child's total; `nil` when its size is not known yet. Until
    ///   it reports a total, the child is indeterminate and adds 0 to its parent's fraction
    ///   (unless it hands out subprogresses of its own, whose counts are then its total).
    /// - Returns: The child's reporter, with every method of the run's own.
    public consuming func start(totalCount: Int?) -> Reporter {
      Reporter(node: startChild(totalCount: totalCount))
    }

    /// Starts the share as a child that only its parent keeps: releasing the reporter returned
    /// does not end it, and its share joins the parent's count when its counts complete it.
    package consuming func startKeptByParent(totalCount: Int?) -> Reporter {
      Reporter(node: startChild(totalCount: totalCount), endingChildOnRelease: false)
    }

    /// Starts the share's child node.
    private consuming func startChild(totalCount: Int?) -> ProgressNode {
      guard let parent = self.parent.take() else {
        // Unreachable: a share is started once, then consumed.
        return ProgressNode(signals: RunSignals(updateInterval: nil))
      }
      return parent.startChild(assigned: assigned, totalCount: totalCount)
    }

    deinit {
      parent?.handOver(assigned)  // dropped without being started: the share counts as done
    }
  }
}
