/// Records what a ``TaskRunner`` publishes, so a test can assert the whole sequence at once.
///
/// ```swift
/// import TaskProgress
/// import Testing
///
/// struct Timeout: Error, Equatable {}
///
/// @MainActor @Test func failureEndsTheRun() async throws {
///   let runner = TaskRunner(animation: .instant, clock: ManualClock())
///   let recorder = StateRecorder(observing: runner)
///   await runner.run { _ in throw Timeout() }
///   try recorder.expectStates([.idle, .running(0), .failed(Timeout())])
/// }
/// ```
///
/// The recorder stops recording when it is released or when you call ``stop()``.
@MainActor
public final class StateRecorder {
  /// Every state the runner published since the recorder attached, starting with the state it
  /// had then.
  public private(set) var states: [RunState] = []
  /// Every frame of the displayed progress, when recording frames.
  public private(set) var frames: [ProgressUpdate] = []
  /// Whether the recorder keeps frames as well as states.
  private let recordsFrames: Bool

  private var token: ObservationToken?
  private var waiters: [Waiter] = []
  private var lastWaiterID = 0

  /// Starts recording `runner`; the first recorded state is the runner's current one.
  ///
  /// - Parameters:
  ///   - runner: The runner to record.
  ///   - recordingFrames: Whether to keep every frame of the displayed progress too.
  public init(observing runner: TaskRunner, recordingFrames: Bool = false) {
    self.recordsFrames = recordingFrames
    self.token = runner.attach(Forwarder(recorder: self), detachingOnRelease: true)
  }

  /// The phases of the recorded states.
  public var phases: [RunPhase] {
    states.map(\.phase)
  }

  /// Stops recording; what was recorded stays.
  public func stop() {
    token?.cancel()
    token = nil
    resumeWaiters(force: true)
  }

  /// Forgets everything recorded so far and keeps recording.
  public func removeAll() {
    states.removeAll()
    frames.removeAll()
  }

  // MARK: - Assertions

  /// Throws unless the recorded states are exactly `expected`, in order.
  ///
  /// - Throws: A ``Mismatch`` describing the first difference and both sequences.
  public func expectStates(_ expected: [RunState]) throws(Mismatch) {
    try Mismatch.check(expected: expected, recorded: states, what: "states")
  }

  /// Throws unless the recorded phases are exactly `expected`, in order.
  ///
  /// - Throws: A ``Mismatch`` describing the first difference and both sequences.
  public func expectPhases(_ expected: [RunPhase]) throws(Mismatch) {
    try Mismatch.check(expected: expected, recorded: phases, what: "phases")
  }

  /// A difference between an expected and a recorded sequence.
  public struct Mismatch: Error, CustomStringConvertible, Sendable {
    /// The position of the first difference.
    public let index: Int
    /// The expected entries, as text.
    public let expected: [String]
    /// The recorded entries, as text.
    public let recorded: [String]
    /// What was compared: "states" or "phases".
    public let subject: String

    /// Which rows differ, by value: two different values may print alike.
    public let differingRows: Set<Int>

    /// The first difference, then both sequences side by side, differing rows marked `✗`.
    public var description: String {
      let width = max(8, expected.map(\.count).max() ?? 0)
      func row(_ mark: String, _ number: String, _ left: String, _ right: String) -> String {
        let number = String(repeating: " ", count: max(0, 3 - number.count)) + number
        let left = left + String(repeating: " ", count: max(0, width - left.count))
        return "  \(mark) \(number)  \(left)  \(right)"
      }
      var lines = [
        "Recorded \(subject) differ from the expected ones at index \(index) "
          + "(expected \(expected.count), recorded \(recorded.count)):",
        row(" ", "#", "expected", "recorded"),
      ]
      for index in 0..<max(expected.count, recorded.count) {
        let left = index < expected.count ? expected[index] : "—"
        let right = index < recorded.count ? recorded[index] : "—"
        lines.append(row(differingRows.contains(index) ? "✗" : " ", String(index), left, right))
      }
      return lines.joined(separator: "\n")
    }

    static func check<Entry: Equatable & CustomStringConvertible>(
      expected: [Entry], recorded: [Entry], what subject: String
    ) throws(Mismatch) {
      guard expected != recorded else { return }
      let rows = max(expected.count, recorded.count)
      let differing = Set(
        (0..<rows).filter { row in
          row >= expected.count || row >= recorded.count || expected[row] != recorded[row]
        })
      // Where two different values print alike, show them in full.
      func text(_ entries: [Entry], against others: [Entry]) -> [String] {
        entries.indices.map { row in
          let plain = entries[row].description
          guard differing.contains(row), row < others.count, others[row].description == plain else {
            return plain
          }
          return String(reflecting: entries[row])
        }
      }
      throw Mismatch(
        index: differing.min() ?? 0, expected: text(expected, against: recorded),
        recorded: text(recorded, against: expected), subject: subject, differingRows: differing)
    }
  }

  // MARK: - Waiting

  /// Waits until a finished, failed or cancelled state is recorded after the current one, or is
  /// the current one, and returns it.
  ///
  /// Returns at once if the last recorded state is terminal. Use it after
  /// ``TaskRunner/start(priority:_:)``, whose operation ends on another task;
  /// ``TaskRunner/run(priority:_:)`` returns the terminal state itself. Returns `nil` if the
  /// waiting task is cancelled or the recorder stops first.
  @discardableResult
  public func waitForTerminalState() async -> RunState? {
    if let last = states.last, last.phase.isTerminal {
      return last
    }
    let start = states.count
    return await wait { states in
      states[start...].first { $0.phase.isTerminal }
    }
  }

  /// Waits until at least `count` states are recorded; returns whether they were (`false` if the
  /// waiting task is cancelled or the recorder stops first).
  @discardableResult
  public func wait(forStateCount count: Int) async -> Bool {
    await wait { states in states.count >= count ? true : nil } ?? false
  }

  /// Suspends until `match` finds something in the recorded states, and returns it; `nil` when
  /// the waiting task is cancelled or the recorder stops.
  private func wait<Match: Sendable>(
    for match: @escaping @MainActor ([RunState]) -> Match?
  ) async -> Match? {
    if let found = match(states) { return found }
    guard token != nil else { return nil }
    lastWaiterID += 1
    let id = lastWaiterID
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Match?, Never>) in
        guard !Task.isCancelled else {
          continuation.resume(returning: nil)
          return
        }
        waiters.append(
          Waiter(id: id) { states, force in
            if let found = match(states) {
              continuation.resume(returning: found)
              return true
            }
            if force {
              continuation.resume(returning: nil)
              return true
            }
            return false
          })
      }
    } onCancel: {
      Task { @MainActor [weak self] in self?.resumeWaiter(id) }
    }
  }

  private struct Waiter {
    let id: Int
    /// Resumes the waiter if its match is found (or if forced); returns whether it did.
    let resumeIfDone: @MainActor (_ states: [RunState], _ force: Bool) -> Bool
  }

  private func resumeWaiters(force: Bool = false) {
    waiters.removeAll { $0.resumeIfDone(states, force) }
  }

  private func resumeWaiter(_ id: Int) {
    waiters.removeAll { $0.id == id && $0.resumeIfDone(states, true) }
  }

  fileprivate func record(_ update: ProgressUpdate) {
    switch update.reason {
    case .stateChanged:
      states.append(update.state)
      resumeWaiters()
    case .frame:
      if recordsFrames {
        frames.append(update)
      }
    }
  }
}

/// Forwards updates to a recorder without keeping it alive, so releasing the recorder detaches it.
private struct Forwarder: ProgressRenderer {
  weak var recorder: StateRecorder?

  func render(_ update: ProgressUpdate) {
    recorder?.record(update)
  }
}
