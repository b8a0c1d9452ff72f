package import TaskProgress

/// A renderer that keeps every update it is given and counts the times it is told it is
/// detached; it hands each update to `onRender` too, when given one.
///
/// ``StateRecorder`` keeps the states (and frames) a runner publishes; this keeps the updates
/// themselves, with their reasons, times, estimates and units, and is attached, detached and
/// released as any renderer is.
@MainActor
package final class RecordingRenderer: ProgressRenderer {
  /// Every update, in the order it came.
  package private(set) var updates: [ProgressUpdate] = []
  /// How many times the renderer was told it is detached.
  package private(set) var detachCount = 0
  private let onRender: ((ProgressUpdate) -> Void)?

  /// A recorder that also calls `onRender` with each update, after keeping it.
  package init(onRender: ((ProgressUpdate) -> Void)? = nil) {
    self.onRender = onRender
  }

  /// The states of the state changes, without the frames.
  package var states: [RunState] {
    updates.filter { $0.reason == .stateChanged }.map(\.state)
  }

  /// The phases of the state changes.
  package var phases: [RunPhase] {
    states.map(\.phase)
  }

  package func render(_ update: ProgressUpdate) {
    updates.append(update)
    onRender?(update)
  }

  package func didDetach() {
    detachCount += 1
  }
}
