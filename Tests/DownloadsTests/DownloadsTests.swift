import ExampleTestSupport
import Foundation
import Testing

/// `downloads` as a user runs it, piped: plain lines, exit statuses, usage errors and signals.
// Serialized: each test runs a program in a process of its own, and dozens of them at once on two
// cores, under the sanitizer, starve the suites that run in this process.
@Suite("downloads", .serialized, .timeLimit(.minutes(2)))
struct DownloadsTests {
  /// A queue that takes a moment: five files at a hundred times the speed.
  private static let quick = ["--count", "5", "--jobs", "2", "--speed", "100"]

  @Test func pipedItStartsAtOnceAndWritesPlainLinesEndingWithTheTotal() async throws {
    let result = try await ProgramProcess.runDownloads(Self.quick)
    #expect(result.status == 0)
    #expect(result.error.isEmpty)
    #expect(!result.output.contains("\r") && !result.output.contains("\u{1B}"))
    let first = try #require(result.lines.first)
    #expect(first.hasPrefix("Downloading 5 files, ") && first.hasSuffix(" MB, 2 at a time"))
    let last = try #require(result.lines.last)
    #expect(last.hasPrefix("Total: "), "\(result.lines)")
    #expect(last.contains("5 finished"))
    // Every download starts and finishes once, under its file name.
    let names = Set(result.lines.compactMap { $0.split(separator: ":").first.map(String.init) })
    let files = names.subtracting(["Total", first.split(separator: ":").first.map(String.init)!])
    #expect(files.count == 5, "\(files)")
    for file in files {
      #expect(result.lines.filter { $0 == "\(file): started" }.count == 1, "\(file)")
      #expect(result.lines.filter { $0.hasPrefix("\(file): finished in ") }.count == 1, "\(file)")
    }
    // A line per 10% at most, for each download, besides its start and end.
    #expect(result.lines.count <= 1 + 5 * 12 + 1)
  }

  @Test func theSameSeedDownloadsTheSameFiles() async throws {
    let first = try await ProgramProcess.runDownloads(Self.quick + ["--seed", "9"])
    let again = try await ProgramProcess.runDownloads(Self.quick + ["--seed", "9"])
    let other = try await ProgramProcess.runDownloads(Self.quick + ["--seed", "10"])
    #expect(first.lines.first == again.lines.first)
    #expect(first.lines.first != other.lines.first)
  }

  @Test func aFailingDownloadFailsItsBarButNotTheOthersAndExits1() async throws {
    let result = try await ProgramProcess.runDownloads(Self.quick + ["--fail-at", "3"])
    #expect(result.status == 1)
    let failed = result.lines.filter { $0.contains(": failed after ") }
    #expect(failed.count == 1, "\(result.lines)")
    let line = try #require(failed.first)
    #expect(line.hasSuffix("(as --fail-at asked)"))
    #expect(result.lines.filter { $0.contains(": finished in ") }.count == 4)
    let last = try #require(result.lines.last)
    #expect(last.hasPrefix("Total: ") && last.contains("4 finished, 1 failed"), "\(last)")
    // The failure also goes to standard error, as one line naming the download.
    let name = try #require(line.split(separator: ":").first)
    #expect(result.errorLines.count == 1)
    #expect(
      result.errorLines.first?.hasPrefix("downloads: download 3 of 5 (\(name)) failed after ")
        == true)
    #expect(result.error.hasSuffix("(as --fail-at asked)\n"))
  }

  @Test func helpDescribesEveryFlagWithItsDefaultAndTheKeys() async throws {
    let result = try await ProgramProcess.runDownloads(["--help"])
    #expect(result.status == 0)
    #expect(result.error.isEmpty)
    for text in [
      "--count N", "--jobs K", "--seed S", "--speed X", "--fail-at I", "--help",
      "(default: 8)", "(default: 3)", "(default: none)",
      "Enter  start", "c      cancel all", "q      quit",
    ] {
      #expect(result.output.contains(text), "\(text)")
    }
    await #expect(try ProgramProcess.runDownloads(["-h"]).output == result.output)
  }

  /// Every flag with a missing, malformed, negative, huge or repeated value, and the rest.
  static let usageErrors: [([String], String)] = [
    (["--count"], "option '--count' needs a value"),
    (["--count", "many"], "option '--count' expects a number of files from 1 to 1000; got 'many'"),
    (["--count", "0"], "option '--count' expects a number of files from 1 to 1000; got '0'"),
    (["--count", "-3"], "option '--count' expects a number of files from 1 to 1000; got '-3'"),
    (["--count", "1001"], "option '--count' expects a number of files from 1 to 1000; got '1001'"),
    (["--count", "2.5"], "option '--count' expects a number of files from 1 to 1000; got '2.5'"),
    (["--count", "2", "--count=3"], "option '--count' is given more than once"),
    (["--jobs"], "option '--jobs' needs a value"),
    (["--jobs", "0"], "option '--jobs' expects a number of downloads from 1 to 100; got '0'"),
    (["--jobs", "101"], "option '--jobs' expects a number of downloads from 1 to 100; got '101'"),
    (["--jobs", "all"], "option '--jobs' expects a number of downloads from 1 to 100; got 'all'"),
    (["--jobs=1", "--jobs=2"], "option '--jobs' is given more than once"),
    (["--seed"], "option '--seed' needs a value"),
    (
      ["--seed", "-1"],
      "option '--seed' expects a whole number from 0 to 18446744073709551615; got '-1'"
    ),
    (["--seed", "18446744073709551616"], "got '18446744073709551616'"),
    (["--seed", "0x10"], "got '0x10'"),
    (["--seed", "1", "--seed", "1"], "option '--seed' is given more than once"),
    (["--speed"], "option '--speed' needs a value"),
    (["--speed", "fast"], "option '--speed' expects a factor from 0.1 to 1000; got 'fast'"),
    (["--speed", "0"], "option '--speed' expects a factor from 0.1 to 1000; got '0'"),
    (["--speed", "1001"], "option '--speed' expects a factor from 0.1 to 1000; got '1001'"),
    (["--speed", "nan"], "option '--speed' expects a factor from 0.1 to 1000; got 'nan'"),
    (["--speed", "inf"], "option '--speed' expects a factor from 0.1 to 1000; got 'inf'"),
    (["--speed=2", "--speed=3"], "option '--speed' is given more than once"),
    (["--fail-at"], "option '--fail-at' needs a value"),
    (["--fail-at", "0"], "option '--fail-at' expects a download number from 1 to 1000; got '0'"),
    (
      ["--fail-at", "first"],
      "option '--fail-at' expects a download number from 1 to 1000; got 'first'"
    ),
    (["--fail-at", "9"], "option '--fail-at' is 9, past the last download (--count is 8)"),
    (["--fail-at", "1", "--fail-at", "2"], "option '--fail-at' is given more than once"),
    (["--help=yes"], "option '--help' takes no value"),
    (["--items", "3"], "unknown option '--items'"),
    (["-c"], "unknown option '-c'"),
    (["now"], "unexpected argument 'now'"),
  ]

  @Test(arguments: usageErrors)
  func aBadCommandLineIsOneLineNamingItAndExits64(arguments: [String], message: String) async throws
  {
    let result = try await ProgramProcess.runDownloads(arguments)
    #expect(result.status == 64)
    #expect(result.output.isEmpty)
    #expect(result.errorLines.count == 1)
    let line = try #require(result.errorLines.first)
    #expect(line.hasPrefix("downloads: "))
    #expect(line.contains(message))
    #expect(line.hasSuffix("(see 'downloads --help')"))
  }

  static let signals: [(Int32, Int32)] = [(SIGINT, 130), (SIGTERM, 143), (SIGHUP, 143)]

  @Test(arguments: signals)
  func aSignalMidRunCancelsEveryDownloadAndExitsWithItsStatus(
    signal: Int32, status: Int32
  ) async throws {
    let running = ProgramProcess.downloads(["--count", "6", "--jobs", "2", "--speed", "0.1"])
    try running.process.run()
    let started = await running.readOutput(until: ": started")
    kill(running.process.processIdentifier, signal)
    let result = try #require(
      await running.finish(within: .seconds(60), alreadyRead: started), "downloads did not end")
    #expect(result.status == status)
    #expect(result.error.isEmpty)
    #expect(result.lines.contains { $0.contains(": cancelled after ") }, "\(result.lines)")
    #expect(result.lines.last?.hasPrefix("Total: ") == true, "\(result.lines)")
  }

  @Test func aReaderThatGoesAwayStopsTheDownloadsWithoutACrash() async throws {
    // `downloads | head -1`: the queue would take minutes; it stops soon after the reader goes.
    let running = ProgramProcess.downloads(["--count", "50", "--speed", "0.1"])
    try running.process.run()
    let first = await running.readOutput(until: "\n")
    #expect(first.hasPrefix("Downloading 50 files"))
    try running.output.fileHandleForReading.close()
    #expect(await running.waitForExit(within: .seconds(60)), "downloads did not stop")
    #expect(running.process.terminationReason == .exit)
    #expect(running.process.terminationStatus == 141)
    let error = running.error
    #expect(await offThePool { error.fileHandleForReading.readDataToEndOfFile() }.isEmpty)
  }
}
