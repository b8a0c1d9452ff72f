import Synchronization

/// A `Mutex`-protected value whose hand-offs ThreadSanitizer can see.
///
/// On Linux a contended `Mutex` hands the lock over inside the kernel (a priority-inheritance
/// futex), where ThreadSanitizer cannot see it, so it reports false races between two critical
/// sections. An acquiring load at the start of each critical section and a releasing store at its
/// end, on an atomic that only the lock holder touches, give it the happens-before edge that the
/// lock already guarantees. They compile to plain loads and stores on x86-64 (`ldar`/`stlr` on
/// ARM64) and never contend, because only the holder of the lock touches them.
package struct Locked<State: Sendable>: ~Copyable, Sendable {
  private let mutex: Mutex<State>
  private let handOff = Atomic<UInt8>(0)

  package init(_ initial: State) {
    mutex = Mutex(initial)
  }

  /// Runs `body` with exclusive access to the state.
  package borrowing func withLock<Result: Sendable, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try mutex.withLock { (state: inout State) throws(Failure) -> Result in
      _ = handOff.load(ordering: .acquiring)
      defer { handOff.store(0, ordering: .releasing) }
      return try body(&state)
    }
  }
}
