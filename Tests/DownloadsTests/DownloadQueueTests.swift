import ExampleSupport
import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import downloads

/// The queue: every file in the group, `--jobs` at a time, the next one started as one ends.
@MainActor
@Suite("downloads queue", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct DownloadQueueTests {
  private func queue(_ arguments: [String]) throws -> DownloadQueue {
    DownloadQueue(options: try Options.parse(arguments))
  }

  @Test func everyFileJoinsTheGroupWeightedByItsSize() throws {
    let queue = try queue(["--count", "6", "--seed", "11"])
    queue.start()
    defer { queue.cancelAll() }
    #expect(queue.group.members.map(\.label) == queue.files.map(\.name))
    #expect(queue.group.members.map(\.weight) == queue.files.map { Double($0.size) })
    #expect(queue.group.members.allSatisfy { $0.runner.unit == .bytes })
    #expect(queue.group.unit == .bytes)
    #expect(queue.group.weighting == .units)
    #expect(queue.totalSize == queue.files.reduce(0) { $0 + $1.size })
  }

  @Test func noMoreThanJobsDownloadsRunAtATimeAndAllFinish() async throws {
    let queue = try queue(["--count", "12", "--jobs", "3", "--speed", "200"])
    var mostActive = 0
    let token = queue.group.observe { mostActive = max(mostActive, $0.counts.active) }
    #expect(queue.start())
    #expect(!queue.start(), "a run is under way")
    let outcome = await queue.waitForEnd()
    token.cancel()
    #expect(outcome == DownloadQueue.Outcome(finished: 12))
    #expect(outcome.status == .finished)
    #expect(mostActive >= 1 && mostActive <= 3)
    #expect(queue.group.counts.finished == 12, "the summary caught up before the end")
    #expect(queue.failureMessage() == nil)
  }

  @Test func aFailedDownloadDoesNotStopTheOthers() async throws {
    let queue = try queue(["--count", "4", "--jobs", "1", "--speed", "1000", "--fail-at", "2"])
    queue.start()
    let outcome = await queue.waitForEnd()
    #expect(outcome == DownloadQueue.Outcome(finished: 3, failed: 1))
    #expect(outcome.status == .failed)
    #expect(outcome.description == "3 finished, 1 failed")
    let message = try #require(queue.failureMessage())
    let file = queue.files[1]
    let received = ProgressUnit.bytes.format(completed: file.failsAfter ?? 0, of: file.size)
    #expect(
      message
        == "download 2 of 4 (\(file.name)) failed after \(received): the connection was reset "
        + "(as --fail-at asked)")
  }

  @Test func cancellingAtOnceCancelsTheFirstDownloadsAndTheOthersNeverStart() async throws {
    let queue = try queue(["--count", "5", "--jobs", "2"])
    queue.start()
    #expect(
      queue.group.members.filter(\.runner.isActive).count == 2, "the first two started at once")
    queue.cancelAll()
    let outcome = await queue.waitForEnd()
    #expect(outcome == DownloadQueue.Outcome(cancelled: 2, notStarted: 3, wasCancelled: true))
    #expect(outcome.status == .interrupted)
    #expect(outcome.description == "5 cancelled (3 never started)")
    // The downloads never started end cancelled too, so that the group's counts add up.
    #expect(queue.group.counts.cancelled == 5 && queue.group.counts.idle == 0)
  }

  @Test func cancellingMidRunCancelsTheActiveOnesAndStartsNoMore() async throws {
    let queue = try queue(["--count", "20", "--jobs", "2", "--speed", "0.1"])
    var running: CheckedContinuation<Void, Never>?
    let token = queue.group.observe { summary in
      if summary.counts.running > 0 {
        running?.resume()
        running = nil
      }
    }
    queue.start()
    await withCheckedContinuation { running = $0 }
    token.cancel()
    queue.cancelAll()
    let outcome = await queue.waitForEnd()
    #expect(outcome.wasCancelled && outcome.status == .interrupted)
    #expect(outcome.cancelled >= 1 && outcome.cancelled <= 2)
    #expect(outcome.failed == 0)
    #expect(outcome.notStarted >= 16)
    #expect(outcome.finished + outcome.cancelled + outcome.notStarted == 20)
  }

  @Test func aQueueRunsAgainFromTheStart() async throws {
    let queue = try queue(["--count", "3", "--jobs", "3", "--speed", "1000"])
    queue.start()
    #expect(await queue.waitForEnd() == DownloadQueue.Outcome(finished: 3))
    var ends: [DownloadQueue.Outcome] = []
    queue.onEnd = { ends.append($0) }
    #expect(queue.start())
    #expect(queue.group.counts.active + queue.group.counts.idle <= 3)
    #expect(await queue.waitForEnd() == DownloadQueue.Outcome(finished: 3))
    #expect(ends == [DownloadQueue.Outcome(finished: 3)])
  }
}
