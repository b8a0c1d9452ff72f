import Synchronization

/// A registration with a ``TaskRunner``: keep it to keep receiving calls, cancel or release it to
/// stop.
///
/// Cancelling takes effect at once, even in the middle of a round of notifications: an observer
/// whose token is cancelled (or released) by an earlier observer's callback gets no further call.
/// A token may be cancelled or released from any thread.
///
/// ```swift
/// @MainActor final class Model {
///   var tokens: Set<ObservationToken> = []
///   init(runner: TaskRunner) {
///     runner.observe { state in print(state) }.store(in: &tokens)
///   }
/// }
/// ```
///
/// A token holds neither the runner nor the observer's closure alive on its own account; the
/// runner holds the closure until the token is cancelled. Capture the runner weakly in an
/// observer that the runner itself keeps, as with any stored callback.
public final class ObservationToken: Sendable, Hashable {
  private let flag: CancellationFlag
  private let onCancel: @Sendable () -> Void

  init(flag: CancellationFlag, onCancel: @escaping @Sendable () -> Void) {
    self.flag = flag
    self.onCancel = onCancel
  }

  deinit {
    cancel()
  }

  /// Stops the calls to the observer; does nothing if the token was already cancelled.
  public func cancel() {
    if flag.cancel() {
      onCancel()
    }
  }

  /// Whether ``cancel()`` was called.
  public var isCancelled: Bool {
    flag.isCancelled
  }

  /// Keeps this token in a set, as Combine's `AnyCancellable.store(in:)` does.
  public func store(in set: inout Set<ObservationToken>) {
    set.insert(self)
  }

  /// Tokens are equal only to themselves.
  public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool {
    lhs === rhs
  }

  /// Hashes the token's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}

/// A flag that flips once, from any thread, shared by a token and the registry's entry.
final class CancellationFlag: Sendable {
  private let cancelled = Atomic(false)

  /// Sets the flag; returns whether this call was the one that set it.
  func cancel() -> Bool {
    !cancelled.exchange(true, ordering: .acquiringAndReleasing)
  }

  var isCancelled: Bool {
    cancelled.load(ordering: .acquiring)
  }
}
