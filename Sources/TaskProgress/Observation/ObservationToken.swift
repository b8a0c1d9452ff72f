import Synchronization

/// A registration with a ``TaskRunner``: cancel it to stop the calls.
///
/// A token from ``TaskRunner/observe(_:)`` stops the calls when it is cancelled or released, so
/// keep it as long as you want them. A token from ``TaskRunner/attach(_:)`` stops them only when
/// it is cancelled: the runner keeps the renderer attached for as long as the runner lives.
///
/// ```swift
/// @MainActor final class Model {
///   var tokens: Set<ObservationToken> = []
///   init(runner: TaskRunner) {
///     runner.observe { state in print(state) }.store(in: &tokens)
///   }
/// }
/// ```
public final class ObservationToken: Sendable, Hashable {
  private let flag: CancellationFlag
  private let cancelsOnRelease: Bool
  private let onCancel: @Sendable (_ onMainActor: Bool) -> Void

  init(
    flag: CancellationFlag, cancelsOnRelease: Bool,
    onCancel: @escaping @Sendable (_ onMainActor: Bool) -> Void
  ) {
    self.flag = flag
    self.cancelsOnRelease = cancelsOnRelease
    self.onCancel = onCancel
  }

  deinit {
    if cancelsOnRelease, flag.cancel() {
      onCancel(false)
    }
  }

  /// Stops the calls to the observer or renderer; does nothing if the token was already cancelled.
  ///
  /// A renderer detached on the main actor hears of it (``ProgressRenderer/didDetach()``) before
  /// this returns; from elsewhere, on the main actor soon after.
  public func cancel(isolation: isolated (any Actor)? = #isolation) {
    guard flag.cancel() else { return }
    onCancel(isolation.map { $0 === MainActor.shared } ?? false)
  }

  /// Whether the token was cancelled.
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
