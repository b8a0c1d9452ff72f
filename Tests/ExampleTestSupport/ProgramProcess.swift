package import Foundation
import Synchronization
package import Testing

/// A built example program, run as a user runs it: piped, with arguments, maybe signalled.
///
/// Its waits block a thread, so they run off Swift's pool (``offThePool(_:)-(()->Value)``), and
/// are async.
package struct ProgramProcess: Sendable {
  /// What a finished process left.
  package struct Result: Sendable {
    /// The exit status, or 128 plus the signal that ended the process.
    package var status: Int32
    /// Its standard output.
    package var output: String
    /// Its standard error.
    package var error: String

    /// The lines of standard output, empty ones left out.
    package var lines: [String] { output.split(separator: "\n").map(String.init) }
    /// The lines of standard error, empty ones left out.
    package var errorLines: [String] { error.split(separator: "\n").map(String.init) }
  }

  /// The folder the test bundle and the products sit in.
  package static var productsDirectory: URL {
    #if os(macOS)
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      return bundle.bundleURL.deletingLastPathComponent()
    }
    #endif
    return Bundle.main.bundleURL
  }

  /// The built `product`.
  package static func executable(_ product: String) -> URL {
    productsDirectory.appendingPathComponent(product)
  }

  /// The process, not started yet.
  package let process = Process()
  /// Its standard output.
  package let output = Pipe()
  /// Its standard error.
  package let error = Pipe()
  /// Signalled when the process has exited.
  private let exited = DispatchSemaphore(value: 0)

  /// How long a test waits for an example program to write what it waits for, or to exit: the
  /// programs run for a few seconds at most, slower under ThreadSanitizer on a busy machine.
  package static let exitLimit: Duration = .seconds(60)

  /// `product` with `arguments`, its standard input empty, its output and error piped.
  package init(_ product: String, _ arguments: [String], environment: [String: String] = [:]) {
    process.executableURL = ProgramProcess.executable(product)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = error
    let exited = self.exited
    process.terminationHandler = { _ in exited.signal() }
  }

  /// `product` started by `/bin/sh` as `product ARGUMENTS >&-`: with standard output closed.
  package static func withStandardOutputClosed(
    _ product: String, _ arguments: [String]
  ) -> ProgramProcess {
    let running = ProgramProcess(product, [])
    running.process.executableURL = URL(fileURLWithPath: "/bin/sh")
    running.process.arguments =
      ["-c", #"exec "$0" "$@" >&-"#, executable(product).path] + arguments
    return running
  }

  /// Runs `product` to the end and collects everything.
  package static func run(
    _ product: String, _ arguments: [String], environment: [String: String] = [:]
  ) async throws -> Result {
    let running = ProgramProcess(product, arguments, environment: environment)
    try running.process.run()
    return await running.finish()
  }

  /// Reads standard output until a line containing `text` has arrived; returns what was read.
  ///
  /// A program still running after ``exitLimit`` hangs: it is ended with `SIGKILL`, which ends
  /// the read, and an issue is recorded.
  package func readOutput(
    until text: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async -> String {
    await killing(
      after: Self.exitLimit, waitingFor: "its output to say \"\(text)\"",
      sourceLocation: sourceLocation
    ) { self.readOutputBlocking(until: text) }
  }

  private func readOutputBlocking(until text: String) -> String {
    var read = Data()
    while !String(decoding: read, as: UTF8.self).contains(text) {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }  // end of output
      read.append(chunk)
    }
    return String(decoding: read, as: UTF8.self)
  }

  /// Waits for the process at most `limit`, then ends it with `SIGKILL`, so that a program that
  /// hangs fails its test instead of hanging the test run; returns whether it exited by itself.
  package func waitForExit(within limit: DispatchTimeInterval) async -> Bool {
    await offThePool { self.waitForExitBlocking(within: limit) }
  }

  private func waitForExitBlocking(within limit: DispatchTimeInterval) -> Bool {
    guard exited.wait(timeout: .now() + limit) == .success else {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      return false
    }
    exited.signal()  // for a later `finish(within:)`
    process.waitUntilExit()
    return true
  }

  /// Waits for the process at most `limit`, then ends it with `SIGKILL`, so that a program that
  /// hangs fails its test instead of hanging the test run; `nil` when it had to be killed.
  ///
  /// Its output is read only once it has exited: for programs that write less than a pipe holds.
  package func finish(
    within limit: DispatchTimeInterval, alreadyRead: String = ""
  ) async -> Result? {
    await offThePool {
      guard self.exited.wait(timeout: .now() + limit) == .success else {
        kill(self.process.processIdentifier, SIGKILL)
        _ = self.finishBlocking(alreadyRead: "")
        return nil
      }
      return self.finishBlocking(alreadyRead: alreadyRead)
    }
  }

  /// Waits for the process and collects what is left of its output, reading it as it comes.
  ///
  /// A program still running after ``exitLimit`` hangs: it is ended with `SIGKILL`, and an
  /// issue is recorded.
  package func finish(
    alreadyRead: String = "", sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Result {
    await killing(after: Self.exitLimit, waitingFor: "it to exit", sourceLocation: sourceLocation) {
      self.finishBlocking(alreadyRead: alreadyRead)
    }
  }

  /// Runs `body`, which blocks until the process writes or exits, off the pool; if the process
  /// is still running after `limit`, ends it with `SIGKILL`, which ends `body`'s reads, and
  /// records an issue that says what the test waited for.
  private func killing<Value: Sendable>(
    after limit: Duration, waitingFor what: String, sourceLocation: SourceLocation,
    _ body: @escaping @Sendable () -> Value
  ) async -> Value {
    let killed = Killed()
    let (process, exited) = (self.process, self.exited)
    let deadline = DispatchWorkItem {
      guard exited.wait(timeout: .now()) == .timedOut else {
        exited.signal()  // for a later wait
        return
      }
      killed.mark()
      kill(process.processIdentifier, SIGKILL)
    }
    let nanoseconds = Int(limit / .nanoseconds(1))
    DispatchQueue.global().asyncAfter(
      deadline: .now() + .nanoseconds(nanoseconds), execute: deadline)
    let value = await offThePool(body)
    deadline.cancel()
    if killed.isMarked {
      let name = process.executableURL?.lastPathComponent ?? "the program"
      Issue.record(
        "\(name) was killed after \(limit) waiting for \(what)", sourceLocation: sourceLocation)
    }
    return value
  }

  private func finishBlocking(alreadyRead: String) -> Result {
    let rest = output.fileHandleForReading.readDataToEndOfFile()
    let errorText = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationReason == .exit
        ? process.terminationStatus : 128 + process.terminationStatus,
      output: alreadyRead + String(decoding: rest, as: UTF8.self),
      error: String(decoding: errorText, as: UTF8.self))
  }
}

/// Whether a deadline ended a process.
private final class Killed: Sendable {
  private let flag = Mutex(false)

  func mark() { flag.withLock { $0 = true } }

  var isMarked: Bool { flag.withLock { $0 } }
}
