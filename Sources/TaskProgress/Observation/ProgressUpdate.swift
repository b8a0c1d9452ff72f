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
  /// The run's speed, as ``TaskRunner/throughput`` has it: in bytes, files or completed units
  /// per second, as ``ProgressUnit/format(throughput:of:)`` shows it for ``lastProgress``.
  public let throughput: Double?
  /// The time the run has left, as ``TaskRunner/estimatedTimeRemaining`` has it.
  public let estimatedTimeRemaining: Duration?
  /// What the run's counts measure, as ``TaskRunner/unit`` has it.
  ///
  /// The bytes and files a run counts apart are shown in units of their own, and so is a rate
  /// that measures them: format ``throughput`` with `unit.format(throughput: rate, of:
  /// lastProgress)`.
  public let unit: ProgressUnit
  /// The progress of the active run, or where the run got to when this update ends it.
  ///
  /// It is ``TaskRunner/lastProgress``: a renderer shows the last counts of a finished run from
  /// it. `nil` while idle.
  public var lastProgress: RunProgress? {
    lastProgressBox?.progress ?? state.progress
  }

  /// ``lastProgress`` when it is not the state's own, as at the end of a run, on the heap.
  ///
  /// An update is copied at every hop, from a runner to a group to its renderers; a second
  /// progress inline, the same as the state's in every update of a run under way, was a third of
  /// its size.
  private let lastProgressBox: ProgressBox?

  /// A progress kept apart from an update.
  final class ProgressBox: Sendable {
    /// The progress.
    let progress: RunProgress

    /// Boxes `progress`.
    init(_ progress: RunProgress) {
      self.progress = progress
    }
  }

  /// Creates an update; renderers receive them from the runner, tests may make their own.
  ///
  /// - Parameters:
  ///   - reason: Why the update is delivered.
  ///   - state: The runner's state.
  ///   - displayedProgress: The animated value, in `0...1`.
  ///   - time: The time on the runner's clock.
  ///   - throughput: The run's speed in units per second, if known.
  ///   - estimatedTimeRemaining: The time the run has left, if known.
  ///   - unit: What the counts measure.
  ///   - lastProgress: The progress of the active run or of the run that this update ends;
  ///     `nil`, the default, for the state's own progress.
  public init(
    reason: Reason, state: RunState, displayedProgress: Double, time: Duration,
    throughput: Double? = nil, estimatedTimeRemaining: Duration? = nil,
    unit: ProgressUnit = .items, lastProgress: RunProgress? = nil
  ) {
    self.init(
      reason: reason, state: state, displayedProgress: displayedProgress, time: time,
      throughput: throughput, estimatedTimeRemaining: estimatedTimeRemaining, unit: unit,
      lastProgressBox: lastProgress.flatMap { $0 == state.progress ? nil : ProgressBox($0) })
  }

  /// An update whose ``lastProgress`` is the boxed one, or the state's own without a box: a
  /// runner keeps one box for the end of its run, for every update after it.
  init(
    reason: Reason, state: RunState, displayedProgress: Double, time: Duration,
    throughput: Double?, estimatedTimeRemaining: Duration?, unit: ProgressUnit,
    lastProgressBox: ProgressBox?
  ) {
    self.lastProgressBox = lastProgressBox
    self.reason = reason
    self.state = state
    self.displayedProgress = displayedProgress
    self.time = time
    self.throughput = throughput
    self.estimatedTimeRemaining = estimatedTimeRemaining
    self.unit = unit
  }

  /// Whether two updates are the same in every field, their last progress compared by value.
  public static func == (lhs: ProgressUpdate, rhs: ProgressUpdate) -> Bool {
    lhs.reason == rhs.reason && lhs.state == rhs.state
      && lhs.displayedProgress == rhs.displayedProgress && lhs.time == rhs.time
      && lhs.throughput == rhs.throughput
      && lhs.estimatedTimeRemaining == rhs.estimatedTimeRemaining && lhs.unit == rhs.unit
      && lhs.lastProgress == rhs.lastProgress
  }
}
