import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import downloads

/// The simulated files: picked by the seed, within their ranges, and transferred as reported.
@Suite("downloads files", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct DownloadFileTests {
  @Test func theSameSeedPicksTheSameQueue() {
    #expect(DownloadFile.queue(count: 30, seed: 7) == DownloadFile.queue(count: 30, seed: 7))
    #expect(DownloadFile.queue(count: 30, seed: 7) != DownloadFile.queue(count: 30, seed: 8))
    // A longer queue starts with the files of a shorter one.
    #expect(
      DownloadFile.queue(count: 40, seed: 7).prefix(30)
        == DownloadFile.queue(count: 30, seed: 7)[...])
  }

  @Test(arguments: [0, 1, 42, .max] as [UInt64])
  func everyFileIsWithinItsRangesAndNamedOnce(seed: UInt64) {
    let files = DownloadFile.queue(count: 1_000, seed: seed)
    #expect(files.map(\.number) == Array(1...1_000))
    #expect(Set(files.map(\.name)).count == files.count)
    for file in files {
      #expect(DownloadFile.sizeRange.contains(file.size))
      #expect(
        (Double(DownloadFile.speedRange.lowerBound)...Double(DownloadFile.speedRange.upperBound))
          .contains(file.bytesPerSecond))
      #expect(file.failsAfter == nil)
      #expect(!file.name.contains(" ") && file.name.contains("-\(file.number)."))
    }
  }

  @Test func onlyTheFileAskedForBreaksOffBetween30And70Percent() throws {
    let files = DownloadFile.queue(count: 10, seed: 3, failAt: 4)
    #expect(files.filter { $0.failsAfter != nil }.map(\.number) == [4])
    let file = files[3]
    let breakPoint = try #require(file.failsAfter)
    #expect(breakPoint >= file.size * 29 / 100 && breakPoint <= file.size * 70 / 100)
  }

  @MainActor
  @Test func aTransferReportsEveryByteInBytes() async throws {
    let file = try #require(DownloadFile.queue(count: 1, seed: 5).first)
    let runner = TaskRunner(animation: .instant)
    let recorder = StateRecorder(observing: runner)
    let final = await runner.run { reporter in
      try await file.transfer(speed: 1_000, reporter: reporter)
    }
    #expect(final.phase == .finished)
    let counts = recorder.states.compactMap { $0.progress?.completedCount }
    #expect(counts == counts.sorted(), "the count never goes back: \(counts)")
    #expect(counts.last == file.size)
    #expect(recorder.states.compactMap { $0.progress?.totalCount }.allSatisfy { $0 == file.size })
  }

  @MainActor
  @Test func aTransferThatBreaksOffFailsWhereItBrokeOff() async throws {
    let file = try #require(DownloadFile.queue(count: 2, seed: 5, failAt: 2).last)
    let breakPoint = try #require(file.failsAfter)
    let runner = TaskRunner(animation: .instant)
    let recorder = StateRecorder(observing: runner)
    let final = await runner.run { reporter in
      try await file.transfer(speed: 1_000, reporter: reporter)
    }
    #expect(final.phase == .failed)
    #expect(recorder.states.compactMap { $0.progress?.completedCount }.last == breakPoint)
    #expect(final.error as? DownloadError == .connectionReset(after: breakPoint))
    #expect(final.error.map { "\($0)" } == "the connection was reset (as --fail-at asked)")
  }
}
