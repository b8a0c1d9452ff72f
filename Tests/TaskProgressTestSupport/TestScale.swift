package import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// How large the tests that exist to exercise size make their work: smaller under
/// ThreadSanitizer.
///
/// The sanitizer makes every memory access and every main-actor job several times slower, and
/// with the suites in parallel the main actor is one queue that every suite shares: a test that
/// runs 36,000 frames or draws 5,000 bars holds it for a minute, and every other test waits in
/// line. Races show at any size, so under the sanitizer those tests run a fraction of their
/// work; the plain run keeps the full size, and the benchmarks measure the cost.
package enum TestScale {
  /// Whether this process runs under ThreadSanitizer: its runtime is linked in.
  package static let isSanitized: Bool = {
    #if canImport(Darwin)
    let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
    #else
    let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
    #endif
    return dlsym(everywhere, "__tsan_init") != nil
  }()

  /// `full` in a plain run, `sanitized` under ThreadSanitizer.
  package static func count(_ full: Int, sanitized: Int) -> Int {
    isSanitized ? sanitized : full
  }

  /// A suite's time limit: `minutes` in a plain run, four times as long under ThreadSanitizer.
  ///
  /// With every core busy besides, a sanitized run gives the main actor to each suite seconds
  /// apart: a test of a few hundred frames then takes more than a minute, though nothing is
  /// wrong. The waits inside tests (``waitLimit``) stay well under the limit either way.
  package static func timeLimit(minutes: Int) -> TimeLimitTrait.Duration {
    .minutes(isSanitized ? minutes * 4 : minutes)
  }
}

/// Gives the main actor to other suites once a test has held it for a few milliseconds, rather
/// than at every step of a loop.
///
/// A yield at every step costs a whole turn of the main actor's queue per step, which with every
/// suite in parallel is most of a heavy test's time; a yield every few milliseconds keeps both
/// the test and the others moving. The clock only paces the yields: nothing a test checks
/// depends on it.
package struct MainActorTurns {
  private let clock = ContinuousClock()
  private var last: ContinuousClock.Instant
  private let slice: Duration

  /// Turns of at most `slice`.
  package init(slice: Duration = .milliseconds(10)) {
    self.slice = slice
    self.last = clock.now
  }

  /// Yields if this test has held its actor for `slice` or more since the last yield.
  package mutating func yieldIfDue(isolation: isolated (any Actor)? = #isolation) async {
    guard clock.now - last >= slice else { return }
    await Task.yield()
    last = clock.now
  }
}
