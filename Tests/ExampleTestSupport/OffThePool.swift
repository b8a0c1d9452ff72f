import Foundation

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
  package func exit() async {
    await offThePool { self.waitUntilExit() }
  }
}
