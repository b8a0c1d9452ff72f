import ExampleTestSupport
import Foundation
import Testing

/// `heavy-task` as a user runs it, piped: output, exit statuses, usage errors, logs and signals.
// Serialized: each test runs a program in a process of its own, and dozens of them at once on two
// cores, under the sanitizer, starve the suites that run in this process.
@Suite("heavy-task", .serialized, .timeLimit(.minutes(2)))
struct HeavyTaskTests {
  private func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("HeavyTaskTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  @Test func pipedItPressesTheButtonItselfAndWritesPlainLines() async throws {
    let result = try await HeavyTaskProcess.run(["--delay-ms", "2"])
    #expect(result.status == 0)
    #expect(result.error.isEmpty)
    #expect(result.lines.first == "[ Perform a Heavy Task ] pressed")
    #expect(result.lines.dropFirst().first == "Heavy task: started")
    let last = try #require(result.lines.last)
    #expect(last.hasPrefix("Heavy task: finished in ") && last.hasSuffix("s  50/50"))
    let steps = result.lines.dropFirst(2).dropLast()
    #expect(steps.count <= 10)
    #expect(steps.allSatisfy { $0.hasPrefix("Heavy task: ") && $0.contains("/50") })
    #expect(!result.output.contains("\r") && !result.output.contains("\u{1B}"))
  }

  @Test func aFailingItemEndsTheRunWithStatus1AndSaysWhy() async throws {
    let result = try await HeavyTaskProcess.run([
      "--items", "10", "--delay-ms", "1", "--fail-at", "4",
    ])
    #expect(result.status == 1)
    let last = try #require(result.lines.last)
    #expect(last.hasPrefix("Heavy task: failed after "))
    #expect(last.hasSuffix(": item 4 threw an error (as --fail-at asked)"))
  }

  @Test func aFailedRunIsAlsoOneLineOnStandardErrorNamingTheItem() async throws {
    let result = try await HeavyTaskProcess.run([
      "--items", "5", "--delay-ms", "1", "--fail-at", "3",
    ])
    #expect(result.status == 1)
    #expect(
      result.errorLines == [
        "heavy-task: the heavy task failed at item 3 of 5: item 3 threw an error (as --fail-at asked)"
      ])
    #expect(result.error.hasSuffix("\n"))
    #expect(result.lines.last?.hasPrefix("Heavy task: failed after ") == true)
  }

  @Test func jobsPerformItemsConcurrentlyAndCountEveryOne() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let result = try await HeavyTaskProcess.run([
      "--items", "40", "--delay-ms", "2", "--jobs", "4", "--log", url.path,
    ])
    #expect(result.status == 0)
    #expect(result.error.isEmpty)
    #expect(result.lines.last?.hasPrefix("Heavy task: finished in ") == true)
    let objects = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
    }
    let counts = objects.compactMap { $0["completed"] as? Int }
    #expect(counts == counts.sorted(), "the count never goes back: \(counts)")
    #expect(objects.last?["phase"] as? String == "finished")
    #expect(objects.last?["completed"] as? Int == 40)
  }

  @Test func withJobsAFailingItemFailsTheRunAndNamesTheItem() async throws {
    let result = try await HeavyTaskProcess.run([
      "--items", "40", "--delay-ms", "2", "--jobs", "4", "--fail-at", "10",
    ])
    #expect(result.status == 1)
    #expect(
      result.errorLines == [
        "heavy-task: the heavy task failed at item 10 of 40: item 10 threw an error (as --fail-at asked)"
      ])
  }

  @Test func noItemsFinishAtOnce() async throws {
    let result = try await HeavyTaskProcess.run(["--items", "0"])
    #expect(result.status == 0)
    #expect(result.lines.last?.hasPrefix("Heavy task: finished in ") == true)
  }

  @Test(arguments: ["linear", "easeIn", "easeOut", "easeInOut", "spring", "none"])
  func everyCurveRuns(curve: String) async throws {
    let result = try await HeavyTaskProcess.run([
      "--items", "3", "--delay-ms", "1", "--curve", curve,
    ])
    #expect(result.status == 0)
    #expect(result.lines.last?.hasPrefix("Heavy task: finished in ") == true)
    #expect(result.error.isEmpty)
  }

  @Test func helpDescribesEveryFlagWithItsDefault() async throws {
    let result = try await HeavyTaskProcess.run(["--help"])
    #expect(result.status == 0)
    for flag in [
      "--items N", "--delay-ms D", "--fail-at K", "--jobs J", "--log FILE", "--curve CURVE",
      "--help",
    ] {
      #expect(result.output.contains(flag), "\(flag)")
    }
    for defaultValue in [
      "(default: 50)", "(default: 40)", "(default: none)", "(default: 1, one after another)",
      "(default: spring)",
    ] {
      #expect(result.output.contains(defaultValue), "\(defaultValue)")
    }
    await #expect(try HeavyTaskProcess.run(["-h"]).output == result.output)
  }

  @Test func helpNamesTheKeysOfTheScreen() async throws {
    let result = try await HeavyTaskProcess.run(["--help"])
    for key in ["Enter  press the button", "p      pause the run", "c      cancel", "q      quit"] {
      #expect(result.output.contains(key), "\(key)")
    }
  }

  @Test func eachItemSaysWhichObjectIsUnderWay() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let result = try await HeavyTaskProcess.run([
      "--items", "20", "--delay-ms", "5", "--log", url.path,
    ])
    #expect(result.status == 0)
    #expect(!result.output.contains("\r") && !result.output.contains("\u{1B}"))
    let objects = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
    }
    let messages = objects.compactMap { $0["message"] as? String }
    #expect(messages.contains { $0.contains("Processing") }, "no message in the log: \(objects)")
    let expected = Set((1...20).map { "Processing object \($0) of 20" })
    #expect(messages.allSatisfy { expected.contains($0) }, "\(messages)")
    // Where the plain lines show the message, they show the same text.
    for line in result.lines where line.contains("Processing") {
      #expect(expected.contains { line.contains($0) }, "\(line)")
    }
  }

  /// Every flag with a missing, malformed, negative, huge or repeated value, and the rest.
  static let usageErrors: [([String], String)] = [
    (["--items"], "option '--items' needs a value"),
    (
      ["--items", "many"], "option '--items' expects a whole number from 0 to 10000000; got 'many'"
    ),
    (["--items", "-1"], "option '--items' expects a whole number from 0 to 10000000; got '-1'"),
    (
      ["--items", "10000001"],
      "option '--items' expects a whole number from 0 to 10000000; got '10000001'"
    ),
    (["--items", "99999999999999999999"], "got '99999999999999999999'"),
    (["--items", "2", "--items", "3"], "option '--items' is given more than once"),
    (["--delay-ms"], "option '--delay-ms' needs a value"),
    (
      ["--delay-ms", "1.5"],
      "option '--delay-ms' expects a number of milliseconds from 0 to 60000; got '1.5'"
    ),
    (
      ["--delay-ms", "-40"],
      "option '--delay-ms' expects a number of milliseconds from 0 to 60000; got '-40'"
    ),
    (
      ["--delay-ms", "60001"],
      "option '--delay-ms' expects a number of milliseconds from 0 to 60000; got '60001'"
    ),
    (["--delay-ms=1", "--delay-ms=2"], "option '--delay-ms' is given more than once"),
    (["--fail-at"], "option '--fail-at' needs a value"),
    (
      ["--fail-at", "third"],
      "option '--fail-at' expects an item number from 1 to 10000000; got 'third'"
    ),
    (["--fail-at", "0"], "option '--fail-at' expects an item number from 1 to 10000000; got '0'"),
    (
      ["--fail-at", "-3"], "option '--fail-at' expects an item number from 1 to 10000000; got '-3'"
    ),
    (["--fail-at", "18446744073709551616"], "got '18446744073709551616'"),
    (["--fail-at", "51"], "option '--fail-at' is 51, past the last item (--items is 50)"),
    (["--fail-at", "1", "--fail-at", "2"], "option '--fail-at' is given more than once"),
    (["--jobs"], "option '--jobs' needs a value"),
    (["--jobs", "0"], "option '--jobs' expects a number of items from 1 to 1000; got '0'"),
    (["--jobs", "-2"], "option '--jobs' expects a number of items from 1 to 1000; got '-2'"),
    (["--jobs", "1001"], "option '--jobs' expects a number of items from 1 to 1000; got '1001'"),
    (["--jobs", "four"], "option '--jobs' expects a number of items from 1 to 1000; got 'four'"),
    (["--jobs", "2", "--jobs=3"], "option '--jobs' is given more than once"),
    (["--log"], "option '--log' needs a value"),
    (["--log="], "option '--log' needs a file path, got ''"),
    (["--log", "a.log", "--log", "b.log"], "option '--log' is given more than once"),
    (["--curve"], "option '--curve' needs a value"),
    (
      ["--curve", "bouncy"],
      "option '--curve' expects one of linear, easeIn, easeOut, easeInOut, spring, none; got 'bouncy'"
    ),
    (["--curve", "linear", "--curve=spring"], "option '--curve' is given more than once"),
    (["--help=yes"], "option '--help' takes no value"),
    (["--verbose"], "unknown option '--verbose'"),
    (["-x"], "unknown option '-x'"),
    (["now"], "unexpected argument 'now'"),
  ]

  @Test(arguments: usageErrors)
  func aBadCommandLineIsOneLineNamingItAndExits64(arguments: [String], message: String) async throws
  {
    let result = try await HeavyTaskProcess.run(arguments)
    #expect(result.status == 64)
    #expect(result.output.isEmpty)
    #expect(result.errorLines.count == 1)
    let line = try #require(result.errorLines.first)
    #expect(line.hasPrefix("heavy-task: "))
    #expect(line.contains(message))
    #expect(line.hasSuffix("(see 'heavy-task --help')"))
  }

  @Test func theLogFileGetsJSONLines() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let result = try await HeavyTaskProcess.run([
      "--items", "20", "--delay-ms", "1", "--log", url.path,
    ])
    #expect(result.status == 0)
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
    #expect(lines.count >= 3)
    for line in lines {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect(object?["label"] as? String == "heavy-task")
    }
    #expect(lines.last?.contains(#""phase":"finished""#) == true)
  }

  @Test(arguments: [
    (["--items", "50"], 50, "finished"), (["--items", "100", "--fail-at", "30"], 29, "failed"),
  ])
  func theLastReportIsLoggedBeforeTheEnd(
    arguments: [String], completed: Int, phase: String
  ) async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let result = try await HeavyTaskProcess.run(arguments + ["--delay-ms", "1", "--log", url.path])
    #expect(result.status == (phase == "finished" ? 0 : 1))
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
    let objects = try lines.map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
    }
    #expect(objects.last?["phase"] as? String == phase)
    let lastRunning = objects.last { $0["phase"] as? String == "running" }
    #expect(lastRunning?["completed"] as? Int == completed)
    if phase == "failed" {
      #expect(result.output.contains("failed after"))
      #expect(result.output.contains("at 29% 29/100: item 30"))
    }
  }

  @Test func withStandardOutputClosedTheLogGetsOnlyItsOwnLines() async throws {
    // With descriptor 1 closed, the log file would get its number, and the lines meant for
    // standard output would go into the log.
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let running = HeavyTaskProcess.withStandardOutputClosed(
      ["--items", "5", "--delay-ms", "1", "--log", url.path])
    try running.process.run()
    let result = try #require(await running.finish(within: .seconds(60)), "heavy-task did not end")
    #expect(result.output.isEmpty)
    // Its lines went to /dev/null: the run went on to the end.
    #expect(result.status == 0)
    #expect(result.error.isEmpty)
    let lines = try String(contentsOf: url, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.last == "")  // every line ends with a newline
    let records = lines.dropLast()
    #expect(!records.isEmpty)
    for line in records {
      #expect(line.hasPrefix("{") && line.hasSuffix("}"), "not a JSON object: \(line)")
      #expect(!line.contains("\u{1B}") && !line.contains("\r"))
      #expect(!line.contains("Heavy task") && !line.contains("pressed"))
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect(object?["label"] as? String == "heavy-task")
    }
    #expect(records.last?.contains(#""phase":"finished""#) == true)
    #expect(records.last?.contains(#""completed":5"#) == true)
  }

  @Test func aFIFOThatNoProcessReadsIsALogThatCannotBeWritten() async throws {
    let path = try temporaryFolder().appendingPathComponent("progress.fifo").path
    try #require(mkfifo(path, 0o600) == 0)
    let running = HeavyTaskProcess(["--items", "5", "--delay-ms", "1", "--log", path])
    try running.process.run()
    // Were heavy-task to wait for a reader, it would be killed after a minute and the test fail.
    let result = try #require(
      await running.finish(within: .seconds(60)), "heavy-task waited for a reader")
    #expect(result.status == 73)
    #expect(
      result.errorLines == [
        "heavy-task: cannot open log file '\(path)': no process is reading the FIFO"
      ])
    #expect(result.output.isEmpty)
  }

  static let unwritableLogs: [(String, String)] = [
    (
      "/no/such/folder/run.log",
      "cannot open log file '/no/such/folder/run.log': No such file or directory"
    ),
    ("/dev/full", "cannot write to log file '/dev/full': No space left on device"),
    ("/", "cannot open log file '/': Is a directory"),
    (
      "/no/such\nfolder/run.log",
      "cannot open log file '/no/such\\nfolder/run.log': No such file or directory"
    ),
  ]

  @Test(arguments: unwritableLogs)
  func aLogFileThatCannotBeWrittenExits73(path: String, message: String) async throws {
    let result = try await HeavyTaskProcess.run(["--items", "5", "--delay-ms", "1", "--log", path])
    #expect(result.status == 73)
    #expect(result.errorLines == ["heavy-task: " + message])
  }

  static let signals: [(Int32, Int32)] = [(SIGINT, 130), (SIGTERM, 143)]

  @Test(arguments: signals)
  func aSignalMidRunCancelsItAndExitsWithItsStatus(signal: Int32, status: Int32) async throws {
    let running = HeavyTaskProcess(["--items", "100", "--delay-ms", "100"])
    try running.process.run()
    let started = await running.readOutput(until: "Heavy task: started")
    kill(running.process.processIdentifier, signal)
    let result = await running.finish(alreadyRead: started)
    #expect(result.status == status)
    #expect(result.lines.last?.hasPrefix("Heavy task: cancelled after ") == true)
    #expect(result.error.isEmpty)
  }

  @Test func aReaderThatGoesAwayStopsTheWorkWithoutACrash() async throws {
    // `heavy-task | head -1`: the run would take 10 s; it stops soon after the reader goes.
    let running = HeavyTaskProcess(["--items", "200", "--delay-ms", "50"])
    try running.process.run()
    let first = await running.readOutput(until: "\n")
    #expect(first.hasPrefix("[ Perform a Heavy Task ] pressed"))
    try running.output.fileHandleForReading.close()
    let error = running.error
    let errorText = await offThePool { error.fileHandleForReading.readDataToEndOfFile() }
    await running.process.exit()
    #expect(running.process.terminationReason == .exit)
    #expect(running.process.terminationStatus == 141)
    #expect(errorText.isEmpty)
  }
}
