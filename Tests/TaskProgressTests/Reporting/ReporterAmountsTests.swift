import TaskProgress
import TaskProgressTestSupport
import Testing

/// Bytes and files counted apart from the units that weight the fraction, summed over the tree.
@Suite("Reporter amounts")
struct ReporterAmountsTests {
  @Test func nothingCountedReadsAsNil() {
    let reporter = TaskRunner.Reporter(totalCount: 10)
    reporter.complete(count: 3)
    let progress = reporter.progress
    #expect(progress.completedByteCount == nil)
    #expect(progress.totalByteCount == nil)
    #expect(progress.completedFileCount == nil)
    #expect(progress.totalFileCount == nil)
    #expect(progress == RunProgress(completed: 3, of: 10))
  }

  @Test func bytesAndFilesAreSummedOverTheTreeApartFromTheUnits() {
    let root = TaskRunner.Reporter(totalCount: 100)
    root.expect(bytes: 1_000)
    root.expect(files: 2)
    let scan = root.subprogress(assigningCount: 10).start(totalCount: 1)
    scan.complete(count: 1)
    let hashing = root.subprogress(assigningCount: 90).start(totalCount: 2)
    let first = hashing.subprogress(assigningCount: 1).start(totalCount: 600)
    first.complete(count: 600)
    first.complete(bytes: 600)
    first.complete(files: 1)
    let second = hashing.subprogress(assigningCount: 1).start(totalCount: 400)
    second.complete(count: 100)
    second.complete(bytes: 100)
    let progress = root.progress
    #expect(progress.completedByteCount == 700)
    #expect(progress.totalByteCount == 1_000)
    #expect(progress.completedFileCount == 1)
    #expect(progress.totalFileCount == 2)
    // The fraction is the units': 10 + 90 × (1 + 0.25) / 2.
    #expect(abs((progress.fractionCompleted ?? 0) - 0.6625) < 1e-12)
    // A child reads its own subtree's amounts.
    #expect(second.progress.completedByteCount == 100)
    #expect(second.progress.totalByteCount == nil)
  }

  @Test func bytesCountedAfterAChildFinishedStillReachTheRun() {
    let root = TaskRunner.Reporter(totalCount: 1)
    let file = root.subprogress(assigningCount: 1).start(totalCount: 1)
    file.complete(count: 1)  // finishes the child before its last bytes
    file.complete(bytes: 42)
    #expect(root.progress.completedByteCount == 42)
    #expect(root.progress.fractionCompleted == 1)
  }

  @Test func reportReplacesTheReportersOwnCountsAndMovesTheSumsByTheChange() {
    let root = TaskRunner.Reporter()
    let download = root.subprogress(assigningCount: 1).start(totalCount: 1)
    download.report(completedBytes: 10, of: 100)
    root.complete(bytes: 5)
    #expect(root.progress.completedByteCount == 15)
    download.report(completedBytes: 60)
    #expect(root.progress.completedByteCount == 65)
    #expect(root.progress.totalByteCount == 100)
    download.report(completedBytes: 20, of: 50)
    #expect(root.progress.completedByteCount == 25)
    #expect(root.progress.totalByteCount == 50)
    download.report(completedFiles: 3, of: 4)
    download.report(completedFiles: 1)
    #expect(root.progress.completedFileCount == 1)
    #expect(root.progress.totalFileCount == 4)
  }

  @Test func negativeCountsCountAsZero() {
    let reporter = TaskRunner.Reporter()
    reporter.complete(bytes: -5)
    reporter.expect(bytes: -5)
    reporter.complete(files: -1)
    reporter.report(completedBytes: -3, of: -4)
    let progress = reporter.progress
    #expect(progress.completedByteCount == 0)
    #expect(progress.totalByteCount == 0)
    #expect(progress.completedFileCount == 0)
  }

  @Test func bytesFromManyTasksAtOnceAddUp() async {
    let root = TaskRunner.Reporter()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        let child = root.subprogress(assigningCount: 1).start(totalCount: 1_000)
        group.addTask {
          for _ in 0..<1_000 {
            child.complete(bytes: 3)
            child.complete(count: 1)
          }
        }
      }
    }
    #expect(root.progress.completedByteCount == 24_000)
  }

  @Test func aDeepChainCountsBytesAtTheRoot() async {
    // Seconds of work under the sanitizer: on a thread of its own, it holds none of the pool.
    let counted = await onThreadsOfItsOwn { _ in
      let root = TaskRunner.Reporter()
      var reporter = root
      for _ in 0..<TestScale.count(100_000, sanitized: 20_000) {
        reporter = reporter.subprogress(assigningCount: 1).start(totalCount: nil)
      }
      reporter.complete(bytes: 7)
      return root.progress.completedByteCount
    }
    #expect(counted == 7)
  }

  @MainActor @Test func aRunsStateCarriesTheSums() async {
    let harness = Harness()
    let end = await harness.runner.run { reporter in
      reporter.expect(bytes: 2_000)
      let child = reporter.subprogress(assigningCount: 1).start(totalCount: 1)
      child.complete(bytes: 2_000)
      child.complete(files: 1)
      child.complete(count: 1)
    }
    #expect(end == .finished)
    let last = harness.recorder.states.dropLast().last?.progress
    #expect(last?.completedByteCount == 2_000)
    #expect(last?.totalByteCount == 2_000)
    #expect(last?.completedFileCount == 1)
    #expect(last?.description == "1/1, 2.0 kB / 2.0 kB, 1 files")
  }
}
