import Foundation
package import Testing

/// Runs `body` on a thread of its own, and waits for it without holding a thread of Swift's
/// pool.
///
/// Reading what a program writes, and waiting for it to exit, block their thread for as long
/// as the program takes: seconds under ThreadSanitizer on a busy machine. The pool has one
/// thread per core and every test in the process shares it, the main actor's jobs included, so
/// two such waits on a 2-core machine would stop every other test for that long.
package func offThePool<Value: Sendable>(
  _ body: @escaping @Sendable () throws -> Value
) async throws -> Value {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result(catching: body)) }.start()
  }
}

/// Runs `body` on a thread of its own, and waits for it without holding a thread of Swift's
/// pool; see ``offThePool(_:)-(()->Value)``.
package func offThePool<Value: Sendable>(
  _ body: @escaping @Sendable () -> Value
) async -> Value {
  await withCheckedContinuation { continuation in
    Thread { continuation.resume(returning: body()) }.start()
  }
}

extension Process {
  /// Waits until the process has exited, off the pool.
  ///
  /// A program still running after `limit` hangs: it is ended with `SIGKILL`, and an issue is
  /// recorded.
  package func exit(
    within limit: Duration = ProgramProcess.exitLimit,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    guard await offThePool({ self.waitUntilExit(within: limit) }) else {
      let name = executableURL?.lastPathComponent ?? "the program"
      Issue.record(
        "\(name) was killed after \(limit) waiting for it to exit", sourceLocation: sourceLocation)
      return
    }
  }

  /// Waits at most `limit` for the process to exit, then ends it with `SIGKILL`.
  ///
  /// Returns whether it exited by itself. It blocks its thread.
  func waitUntilExit(within limit: Duration) -> Bool {
    let deadline = ContinuousClock.now + limit
    while isRunning {
      guard ContinuousClock.now < deadline else {
        kill(processIdentifier, SIGKILL)
        waitUntilExit()
        return false
      }
      usleep(5_000)
    }
    waitUntilExit()
    return true
  }
}
