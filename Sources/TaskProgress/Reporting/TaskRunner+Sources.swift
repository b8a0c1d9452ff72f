import Synchronization

extension TaskRunner.Reporter {
  /// Registers a source that this reporter mirrors, polled on the run's frames.
  ///
  /// - Returns: `false` when the run already ended or was cancelled, in which case the source
  ///   is never polled.
  package func addSource(_ source: any ProgressSource) -> Bool {
    guard !isCancelled else { return false }
    return node.signals.sources.add(source)
  }

  /// Reports `completed` of `total` units, with `inFlight` more units under way: the completed
  /// part of unfinished children that the reporter does not know as children of its own, such
  /// as a mirrored `Foundation.Progress`'s.
  ///
  /// The fraction becomes `(completed + inFlight) / total`, the counts stay `completed` of
  /// `total`. `inFlight` is clamped to the units not completed; a negative or non-finite value
  /// counts as 0.
  package func report(completed: Int, of total: Int, inFlight: Double) {
    let units = inFlight.isFinite ? max(inFlight, 0) : 0
    // Before the counts: a child that the counts complete reads no units in flight.
    node.inFlight.store((completed >= total ? 0 : units).bitPattern, ordering: .releasing)
    report(completed: completed, of: total)
  }

  /// Reports that the work's size is unknown, with no units in flight: as
  /// ``reportIndeterminate(completed:)``, for a source that also reports units in flight.
  package func reportIndeterminateClearingInFlight(completed: Int?) {
    node.inFlight.store(0, ordering: .releasing)
    reportIndeterminate(completed: completed)
  }

  /// A reference to this reporter's progress that does not keep it: what a source holds, so
  /// that neither a run nor a standalone reporter is kept alive by what it mirrors.
  package var reference: TaskRunner.ReporterReference {
    TaskRunner.ReporterReference(node)
  }

  /// Polls the sources of the run this reporter belongs to: what a standalone reporter does
  /// before it is read.
  func pollSources() {
    _ = node.signals.sources.poll()
  }
}

extension TaskRunner {
  /// A reporter's progress, held weakly: a run's root lives as long as its run or its reporters,
  /// a child as long as it is unfinished in its parent or its reporters live.
  package struct ReporterReference: Sendable {
    private weak let node: ProgressNode?

    init(_ node: ProgressNode) {
      self.node = node
    }

    /// A reporter of the progress, while it lives; releasing it never ends a child.
    package var reporter: Reporter? {
      node.map { Reporter(node: $0, endingChildOnRelease: false) }
    }
  }
}
