/// One delivery from a ``TaskRunner`` to a renderer: the state, the displayed progress and when.
///
/// A runner delivers an update when its state changes, and a frame on every update interval while
/// a run is active or the displayed progress moves; nothing while it is idle and still. State
/// observers (``TaskRunner/observe(_:)``) see only state changes; renderers
/// (``TaskRunner/attach(_:)``) see both, in one ordered sequence.
public struct ProgressUpdate: Sendable, Equatable {
  /// Why an update was delivered.
  public enum Reason: Hashable, Sendable {
    /// The runner's state changed: a transition or a new progress.
    case stateChanged
    /// A frame: the update interval elapsed while a run is active, or the displayed progress moved.
    case frame
  }

  /// Why this update was delivered.
  public let reason: Reason
  /// The runner's state.
  public let state: RunState
  /// The animated value a progress view draws, in `0...1`.
  public let displayedProgress: Double
  /// When, on the runner's clock: the time since the runner was created.
  public let time: Duration

  /// Creates an update; renderers receive them from the runner, tests may make their own.
  public init(reason: Reason, state: RunState, displayedProgress: Double, time: Duration) {
    self.reason = reason
    self.state = state
    self.displayedProgress = displayedProgress
    self.time = time
  }
}
