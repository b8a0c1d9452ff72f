extension TaskRunner {
  /// The runner's states as an asynchronous sequence, for code that awaits them instead of
  /// observing them: a server, a command-line tool.
  ///
  /// ```swift
  /// for await state in runner.states {
  ///   print(state)
  ///   if state.phase.isTerminal { break }
  /// }
  /// ```
  ///
  /// Each iterator is a registration of its own with the runner, made on the main actor when
  /// it is first asked for a state. It yields the state the runner has then, followed by the
  /// states ``observe(_:)`` delivers, in the same order: a consumer that keeps up sees every one
  /// of them.
  ///
  /// A consumer slower than the runner misses no transition, and what waits for it grows with
  /// the transitions, not with the reports: while states wait, a new `.running` (or `.paused`)
  /// state replaces the last waiting state if that one has the same phase, and every other state
  /// joins the queue. So a consumer that falls behind gets the latest progress of each stretch
  /// of running or pausing, and every state around them:
  ///
  /// ```
  /// runner:   idle  running(0) running(0.4) running(0.8) finished idle running(0)
  /// waiting:  idle  running(0.8)                         finished idle running(0)
  /// ```
  ///
  /// The sequence ends when the runner is deallocated, after the states it published on the
  /// way (`.cancelled`, if a run was active), and when the iterating task is cancelled, at once,
  /// dropping the states that were waiting. Neither the sequence nor its iterators keep the
  /// runner alive: a sequence whose runner is gone before iteration begins is empty. An iterator
  /// that is released ends its registration.
  public var states: some AsyncSequence<RunState, Never> & Sendable {
    RunStates(runner: self)
  }
}

/// The states of a ``TaskRunner``, as an asynchronous sequence: what ``TaskRunner/states``
/// returns.
struct RunStates: AsyncSequence, Sendable {
  /// A state of the runner.
  typealias Element = RunState
  /// The sequence never throws.
  typealias Failure = Never

  private weak var runner: TaskRunner?

  init(runner: TaskRunner) {
    self.runner = runner
  }

  /// Creates an iterator with a registration of its own, which begins with its first
  /// ``AsyncIterator/next(isolation:)``.
  func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(runner: runner)
  }

  /// Iterates over the states of a runner; see ``RunStates``.
  ///
  /// Call ``next(isolation:)`` from one task at a time.
  struct AsyncIterator: AsyncIteratorProtocol {
    /// The runner to register with, until the registration is made.
    private weak var runner: TaskRunner?
    /// The registration: `nil` once the sequence has ended.
    private var subscription: StateSubscription? = StateSubscription()
    private var isRegistered = false

    init(runner: TaskRunner?) {
      self.runner = runner
    }

    /// Waits for the next state and returns it, or returns `nil` once the runner is deallocated
    /// or the task is cancelled.
    ///
    /// The first call registers with the runner on the main actor and returns the runner's
    /// state at once.
    mutating func next(
      isolation actor: isolated (any Actor)? = #isolation
    ) async -> RunState? {
      guard let subscription else { return nil }
      if !isRegistered {
        isRegistered = true
        let runner = self.runner
        self.runner = nil
        if !Task.isCancelled {
          await subscription.register(with: runner)
        }
      }
      guard let state = await subscription.next(isolation: actor) else {
        self.subscription = nil  // releasing it ends the registration
        return nil
      }
      return state
    }

    /// Waits for the next state and returns it, as ``next(isolation:)`` does.
    mutating func next() async -> RunState? {
      await next(isolation: nil)
    }
  }
}

extension RunPhase {
  /// Whether a state of this phase carries a progress that changes while the phase stays the
  /// same, so that a newer state of the phase may stand for an older one.
  var carriesProgress: Bool {
    self == .running || self == .paused
  }
}

/// One iterator's registration with a runner: the states waiting for the consumer, and the
/// consumer waiting for a state.
///
/// The runner delivers states on the main actor; the consumer takes them on any executor.
private final class StateSubscription: Sendable {
  private struct State: Sendable {
    /// The states delivered and not yet taken, at most one per transition.
    var buffer: [RunState] = []
    /// The consumer suspended in `next`; only while the buffer is empty.
    var waiter: CheckedContinuation<RunState?, Never>?
    /// Whether no more states come: the runner is gone or the consumer's task was cancelled.
    var isFinished = false
    var isRegistered = false
    /// The registration's token; releasing it ends the registration.
    var token: ObservationToken?
  }

  private let state = Locked(State())

  /// Registers with the runner, which delivers its current state at once; finishes the
  /// sequence if the runner is gone.
  @MainActor
  func register(with runner: TaskRunner?) {
    let isNew = state.withLock { state in
      defer { state.isRegistered = true }
      return !state.isRegistered && !state.isFinished
    }
    guard isNew else { return }
    guard let runner else {
      finish()
      return
    }
    let link = Link(self)
    let token = runner.observe { state in link.receive(state) }
    let kept = state.withLock { state in
      guard !state.isFinished else { return false }
      state.token = token
      return true
    }
    if !kept {
      token.cancel()  // the consumer's task was cancelled while the runner delivered
    }
  }

  /// Hands a state to the waiting consumer, or adds it to the buffer, where a progress replaces
  /// a waiting progress of the same phase.
  func receive(_ new: RunState) {
    let waiter = state.withLock { state -> CheckedContinuation<RunState?, Never>? in
      guard !state.isFinished else { return nil }
      if let waiter = state.waiter {
        state.waiter = nil
        return waiter
      }
      if let last = state.buffer.last, last.phase == new.phase, new.phase.carriesProgress {
        state.buffer[state.buffer.count - 1] = new
      } else {
        state.buffer.append(new)
      }
      return nil
    }
    waiter?.resume(returning: new)
  }

  /// Ends the sequence after the states waiting in the buffer: the runner is gone.
  func finish() {
    let waiter = state.withLock { state in
      state.isFinished = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: nil)
  }

  /// Ends the sequence at once and ends the registration: the consumer's task was cancelled.
  func cancel() {
    let (waiter, token) = state.withLock { state in
      state.isFinished = true
      state.buffer.removeAll()
      defer { (state.waiter, state.token) = (nil, nil) }
      return (state.waiter, state.token)
    }
    waiter?.resume(returning: nil)
    token?.cancel()
  }

  /// Takes the oldest waiting state, or waits for one; `nil` once the sequence has ended.
  func next(isolation actor: isolated (any Actor)?) async -> RunState? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<RunState?, Never>) in
        let ready = state.withLock { state -> RunState?? in
          if !state.buffer.isEmpty {
            return .some(state.buffer.removeFirst())
          }
          if state.isFinished {
            return .some(nil)
          }
          precondition(state.waiter == nil, "RunStates.AsyncIterator.next() called concurrently")
          state.waiter = continuation
          return nil
        }
        if let ready {
          continuation.resume(returning: ready)
        }
      }
    } onCancel: {
      cancel()
    }
  }

  /// What the runner's observer holds: it forwards states without keeping the subscription
  /// alive, and finishes the sequence when the runner releases it (the runner is deallocated).
  private final class Link: Sendable {
    weak let subscription: StateSubscription?

    init(_ subscription: StateSubscription) {
      self.subscription = subscription
    }

    func receive(_ state: RunState) {
      subscription?.receive(state)
    }

    deinit {
      subscription?.finish()
    }
  }
}
