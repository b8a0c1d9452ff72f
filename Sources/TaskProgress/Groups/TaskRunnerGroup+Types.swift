extension TaskRunnerGroup {
  /// How much each runner counts in a group's overall progress.
  public enum Weighting: Hashable, Sendable {
    /// Every runner counts the same.
    case equal
    /// A runner counts its run's total count: a 3 GB download three times a 1 GB one.
    ///
    /// A runner whose run has no total yet (not started, or reporting only fractions) counts
    /// as the mean of the runners whose total is known, or as 1 when none is. A weight given
    /// to ``TaskRunnerGroup/add(_:label:weight:)`` always wins.
    case units
  }

  /// A runner in a group, with its label and the weight it was given.
  public struct Member: Identifiable, Sendable {
    /// The runner.
    public let runner: TaskRunner
    /// The text a renderer shows for the runner, such as a file name; may be empty.
    public let label: String
    /// The weight given when the runner joined, or `nil` for the group's ``Weighting``.
    public let weight: Double?

    /// Creates a member, as a group does when a runner joins.
    package init(runner: TaskRunner, label: String = "", weight: Double? = nil) {
      self.runner = runner
      self.label = label
      self.weight = weight
    }

    /// The runner's identity.
    public nonisolated var id: ObjectIdentifier {
      ObjectIdentifier(runner)
    }
  }

  /// How many of a group's runners are in each phase.
  ///
  /// Its description lists the phases that have runners, active ones first:
  /// `3 running, 1 paused, 5 waiting, 5 finished, 1 failed`.
  public struct PhaseCounts: Hashable, Sendable, CustomStringConvertible {
    /// Runners with no run, or reset; ``waiting`` counts those of them a queue will start.
    public var idle = 0
    /// The idle runners that a queue of the group (``TaskRunnerGroup/start(_:maxConcurrency:label:weight:onFailure:retries:retryDelay:perform:)``)
    /// has yet to start; they are counted in ``idle`` too.
    public var waiting = 0
    /// Runners whose run is running.
    public var running = 0
    /// Runners whose run is paused.
    public var paused = 0
    /// Runners whose last run finished.
    public var finished = 0
    /// Runners whose last run failed.
    public var failed = 0
    /// Runners whose last run was cancelled.
    public var cancelled = 0

    /// No runners.
    public init() {}

    /// The runners in `phase`.
    public subscript(phase: RunPhase) -> Int {
      get {
        switch phase {
        case .idle: idle
        case .running: running
        case .paused: paused
        case .finished: finished
        case .failed: failed
        case .cancelled: cancelled
        }
      }
      set {
        switch phase {
        case .idle: idle = newValue
        case .running: running = newValue
        case .paused: paused = newValue
        case .finished: finished = newValue
        case .failed: failed = newValue
        case .cancelled: cancelled = newValue
        }
      }
    }

    /// Every runner counted.
    public var total: Int {
      idle + running + paused + finished + failed + cancelled
    }

    /// The runners with a run under way, running or paused.
    public var active: Int {
      running + paused
    }

    /// The runners whose last run ended: finished, failed or cancelled.
    public var ended: Int {
      finished + failed + cancelled
    }

    /// `3 running, 5 waiting, 1 failed`: the phases with runners, in the order running, paused,
    /// waiting, idle (those no queue will start), finished, failed, cancelled; `no runners` when
    /// there are none.
    public var description: String {
      let parts: [(Int, String)] = [
        (running, "running"), (paused, "paused"), (waiting, "waiting"), (idle - waiting, "idle"),
        (finished, "finished"), (failed, "failed"), (cancelled, "cancelled"),
      ]
      let listed = parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
      return listed.isEmpty ? "no runners" : listed.joined(separator: ", ")
    }
  }

  /// A group's overall progress at one frame.
  public struct Summary: Hashable, Sendable {
    /// The weighted share of the work done, in `0...1`: each runner counts its state's
    /// ``RunState/fractionCompleted`` (idle 0, running its fraction or 0 while indeterminate,
    /// finished 1, failed and cancelled 0), times its weight.
    public var fractionCompleted: Double
    /// The weighted mean of the runners' animated ``TaskRunner/displayedProgress``, in `0...1`:
    /// what an overall progress view draws.
    public var displayedProgress: Double
    /// The weighted work done: with ``Weighting/units``, the units done (children under way
    /// counted by their share); with ``Weighting/equal``, the runners' fractions summed.
    public var completedUnits: Double
    /// The weighted work in all: the sum of the weights.
    public var totalUnits: Double
    /// Whether every weight in ``totalUnits`` is known, given or a total reported; `false` while
    /// some runner's weight is the mean of the others'.
    public var isTotalKnown: Bool
    /// How many runners are in each phase.
    public var counts: PhaseCounts
    /// The group's speed in weighted units per second, smoothed as a runner's
    /// ``TaskRunner/throughput`` is; `nil` while no run is active or before there is enough to
    /// tell.
    public var throughput: Double?
    /// The time the work left takes at ``throughput``: what the active runs have left and all
    /// of the idle runners' work, so that a queue's runners not yet started count; `nil` when no
    /// run is active or there is no rate yet.
    public var estimatedTimeRemaining: Duration?
    /// What the units measure, as ``TaskRunnerGroup/unit`` has it.
    public var unit: ProgressUnit
    /// Whether the group has stopped.
    ///
    /// It has when no run is under way, and none has started for
    /// ``TaskRunnerGroup/settlingInterval`` or no runner waits to start. A renderer closes its
    /// drawing then; a queue between two runs is not settled.
    public var isSettled: Bool

    /// A summary of nothing: no runners.
    package static let empty = Summary(
      fractionCompleted: 0, displayedProgress: 0, completedUnits: 0, totalUnits: 0,
      isTotalKnown: true, counts: PhaseCounts(), throughput: nil, estimatedTimeRemaining: nil,
      unit: .items, isSettled: true)

    /// Creates a summary, as a group does at each frame.
    package init(
      fractionCompleted: Double, displayedProgress: Double, completedUnits: Double,
      totalUnits: Double, isTotalKnown: Bool, counts: PhaseCounts, throughput: Double? = nil,
      estimatedTimeRemaining: Duration? = nil, unit: ProgressUnit = .items,
      isSettled: Bool = false
    ) {
      self.fractionCompleted = fractionCompleted
      self.displayedProgress = displayedProgress
      self.completedUnits = completedUnits
      self.totalUnits = totalUnits
      self.isTotalKnown = isTotalKnown
      self.counts = counts
      self.throughput = throughput
      self.estimatedTimeRemaining = estimatedTimeRemaining
      self.unit = unit
      self.isSettled = isSettled
    }

    /// Whether some runner has a run under way, running or paused.
    var isActive: Bool {
      counts.active > 0
    }
  }

  /// One delivery from a group to a ``GroupRenderer``.
  ///
  /// A renderer first gets an `.updated` for every member, in the order they joined, and a
  /// `.frame`; then, in order, every update each member's own renderers get, the first one
  /// for a runner that joins, a `.left` for a runner that leaves, and a `.frame` at the end of
  /// each of the group's frames, after the updates that frame read. Each frame carries the
  /// members as of that moment, in the order they joined (``Members``), so that a renderer
  /// keeps no list of them: only what it draws of each, by ``Member/id``. Frames come while a
  /// run is under way, and until the group settles (``Summary/isSettled``) after its last run
  /// ends: a renderer closes its drawing then, not when a queue is between two runs.
  public enum Event: Sendable {
    /// A member's update: a state change, or a frame of its own. A runner's first is the state
    /// it joined in.
    case updated(Member, ProgressUpdate)
    /// A runner left the group.
    case left(Member.ID)
    /// The end of a frame of the group: the overall progress, the members in the order they
    /// joined, and the moment to draw. The duration is the time on the group's clock since the
    /// group was created.
    case frame(Summary, members: Members, time: Duration)
  }
}

/// A front end that draws a ``TaskRunnerGroup``: one bar per runner and a total, or yours.
///
/// Attach it with ``TaskRunnerGroup/attach(_:)``. It receives, on the main actor and in order,
/// every event of the group (see ``TaskRunnerGroup/Event``), starting with the members and the
/// overall progress at once, and draws on `.frame`, which comes once per frame at most and
/// carries the members in the order they joined.
@MainActor
public protocol GroupRenderer {
  /// Handles one event of the group.
  func render(_ event: TaskRunnerGroup.Event)

  /// Tells the renderer that it gets no more events: its token was cancelled or the group went
  /// away. The default implementation does nothing.
  func didDetach()
}

extension GroupRenderer {
  /// Does nothing.
  public func didDetach() {}
}
