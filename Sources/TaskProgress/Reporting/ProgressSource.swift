import Synchronization

/// Progress kept outside the run that a reporter mirrors, such as a `Foundation.Progress`: the
/// run's frames read it, just before they read the run's reporters.
///
/// A source is registered with ``TaskRunner/Reporter/addSource(_:)``. The runner polls it on
/// every frame of the run, and once more when the run's operation ends, so the source's last
/// value reaches the run's last state. When the run is cancelled or fails, the runner tells the
/// sources still polled, once the run's end is published. A standalone reporter polls its
/// sources when its ``TaskRunner/Reporter/progress`` is read.
package protocol ProgressSource: AnyObject, Sendable {
  /// Reads the source and reports what it read to its reporter.
  ///
  /// - Returns: Whether to keep polling, stop, or cancel the run.
  func poll() -> ProgressSourceStatus

  /// The run was cancelled or failed: the source cancels what it mirrors. It is not polled
  /// again.
  func runCancelled()
}

/// What a ``ProgressSource`` asks of the run after a poll.
package enum ProgressSourceStatus: Sendable {
  /// Poll again on the next frame.
  case following
  /// The source ended (it finished); poll it no more.
  case ended
  /// The source was cancelled: cancel the run, and poll it no more.
  case cancelRun
}

/// The sources of one run, polled on its frames.
final class ProgressSources: Sendable {
  private struct State: Sendable {
    var sources: [any ProgressSource] = []
    /// Whether the run ended: sources added later are refused.
    var isClosed = false
  }

  private let state = Locked(State())

  /// Whether the run has no sources: the frames' fast path, without a poll.
  private let isEmpty = Atomic<Bool>(true)

  /// Adds a source, unless the run ended.
  ///
  /// - Returns: `false` when the run ended and the source will never be polled.
  func add(_ source: any ProgressSource) -> Bool {
    state.withLock { state in
      guard !state.isClosed else { return false }
      state.sources.append(source)
      isEmpty.store(false, ordering: .releasing)
      return true
    }
  }

  /// Polls every source, outside the lock, and drops those that ended.
  ///
  /// - Returns: Whether a source asks to cancel the run.
  func poll() -> Bool {
    guard !isEmpty.load(ordering: .acquiring) else { return false }
    let sources = state.withLock { $0.sources }
    var ended: [ObjectIdentifier] = []
    var cancelRun = false
    for source in sources {
      switch source.poll() {
      case .following:
        continue
      case .ended:
        ended.append(ObjectIdentifier(source))
      case .cancelRun:
        ended.append(ObjectIdentifier(source))
        cancelRun = true
      }
    }
    if !ended.isEmpty {
      state.withLock { state in
        state.sources.removeAll { ended.contains(ObjectIdentifier($0)) }
        isEmpty.store(state.sources.isEmpty, ordering: .releasing)
      }
    }
    return cancelRun
  }

  /// The run's operation ended: a last poll, after which no source is added.
  ///
  /// The sources stay, to be cancelled or dropped once the run's end is published.
  ///
  /// - Returns: Whether a source asks to cancel the run.
  func finalPoll() -> Bool {
    state.withLock { $0.isClosed = true }
    return poll()
  }

  /// The run was cancelled or failed: every source is told, so that the work behind it stops,
  /// and dropped.
  func cancel() {
    for source in takeAll() {
      source.runCancelled()
    }
  }

  /// The run finished: the sources are dropped, so that none keeps the run's reporters alive.
  func drop() {
    takeAll()
  }

  @discardableResult
  private func takeAll() -> [any ProgressSource] {
    state.withLock { state in
      state.isClosed = true
      isEmpty.store(true, ordering: .releasing)
      defer { state.sources.removeAll() }
      return state.sources
    }
  }
}
