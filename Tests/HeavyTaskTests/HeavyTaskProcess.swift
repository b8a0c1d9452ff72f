import ExampleTestSupport
import Foundation

/// The built `heavy-task`, run as a user runs it: piped, with arguments, maybe signalled.
typealias HeavyTaskProcess = ProgramProcess

extension ProgramProcess {
  /// `heavy-task` with `arguments`, not started yet.
  init(_ arguments: [String], environment: [String: String] = [:]) {
    self.init("heavy-task", arguments, environment: environment)
  }

  /// `heavy-task` started by `/bin/sh` as `heavy-task ARGUMENTS >&-`: with standard output closed.
  static func withStandardOutputClosed(_ arguments: [String]) -> ProgramProcess {
    withStandardOutputClosed("heavy-task", arguments)
  }

  /// Runs `heavy-task` to the end and collects everything.
  static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result
  {
    try await run("heavy-task", arguments, environment: environment)
  }
}

extension PseudoTerminal {
  /// Starts `heavy-task` on the terminal, as ``launch(_:product:environment:standardError:)``
  /// does.
  func launch(
    _ arguments: [String], environment: [String: String] = [:], standardError: Pipe? = nil
  ) throws -> Process {
    try launch(
      arguments, product: "heavy-task", environment: environment, standardError: standardError)
  }
}
