import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A run's operation driven step by step by a test: the operation waits for a command, carries it
/// out, and waits again, so that every report, return and error happens exactly when the test says.
///
/// The operation ignores cancellation on purpose, so that a test can make a cancelled run report,
/// return or throw afterwards and check that none of it reaches the runner.
final class OperationScript: Sendable {
  /// What the operation does next.
  enum Command: Sendable {
    case report(Double)
    case reportCounts(Int, Int)
    case reportIndeterminate(Int?)
    case reportMessage(String?)
    case finish
    case fail(String)
    case throwCancellation
  }

  private struct State {
    var isWaiting = false
    var isFinished = false
    var operation: CheckedContinuation<Command, Never>?
    var readyWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    var lastWaiterID = 0
  }

  private let state = Locked(State())

  /// The operation to start: it runs commands until one ends it.
  var operation: @concurrent @Sendable (TaskRunner.Reporter) async throws -> Void {
    { [self] reporter in
      while true {
        switch await next() {
        case .report(let fraction): reporter.report(fractionCompleted: fraction)
        case .reportCounts(let completed, let total):
          reporter.report(completed: completed, of: total)
        case .reportIndeterminate(let completed): reporter.reportIndeterminate(completed: completed)
        case .reportMessage(let message): reporter.report(message: message)
        case .finish: return
        case .fail(let message): throw TestError(message: message)
        case .throwCancellation: throw CancellationError()
        }
      }
    }
  }

  /// Watches the run's task: once it ends (the runner has handled its result by then, since the
  /// task calls the runner before it ends), the script is finished.
  func watch(_ task: Task<Void, Never>?) {
    guard let task else { return }
    Task {
      await task.value
      self.markFinished()
    }
  }

  /// Whether the run's task has ended.
  var isFinished: Bool { state.withLock { $0.isFinished } }

  /// Suspends until the operation waits for a command or its task has ended, for at most
  /// ``waitLimit``; returns whether it did, and records an issue if not.
  @discardableResult
  func ready(sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    let id = state.withLock { state in
      state.lastWaiterID += 1
      return state.lastWaiterID
    }
    // The watchdog's timer, not a task per wait: the model test sends commands by the thousand.
    let deadline = Watchdog.shared.schedule(after: waitLimit) { [self] in
      state.withLock { $0.readyWaiters.removeValue(forKey: id) }?.resume(returning: false)
    }
    let ready = await withCheckedContinuation { continuation in
      let now = state.withLock { state in
        if state.isWaiting || state.isFinished { return true }
        state.readyWaiters[id] = continuation
        return false
      }
      if now { continuation.resume(returning: true) }
    }
    Watchdog.shared.withdraw(deadline)
    if !ready {
      recordTimeout(
        waitingFor: "the operation to wait for a command or end", after: waitLimit,
        sourceLocation: sourceLocation)
    }
    return ready
  }

  /// Gives the waiting operation a command, then waits until it waits again or has ended.
  ///
  /// Does nothing if the operation's task has ended (or never called the operation).
  func send(_ command: Command, sourceLocation: SourceLocation = #_sourceLocation) async {
    guard await ready(sourceLocation: sourceLocation) else { return }
    let operation = state.withLock { state -> CheckedContinuation<Command, Never>? in
      guard state.isWaiting else { return nil }
      state.isWaiting = false
      defer { state.operation = nil }
      return state.operation
    }
    guard let operation else { return }
    operation.resume(returning: command)
    await ready(sourceLocation: sourceLocation)
  }

  private func next() async -> Command {
    await withCheckedContinuation { continuation in
      let waiters = state.withLock { state in
        state.isWaiting = true
        state.operation = continuation
        defer { state.readyWaiters = [:] }
        return state.readyWaiters.values
      }
      for waiter in waiters { waiter.resume(returning: true) }
    }
  }

  private func markFinished() {
    let waiters = state.withLock { state in
      state.isFinished = true
      defer { state.readyWaiters = [:] }
      return state.readyWaiters.values
    }
    for waiter in waiters { waiter.resume(returning: true) }
  }
}
