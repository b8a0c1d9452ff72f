import Dispatch
import Foundation
import TaskProgress

#if canImport(Glibc)
import Glibc
#endif

/// Threads of a test's own, as the preferred executor of its task and that task's child tasks:
/// for work that keeps a thread busy for seconds.
///
/// Swift's pool has one thread per core, and every test in the process shares it, the main
/// actor's wake-ups and the operations of other suites' runs included. Under ThreadSanitizer a
/// loop of a few hundred milliseconds takes seconds; on the pool of a 2-core machine, two such
/// loops stop every other test for that long, and their 5 s waits time out. The system shares
/// the cores between these threads and the pool's instead, however long the work takes; and
/// these threads run at a lower priority than the main thread and the pool's, so that the work
/// slows down other tests as little as it can: it takes what cores they leave.
///
/// Jobs run in the order they come. Unstructured tasks (`Task { }`, such as the operation a
/// runner starts) do not inherit the preference: they run on the pool as before.
package final class TestThreads: TaskExecutor {
  private let jobs = Locked<[UnownedJob]>([])
  /// Signalled once for each job enqueued, and once for each thread when they stop.
  private let ready = DispatchSemaphore(value: 0)
  private let count: Int

  /// Starts `count` threads that wait for jobs.
  package init(count: Int) {
    self.count = count
    for _ in 0..<count {
      let thread = Thread { [self] in work() }
      thread.qualityOfService = .utility
      thread.start()
    }
  }

  /// Runs `job` on one of the threads, after those that came before it.
  package func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.append(job) }
    ready.signal()
  }

  private func work() {
    #if os(Linux)
    // The thread's own nice value (per thread on Linux, where the quality of service above
    // does nothing): a tenth of the weight of the main thread and the pool's.
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    #endif
    while true {
      ready.wait()
      // Empty only after `stop()`: every job comes with a signal of its own.
      guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  /// Ends the threads once the jobs enqueued so far have run; no job may come after.
  fileprivate func stop() {
    for _ in 0..<count {
      ready.signal()
    }
  }
}

/// Runs `body` in the calling task with `count` threads of its own as its preferred executor,
/// and child tasks it creates on them too, then ends the threads; returns what `body` returns.
///
/// `body` is synchronous work of seconds, or spawns tasks that keep their threads busy: on
/// threads of its own, it holds none of Swift's pool, which the other tests wait on (see
/// ``TestThreads``). As it runs in the test's task, its expectations are the test's.
///
/// ```swift
/// @Test func aModelOfTwentyThousandSteps() async {
///   await onThreadsOfItsOwn { _ in
///     // a synchronous loop, with #expect at each step
///   }
/// }
/// ```
package func onThreadsOfItsOwn<Value: Sendable, Failure: Error>(
  _ count: Int = 1,
  _ body: @Sendable (_ threads: TestThreads) async throws(Failure) -> Value
) async throws(Failure) -> Value {
  let threads = TestThreads(count: count)
  // Child tasks end with `body`, and other tasks do not inherit the preference: no job comes
  // after this.
  defer { threads.stop() }
  return try await withTaskExecutorPreference(threads) { () async throws(Failure) -> Value in
    try await body(threads)
  }
}
