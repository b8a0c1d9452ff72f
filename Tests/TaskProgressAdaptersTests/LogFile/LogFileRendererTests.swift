import Foundation
import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@MainActor
@Suite("Log file renderer", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct LogFileRendererTests {
  /// A fresh folder under the system's temporary folder.
  private func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("TaskProgressTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// A wall clock that starts at 2026-11-29T14:35:03Z and moves 1 ms per reading.
  private func steppingClock() -> @Sendable () -> Duration {
    let readings = Locked<Int64>(0)
    return {
      let reading = readings.withLock { reading in
        defer { reading += 1 }
        return reading
      }
      return .seconds(1_795_962_903) + .milliseconds(reading)
    }
  }

  private func objects(in url: URL) throws -> [[String: Any]] {
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(text.hasSuffix("\n"))
    return try text.split(separator: "\n").map { line in
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
      return try #require(object as? [String: Any], "not an object: \(line)")
    }
  }

  @Test func everyLineParsesAndTellsTheRunsStory() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let log = try LogFileRenderer(path: url.path, label: "import", wallClock: steppingClock())
    await ScriptedRun().play(into: log)
    let lines = try objects(in: url)
    #expect(
      lines.map { $0["phase"] as? String } == Array(repeating: "running", count: 7) + ["finished"])
    #expect(lines.map { $0["completed"] as? Int } == [nil, 5, 10, 20, 30, 45, 50, 50])
    #expect(lines.dropFirst().dropLast().allSatisfy { $0["total"] as? Int == 50 })
    #expect(lines.allSatisfy { $0["label"] as? String == "import" })
    #expect(lines.last?["fraction"] as? Double == 1)
    #expect(lines.last?["elapsed"] as? Double == 1.2)
    let times = lines.compactMap { $0["time"] as? String }
    #expect(times.first == "2026-11-29T14:35:03.000Z")
    #expect(times.count == lines.count)
    #expect(log.lastError == nil)
  }

  /// One file, one descriptor, for a whole group: each line names its member, and each member's
  /// run is logged from its start to its end.
  @Test func aGroupOf300RunsWritesOneFileWhoseLinesNameTheirMembers() async throws {
    let url = try temporaryFolder().appendingPathComponent("group.log")
    let log = try LogFileRenderer(path: url.path, label: "batch", wallClock: steppingClock())
    let group = TaskRunnerGroup()
    let token = group.attach(log)
    let outcomes = await group.run(
      0..<300, maxConcurrency: 8, label: { "item \($0)" },
      perform: { item, reporter in
        reporter.report(completed: 1, of: 2)
        if item == 7 { throw TestError(message: "item 7 broke") }
        reporter.report(completed: 2, of: 2)
      })
    #expect(outcomes.filter { $0 == .finished }.count == 299)
    let lines = try objects(in: url)
    #expect(lines.allSatisfy { $0["label"] as? String == "batch" })
    let ends = lines.filter { ["finished", "failed"].contains($0["phase"] as? String) }
    #expect(Set(ends.compactMap { $0["member"] as? String }).count == 300)
    let failed = lines.first { $0["phase"] as? String == "failed" }
    #expect(failed?["member"] as? String == "item 7")
    #expect(failed?["error"] as? String == "item 7 broke")
    #expect(
      lines.contains {
        $0["member"] as? String == "item 299" && $0["phase"] as? String == "running"
      })
    #expect(log.lastError == nil)
    token.cancel()
  }

  /// A disk that takes its time to sync holds up neither the queue nor the main actor: while the
  /// first run's sync is held, the other 199 runs end and are logged, and their ends are synced
  /// by one more sync after it, not one each.
  ///
  /// The sync is held for as long as the runs take, however loaded the machine: until the test
  /// lets it go.
  @Test func runsThatEndDuringASyncAreSyncedByOneMore() async throws {
    let url = try temporaryFolder().appendingPathComponent("group.log")
    let held = HeldSync()
    defer { held.release() }  // on every way out, so that no sync stays held
    let log = try LogFileRenderer(
      path: url.path, wallClock: steppingClock(), syncFile: held.function)
    let group = TaskRunnerGroup()
    let token = group.attach(log)
    let outcomes = await group.run(0..<200, maxConcurrency: 8) { _, reporter in
      reporter.report(completed: 1, of: 1)
    }
    #expect(outcomes.allSatisfy { $0 == .finished })
    await held.began.wait(for: "the first run's sync to begin")
    let ends = try objects(in: url).filter { $0["phase"] as? String == "finished" }
    #expect(ends.count == 200, "every end was written while the sync was held")
    #expect(held.syncs == 1)
    held.release()
    await waitUntil("the syncs to end") { log.file.isSyncIdle }
    #expect(held.syncs == 2, "the 199 ends during the first sync took one more")
    #expect(!held.anyTimedOut)
    token.cancel()
  }

  @Test func aFailureLogsTheErrorsDescription() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let log = try LogFileRenderer(path: url.path, wallClock: steppingClock())
    var script = ScriptedRun()
    script.failAfter = 2
    script.error = TestError(message: "disk \"full\"\nat chunk 7")
    await script.play(into: log)
    let last = try #require(try objects(in: url).last)
    #expect(last["phase"] as? String == "failed")
    #expect(last["error"] as? String == "disk \"full\"\nat chunk 7")
    #expect(last["label"] == nil)
    // Where the run got to: the last report (10 of 50), whether or not it had a line of its own.
    #expect(last["completed"] as? Int == 10 && last["total"] as? Int == 50)
    #expect(last["fraction"] as? Double == 0.2)
  }

  @Test func openingAppendsAndNeverTruncates() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    try "{\"old\":true}\n".write(to: url, atomically: false, encoding: .utf8)
    await ScriptedRun().play(into: try LogFileRenderer(path: url.path))
    await ScriptedRun().play(into: try LogFileRenderer(path: url.path))
    let lines = try objects(in: url)
    #expect(lines.first?["old"] as? Bool == true)
    #expect(lines.filter { $0["phase"] as? String == "finished" }.count == 2)
  }

  @Test func progressIsLoggedPerPercentOrPerSecondNotPerReport() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    var fast = ScriptedRun()
    // 0.5% steps, 20 ms apart (a frame each): a line per 1%.
    fast.counts = Array(stride(from: 5, through: 1_000, by: 5))
    fast.total = 1_000
    fast.step = .milliseconds(20)
    fast.animation = .instant
    await fast.play(into: try LogFileRenderer(path: url.path))
    let fastLines = try objects(in: url).filter { $0["phase"] as? String == "running" }
    #expect((95...105).contains(fastLines.count))

    let slowURL = try temporaryFolder().appendingPathComponent("slow.log")
    var slow = ScriptedRun()
    slow.counts = Array(1...30)  // 0.1% steps, 200 ms apart: a line per second
    slow.total = 1_000
    slow.step = .milliseconds(200)
    slow.animation = .instant
    await slow.play(into: try LogFileRenderer(path: slowURL.path))
    let slowLines = try objects(in: slowURL).filter { $0["phase"] as? String == "running" }
    let elapsed = slowLines.compactMap { $0["elapsed"] as? Double }
    #expect((6...8).contains(slowLines.count))
    for (previous, next) in zip(elapsed.dropFirst(), elapsed.dropFirst(2)) {
      #expect(next - previous >= 1 - 1e-9)
    }
  }

  @Test func aStepOfOnePercentInCountsIsLoggedDespiteRounding() async throws {
    // 0.29 - 0.28 is 0.009999999999999953 in Double: a step measured in fractions misses it.
    let url = try temporaryFolder().appendingPathComponent("run.log")
    var script = ScriptedRun()
    script.counts = [27, 28, 29, 57, 58]
    script.total = 100
    script.step = .milliseconds(20)  // longer than a frame: each count is drained on its own
    script.animation = .instant
    await script.play(into: try LogFileRenderer(path: url.path))
    let running = try objects(in: url).filter { $0["phase"] as? String == "running" }
    #expect(running.compactMap { $0["completed"] as? Int } == [27, 28, 29, 57, 58])
  }

  @Test func attachingToAnIdleRunnerWritesNothingButAResetIsLogged() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let harness = Harness()
    let token = harness.runner.attach(try LogFileRenderer(path: url.path))
    #expect(try String(contentsOf: url, encoding: .utf8).isEmpty)
    await harness.runner.run { _ in }
    harness.runner.reset()
    #expect(try objects(in: url).map { $0["phase"] as? String } == ["running", "finished", "idle"])
    token.cancel()
  }

  @Test func twoRunnersAppendingToOneFileNeverInterleaveHalfLines() async throws {
    let url = try temporaryFolder().appendingPathComponent("shared.log")
    var script = ScriptedRun()
    script.counts = Array(1...200)
    script.total = 200
    script.step = .milliseconds(20)
    let first = try LogFileRenderer(path: url.path, label: "first")
    let second = try LogFileRenderer(path: url.path, label: "second")
    let one = Task { await script.play(into: first) }
    let two = Task { await script.play(into: second) }
    await one.value
    await two.value
    let lines = try objects(in: url)
    #expect(lines.filter { $0["label"] as? String == "first" }.count > 10)
    #expect(lines.filter { $0["label"] as? String == "second" }.count > 10)
  }

  @Test func concurrentAppendsOfLongLinesNeverSplitALine() async throws {
    let url = try temporaryFolder().appendingPathComponent("shared.log")
    let writers = 8
    let linesEach = 100
    let length = 16 * 1024
    let files = try (0..<writers).map { _ in
      let descriptor = open(url.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
      try #require(descriptor >= 0)
      return OpenFile(descriptor: descriptor)
    }
    await withTaskGroup(of: Void.self) { group in
      for (writer, file) in files.enumerated() {
        group.addTask {
          let marker = Character(UnicodeScalar(UInt8(ascii: "A") + UInt8(writer)))
          let line = String(repeating: marker, count: length - 1) + "\n"
          for _ in 0..<linesEach {
            #expect(file.append(line) == nil)
          }
        }
      }
    }
    // 13 MB to check, seconds under ThreadSanitizer: off the main actor, which other suites need.
    let (count, torn) = try await Task.detached {
      let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
      // Every line is one ASCII letter repeated: its bytes say whether it was cut or mixed.
      let torn = lines.filter { $0.utf8.count != length - 1 || Set($0.utf8).count != 1 }
      return (lines.count, torn.count)
    }.value
    #expect(count == writers * linesEach)
    #expect(torn == 0, "lines cut short or mixed with another writer's")
  }

  // MARK: - Messages, units, estimates and pauses

  private func records(in url: URL) throws -> [LogRecord] {
    try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(LogRecord.decode)
  }

  @Test func messagesUnitsEstimatesAndPausesAreLogged() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let log = try LogFileRenderer(path: url.path, label: "copy", wallClock: steppingClock())
    let harness = Harness(animation: .instant)
    harness.runner.unit = .bytes
    let token = harness.runner.attach(log)
    // 100 MB a second for six seconds, with a pause of two seconds after the fourth.
    let steps = 6
    let reached = (0..<steps).map { _ in Latch() }
    let proceed = (0..<steps).map { _ in Latch() }
    let done = Latch()
    let message: @Sendable (Int) -> String = { "Copying part \($0) of 6: \"日本\"\n\\" }
    harness.runner.start { reporter in
      for step in 0..<steps {
        await proceed[step].wait()
        reporter.report(message: message(step + 1))
        reporter.report(completed: (step + 1) * 100_000_000, of: 600_000_000)
        reached[step].open()
      }
      await done.wait()
    }
    for step in 0..<steps {
      harness.clock.advance(by: .milliseconds(999))
      proceed[step].open()
      await reached[step].wait()
      harness.clock.advance(by: .milliseconds(1))  // the frame that reads the report
      if step == 3 {
        harness.runner.pause()
        harness.clock.advance(by: .seconds(2))
        harness.runner.resume()
      }
    }
    done.open()
    await harness.recorder.waitForTerminalState()
    token.cancel()

    let records = try records(in: url)
    #expect(
      records.map(\.phase) == [
        "running", "running", "running", "running", "running", "paused", "running", "running",
        "running", "finished",
      ])
    #expect(records.allSatisfy { $0.unit == "bytes" && $0.label == "copy" })
    #expect(
      records.map(\.completed) == [nil] + (1...4).map { $0 * 100_000_000 } + [
        400_000_000, 400_000_000, 500_000_000, 600_000_000, 600_000_000,
      ])
    // Messages as reported, escapes and all; the end keeps the last one.
    #expect(records[0].message == nil)
    #expect(records[1].message == message(1))
    #expect(records[5].message == message(4) && records[6].message == message(4))
    #expect(records[9].message == message(6))
    // The runner estimates once three reports have moved the run; the end has no estimate.
    #expect(records.prefix(3).allSatisfy { $0.throughput == nil && $0.eta == nil })
    #expect(abs((records[3].throughput ?? 0) - 100_000_000) < 1)
    #expect(abs((records[4].throughput ?? 0) - 100_000_000) < 1)
    #expect(abs((records[4].eta ?? 0) - 2) < 0.002)  // 200 MB left
    #expect(records[5...8].allSatisfy { $0.throughput != nil && $0.eta != nil })
    #expect(abs((records[8].eta ?? 1)) < 0.002)  // all done
    #expect(records[9].throughput == nil && records[9].eta == nil)
    // The pause is logged where it happened; the time since the start counts the pause.
    #expect(records[5].elapsed == 4 && records[6].elapsed == 6)
    #expect(records[9].elapsed == 8)
    #expect(records[9].fraction == 1)
  }

  @Test func aNewMessageAloneIsLoggedAtMostOnceASecondRunningOrPaused() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let harness = Harness(animation: .instant)
    let token = harness.runner.attach(try LogFileRenderer(path: url.path))
    // A new message every 100 ms for 4 s, the count unchanged; paused from 2 s on.
    let steps = 40
    let reached = (0..<steps).map { _ in Latch() }
    let proceed = (0..<steps).map { _ in Latch() }
    harness.runner.start { reporter in
      reporter.report(completed: 10, of: 100)
      for step in 0..<steps {
        await proceed[step].wait()
        reporter.report(message: "Hashing file \(step)")
        reached[step].open()
      }
      await Latch().wait()
    }
    for step in 0..<steps {
      harness.clock.advance(by: .milliseconds(100))
      proceed[step].open()
      await reached[step].wait()
      if step == 20 {
        harness.runner.pause()
      }
    }
    harness.clock.advance(by: .milliseconds(100))
    harness.runner.cancel()
    token.cancel()

    let records = try records(in: url)
    let running = records.filter { $0.phase == "running" }
    let paused = records.filter { $0.phase == "paused" }
    #expect((2...4).contains(running.count))
    #expect((2...4).contains(paused.count))
    #expect(records.last?.phase == "cancelled")
    // Apart from the transitions, a line per second at most, each with the latest message.
    for lines in [running, paused] {
      let elapsed = lines.compactMap(\.elapsed)
      for (previous, next) in zip(elapsed.dropFirst(), elapsed.dropFirst(2)) {
        #expect(next - previous >= 1 - 1e-9)
      }
      #expect(Set(lines.dropFirst().map(\.message)).count == lines.count - 1)
    }
  }

  // MARK: - Errors

  @Test func aMissingFolderIsAnErrorNamingThePathAndTheReason() throws {
    let path = try temporaryFolder().appendingPathComponent("no/such/folder/run.log").path
    #expect {
      _ = try LogFileRenderer(path: path)
    } throws: { error in
      guard let error = error as? LogFileError else { return false }
      return error.operation == .open && error.code == ENOENT && error.path == path
        && error.description == "cannot open log file '\(path)': No such file or directory"
    }
  }

  @Test func aPathWithLineBreaksIsNamedOnOneLine() throws {
    let folder = try temporaryFolder().path
    let path = folder + "/no\nsuch\r\u{2028}folder\t/run.log"
    #expect {
      _ = try LogFileRenderer(path: path)
    } throws: { error in
      guard let error = error as? LogFileError else { return false }
      return error.path == path
        && error.description
          == "cannot open log file '\(folder)/no\\nsuch\\r\\u{2028}folder\\t/run.log': "
          + "No such file or directory"
    }
  }

  @Test func aFolderIsAnError() throws {
    let path = try temporaryFolder().path
    #expect {
      _ = try LogFileRenderer(path: path)
    } throws: { error in
      (error as? LogFileError)?.code == EISDIR
        && "\(error)" == "cannot open log file '\(path)': Is a directory"
    }
  }

  @Test(
    .disabled(if: getuid() == 0, "root may write anywhere, so a read-only folder proves nothing"))
  func aReadOnlyFolderIsAnError() throws {
    let folder = try temporaryFolder()
    try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
    defer {
      try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
    }
    #expect(throws: LogFileError.self) {
      _ = try LogFileRenderer(path: folder.appendingPathComponent("run.log").path)
    }
  }

  @Test func aFIFOThatNoProcessReadsIsAnErrorRatherThanAWait() throws {
    let path = try temporaryFolder().appendingPathComponent("progress.fifo").path
    try #require(mkfifo(path, 0o600) == 0)
    // Should opening wait for a reader after all, a reader comes after a minute, so that the test
    // fails rather than hangs.
    let opened = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      if opened.wait(timeout: .now() + 60) == .timedOut {
        _ = open(path, O_RDONLY | O_NONBLOCK)  // left open: only a failing run gets here
      }
    }
    defer { opened.signal() }
    #expect {
      _ = try LogFileRenderer(path: path)
    } throws: { error in
      guard let error = error as? LogFileError else { return false }
      return error.operation == .open && error.code == ENXIO
        && error.reason == LogFileError.fifoWithoutReader
        && error.description == "cannot open log file '\(path)': no process is reading the FIFO"
    }
  }

  @Test func aFIFOWithAReaderGetsTheLines() async throws {
    let path = try temporaryFolder().appendingPathComponent("progress.fifo").path
    try #require(mkfifo(path, 0o600) == 0)
    let reader = open(path, O_RDONLY | O_NONBLOCK)
    try #require(reader >= 0)
    defer { close(reader) }
    let log = try LogFileRenderer(path: path, label: "fifo")
    await ScriptedRun().play(into: log)
    #expect(log.lastError == nil)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    let count = read(reader, &buffer, buffer.count)
    let lines = String(decoding: buffer[..<max(count, 0)], as: UTF8.self).split(separator: "\n")
    #expect(lines.first?.hasPrefix(#"{"time":"#) == true)
    #expect(lines.last?.contains(#""phase":"finished""#) == true)
  }

  @Test func theDescriptorBlocksIsCloseOnExecAndIsAboveTheStandardStreams() throws {
    // Opened without waiting (a FIFO with no reader fails at once), the file must still block on
    // writes, or a full pipe would lose lines; and it must never take the number of a closed
    // standard stream, whose later writes would land in the log.
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let log = try LogFileRenderer(path: url.path)
    let descriptor = log.file.descriptor
    #expect(descriptor > STDERR_FILENO)
    #expect(fcntl(descriptor, F_GETFL) & O_NONBLOCK == 0)
    #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
  }

  @Test func aFullDiskIsSurfacedThroughTheCallbackLastErrorAndFlush() async throws {
    let log = try LogFileRenderer(path: "/dev/full")
    var reported: [LogFileError] = []
    log.onError = { reported.append($0) }
    await ScriptedRun().play(into: log)
    #expect(!reported.isEmpty)
    #expect(reported.allSatisfy { $0.operation == .write && $0.code == ENOSPC })
    #expect(
      reported.first?.description == "cannot write to log file '/dev/full': No space left on device"
    )
    #expect(log.lastError?.code == ENOSPC)
    #expect(throws: LogFileError.self) { try log.flush() }
  }

  @Test func aClosedLogWritesNothingMore() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let log = try LogFileRenderer(path: url.path)
    log.close()
    log.close()
    await ScriptedRun().play(into: log)
    #expect(try String(contentsOf: url, encoding: .utf8).isEmpty)
    #expect(log.lastError?.code == EBADF)
  }

  /// A run that expects its bytes and completes units logs its rate in the run's units: no
  /// `throughputUnit` says bytes.
  @Test func aRunThatExpectsBytesAndCompletesUnitsLogsItsRateInUnits() async throws {
    let url = try temporaryFolder().appendingPathComponent("run.log")
    let log = try LogFileRenderer(path: url.path, label: "hash", wallClock: steppingClock())
    let harness = Harness(animation: .instant)
    let token = harness.runner.attach(log)
    let held = Locked<TaskRunner.Reporter?>(nil)
    let started = Latch()
    let proceed = Latch()
    harness.runner.start { reporter in
      held.withLock { $0 = reporter }
      started.open()
      await proceed.wait()
    }
    await started.wait(for: "the operation to start")
    let reporter = try #require(held.withLock { $0 })
    reporter.report(totalCount: 1_000)
    reporter.expect(bytes: 1_050_000_000)
    for _ in 0..<8 {
      reporter.complete(count: 38)
      harness.clock.advance(by: .seconds(1))
    }
    proceed.open()
    await harness.recorder.waitForTerminalState()
    token.cancel()
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
    let rated = lines.filter { $0.contains("\"throughput\":") }
    #expect(!rated.isEmpty, "\(lines)")
    #expect(rated.allSatisfy { $0.contains("\"unit\":\"items\"") }, "\(rated)")
    #expect(!lines.contains { $0.contains("throughputUnit") }, "\(lines)")
  }
}
