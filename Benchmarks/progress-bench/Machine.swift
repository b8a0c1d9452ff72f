import Foundation

/// The machine the numbers were measured on, printed above the table and kept in the JSON.
struct Machine: Codable {
  /// `uname -srm`.
  var system: String
  /// The CPU's model name from `/proc/cpuinfo`.
  var cpu: String
  /// The processors this process may use.
  var cores: Int
  /// The first line of `swift --version`, when `swift` is on the `PATH`.
  var swiftVersion: String?
  /// When the benchmark started, in ISO 8601.
  var date: String
  /// `/proc/loadavg` when the benchmark started: how busy the shared machine was.
  var loadAverageAtStart: String?
  /// `/proc/loadavg` when it ended.
  var loadAverageAtEnd: String?

  /// Describes this machine now.
  static func current() -> Machine {
    Machine(
      system: run("uname", "-srm") ?? "unknown",
      cpu: cpuModel() ?? "unknown",
      cores: ProcessInfo.processInfo.activeProcessorCount,
      swiftVersion: run("swift", "--version")?.split(separator: "\n").first.map(String.init),
      date: Date().ISO8601Format(),
      loadAverageAtStart: loadAverage())
  }

  /// The three load averages from `/proc/loadavg`.
  static func loadAverage() -> String? {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else {
      return nil
    }
    return text.split(separator: " ").prefix(3).joined(separator: " ")
  }

  private static func cpuModel() -> String? {
    guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else {
      return nil
    }
    let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
    return line?.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces)
  }

  /// Runs a program found on the `PATH` and returns its output, or `nil` if it cannot run.
  private static func run(_ program: String, _ arguments: String...) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    do {
      try process.run()
    } catch {
      return nil
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
