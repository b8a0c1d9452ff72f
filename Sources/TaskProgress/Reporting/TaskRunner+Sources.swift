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

  /// Polls the sources of the run this reporter belongs to: what a standalone reporter does
  /// before it is read.
  func pollSources() {
    _ = node.signals.sources.poll()
  }
}
