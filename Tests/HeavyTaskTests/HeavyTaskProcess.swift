import Foundation

/// The built `heavy-task`, run as a user runs it: piped, with arguments, maybe signalled.
struct HeavyTaskProcess {
  /// What a finished process left.
  struct Result {
    var status: Int32
    var output: String
    var error: String

    var lines: [String] { output.split(separator: "\n").map(String.init) }
    var errorLines: [String] { error.split(separator: "\n").map(String.init) }
  }

  /// The folder the test bundle and the products sit in.
  static var productsDirectory: URL {
    #if os(macOS)
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      return bundle.bundleURL.deletingLastPathComponent()
    }
    #endif
    return Bundle.main.bundleURL
  }

  static var executable: URL {
    productsDirectory.appendingPathComponent("heavy-task")
  }

  let process = Process()
  let output = Pipe()
  let error = Pipe()
  /// Signalled when the process has exited.
  private let exited = DispatchSemaphore(value: 0)

  init(_ arguments: [String], environment: [String: String] = [:]) {
    process.executableURL = HeavyTaskProcess.executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = error
    let exited = self.exited
    process.terminationHandler = { _ in exited.signal() }
  }

  /// `heavy-task` started by `/bin/sh` as `heavy-task ARGUMENTS >&-`: with standard output closed.
  static func withStandardOutputClosed(_ arguments: [String]) -> HeavyTaskProcess {
    let running = HeavyTaskProcess([])
    running.process.executableURL = URL(fileURLWithPath: "/bin/sh")
    running.process.arguments = ["-c", #"exec "$0" "$@" >&-"#, executable.path] + arguments
    return running
  }

  /// Runs to the end and collects everything.
  static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
    let running = HeavyTaskProcess(arguments, environment: environment)
    try running.process.run()
    return running.finish()
  }

  /// Reads standard output until a line containing `text` has arrived; returns what was read.
  func readOutput(until text: String) -> String {
    var read = Data()
    while !String(decoding: read, as: UTF8.self).contains(text) {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }  // end of output
      read.append(chunk)
    }
    return String(decoding: read, as: UTF8.self)
  }

  /// Waits for the process at most `limit`, then ends it with `SIGKILL`, so that a program that
  /// hangs fails its test instead of hanging the test run; `nil` when it had to be killed.
  ///
  /// Its output is read only once it has exited: for programs that write less than a pipe holds.
  func finish(within limit: DispatchTimeInterval) -> Result? {
    guard exited.wait(timeout: .now() + limit) == .success else {
      kill(process.processIdentifier, SIGKILL)
      _ = finish()
      return nil
    }
    return finish()
  }

  /// Waits for the process and collects what is left of its output.
  func finish(alreadyRead: String = "") -> Result {
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
