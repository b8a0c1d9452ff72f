import Synchronization

/// A registration with a ``TaskRunner`` or a ``TaskRunnerGroup``: cancel it to stop the calls.
///
/// What releasing a token does depends on where it came from:
///
/// | Token from | The calls stop when |
/// | --- | --- |
/// | ``TaskRunner/observe(_:)``, ``TaskRunnerGroup/observe(_:)`` | the token is cancelled **or released** |
/// | ``TaskRunner/attach(_:)``, ``TaskRunnerGroup/attach(_:)`` | the token is cancelled, or the runner or group goes away |
///
/// So keep an observer's token for as long as you want the calls: in a property, or with
/// ``store(in:)-(Set<ObservationToken>)`` in a set or an array that is a property. A token in a
/// local constant that is never used again may be released at once in an optimized build, and
/// the calls stop with it.
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

  /// Keeps this token in a set, as Combine's `AnyCancellable.store(in:)` does: the calls of an
  /// observer go on for as long as the set holds the token.
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
