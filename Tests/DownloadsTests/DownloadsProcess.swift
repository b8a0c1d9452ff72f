import ExampleTestSupport
import Foundation
import Testing

extension ProgramProcess {
  /// `downloads` with `arguments`, piped, not started yet.
  static func downloads(_ arguments: [String]) -> ProgramProcess {
    ProgramProcess("downloads", arguments)
  }

  /// Runs `downloads` piped to the end, a minute at most, and collects everything.
  static func runDownloads(_ arguments: [String]) async throws -> Result {
    let running = downloads(arguments)
    try running.process.run()
    return try #require(await running.finish(within: .seconds(60)), "downloads did not end")
  }
}

extension PseudoTerminal {
  /// Starts `downloads` on the terminal.
  func launchDownloads(
    _ arguments: [String], environment: [String: String] = [:], standardError: Pipe? = nil
  ) throws -> Process {
    try launch(
      arguments, product: "downloads", environment: environment, standardError: standardError)
  }
}
