import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// What the items of a stage did: in a class, so that the closures share one instance rather
/// than each capturing the atomics in a box of its own.
private final class Tally: Sendable {
  let inFlight = Atomic(0)
  let highest = Atomic(0)
  let performed = Locked<[Int]>([])
}

/// A stage of a run performs its items concurrently, each worth its weight.
@Suite("Reporter forEach", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct ReporterForEachTests {
  @Test func aStageWeighsItsItemsAndEachMovesItsShareAsItGoes() async throws {
    let root = TaskRunner.Reporter(totalCount: 100)
    let scan = root.subprogress(assigningCount: 10).start(totalCount: 1)
    scan.complete(count: 1)
    let hashing = root.subprogress(assigningCount: 90).start(totalCount: nil)
    let sizes = [600, 300, 100]
    let halfway = Latch()
    let proceed = Latch()
    let run = Task {
      try await hashing.forEach(sizes, maxConcurrency: 3, weight: { $0 }) { size, reporter in
        reporter.report(completed: size / 2, of: size)
        reporter.complete(bytes: size / 2)
        if size == 600 {
          halfway.open()
          await proceed.wait()
        }
      }
    }
    await halfway.wait(for: "the largest item to be half done")
    // The two small items are done (400 of 1,000 weight); the largest is half done (300).
    await waitUntil("the small items to end") {
      abs((root.progress.fractionCompleted ?? 0) - (10 + 90 * 0.7) / 100) < 1e-9
    }
    #expect(root.progress.completedByteCount == 500)
    #expect(hashing.progress.totalCount == 1_000)
    proceed.open()
    try await run.value
    #expect(root.progress.fractionCompleted == 1)
  }

  @Test func atMostMaxConcurrencyAtOnceEachOnceAndTheFirstErrorIsThrown() async {
    let root = TaskRunner.Reporter()
    let stage = root.subprogress(assigningCount: 1).start(totalCount: nil)
    let tally = Tally()
    do {
      try await stage.forEach(0..<50, maxConcurrency: 4) { item, _ in
        let now = tally.inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        tally.highest.max(now, ordering: .relaxed)
        defer { tally.inFlight.wrappingSubtract(1, ordering: .relaxed) }
        tally.performed.withLock { $0.append(item) }
        await Task.yield()
        if item == 20 { throw TestError(message: "item 20") }
        // The items after it end only when the error cancels them, so that the loop hears of
        // the error before a later item frees a place, however the threads are scheduled. (With
        // items that ended at once, item 20 could wait for its thread while the others ran on to
        // the last.)
        if item > 20 {
          try? await Task.sleep(for: waitLimit)
          if !Task.isCancelled { Issue.record("item \(item) was not cancelled by item 20's error") }
        }
      }
      Issue.record("the error of item 20 was not thrown")
    } catch {
      #expect(error as? TestError == TestError(message: "item 20"))
    }
    #expect(tally.highest.load(ordering: .relaxed) <= 4)
    let items = tally.performed.withLock { $0 }
    #expect(Set(items).count == items.count)
    // Item 20 and at most three after it, in the other places; none once the error was heard.
    #expect(Set(items).isSuperset(of: 0...20))
    #expect(items.allSatisfy { $0 <= 23 }, "\(items.sorted())")
  }

  @Test func noItemsCompleteTheStageAtOnce() async throws {
    let root = TaskRunner.Reporter(totalCount: 2)
    let stage = root.subprogress(assigningCount: 1).start(totalCount: nil)
    try await stage.forEach([Int]()) { _, _ in Issue.record("an item of none was performed") }
    #expect(root.progress == RunProgress(completed: 1, of: 2))
  }
}
