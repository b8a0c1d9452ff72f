import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// A group renderer that checks a queue's rules at every change of a member's state, as the
/// group delivers it: before the queue itself hears of it.
@MainActor
private final class QueueChecker: GroupRenderer {
  /// The most items under way at once.
  let limit: Int
  /// Whether the first failure stops the queue.
  let stopsOnFailure: Bool
  /// Whether the test paused the queue: nothing may start.
  var isPaused = false
  /// Whether the queue was cancelled, or stopped by a failure: nothing may start.
  var isStopped = false
  private(set) var phases: [RunPhase] = []
  private(set) var starts: [Int] = []
  private(set) var ends: [Int] = []
  private(set) var endLatches: [Latch] = []
  private(set) var left: Set<Int> = []
  private var indices: [ObjectIdentifier: Int] = [:]
  private var active = 0
  /// What broke a rule, in words.
  private(set) var violations: [String] = []

  init(limit: Int, stopsOnFailure: Bool) {
    self.limit = limit
    self.stopsOnFailure = stopsOnFailure
  }

  func render(_ event: TaskRunnerGroup.Event) {
    switch event {
    case .updated(let member, let update):
      guard let index = indices[member.id] else {
        // A member's first update: it joined.
        indices[member.id] = phases.count
        phases.append(update.state.phase)
        starts.append(0)
        ends.append(0)
        endLatches.append(Latch())
        if update.state.phase != .idle {
          violations.append("item \(phases.count - 1) joined \(update.state.phase)")
        }
        return
      }
      guard update.reason == .stateChanged else { return }
      take(update.state.phase, for: index)
    case .left(let id):
      if let index = indices[id] {
        left.insert(index)
      }
    case .frame:
      break
    }
  }

  private func take(_ new: RunPhase, for index: Int) {
    let old = phases[index]
    guard new != old else { return }
    phases[index] = new
    if old == .idle && new.isActive {
      starts[index] += 1
      if starts[index] > 1 { violations.append("item \(index) started twice") }
      if isPaused { violations.append("item \(index) started while paused") }
      if isStopped { violations.append("item \(index) started after a cancel") }
    }
    if !old.isActive && new.isActive {
      active += 1
      if active > limit { violations.append("\(active) items under way, more than \(limit)") }
    } else if old.isActive && !new.isActive {
      active -= 1
    }
    if new.isTerminal {
      ends[index] += 1
      if ends[index] > 1 { violations.append("item \(index) ended twice") }
      if new == .failed && stopsOnFailure { isStopped = true }
      endLatches[index].open()
    }
  }

  /// The items under way, running or paused.
  var itemsUnderWay: [Int] {
    phases.indices.filter { phases[$0].isActive }
  }

  /// The items waiting to start, still in the group.
  var itemsWaiting: [Int] {
    phases.indices.filter { phases[$0] == .idle && !left.contains($0) }
  }
}

extension TaskRunnerGroupQueueTests {
  /// The phase counts of the group's members as they are now, those waiting included.
  private func expectedCounts(of group: TaskRunnerGroup) -> TaskRunnerGroup.PhaseCounts {
    var counts = TaskRunnerGroup.PhaseCounts()
    for runner in group.members.map(\.runner) {
      counts[runner.state.phase] += 1
    }
    // Every member is an item of the queue: an idle one waits for it.
    counts.waiting = counts.idle
    return counts
  }

  @Test(
    "Random queues keep every rule at every step: K at a time, no item twice, nothing started while paused or after a cancel, one outcome each, in order, counts that match"
  )
  func randomQueuesKeepEveryRule() async {
    // About 1,200 items in all, some 300 steps that end items; half that under ThreadSanitizer.
    // The queues run side by side, each on a clock of its own: a step waits for items' ends on
    // the pool, and with every suite in parallel those waits, one queue after another, took
    // most of a minute.
    let queues = (0..<TestScale.count(12, sanitized: 6)).map { seed in
      Task { await driveRandomQueue(seed: UInt64(seed)) }
    }
    await awaitAll(queues)
  }

  /// Drives one random queue to its end, checking every rule at every step.
  private func driveRandomQueue(seed: UInt64) async {
    var random = SplitMix64(seed: seed)
    let size = [0, 1, 200][safe: Int(seed)] ?? random.next(below: 201)
    let limit = 1 + random.next(below: 16)
    let stopsOnFailure = random.next(below: 4) == 0
    let clock = ManualClock()
    let group = TaskRunnerGroup(clock: clock)
    let checker = QueueChecker(limit: limit, stopsOnFailure: stopsOnFailure)
    group.attach(checker)
    let gates = ItemGates()
    guard
      group.start(
        Array(0..<size), maxConcurrency: limit, onFailure: stopsOnFailure ? .stop : .continue,
        perform: { index, _ in try await gates.perform(index) })
    else {
      Issue.record("seed \(seed): the queue did not start")
      return
    }
    guard let queue = group.queue(of: Int.self) else {
      Issue.record("seed \(seed): the group has no queue")
      return
    }
    /// Whether the test ended each item, and whether as a failure.
    var endings: [Int: Bool] = [:]
    var steps = 0
    while !queue.isOver, steps < 5_000, !Task.isCancelled {
      steps += 1
      let underWay = checker.itemsUnderWay
      switch random.next(below: 100) {
      case 0..<60 where !underWay.isEmpty:
        // A few at once, in any order: their ends reach the main actor in any order too. One
        // at a time when a failure stops the queue, which would cancel the others of the few.
        let count = stopsOnFailure ? 1 : 1 + random.next(below: 4)
        let ending = underWay.shuffled(using: &random).prefix(count)
        for index in ending {
          let failing = random.next(below: 5) == 0
          endings[index] = failing
          gates.end(index, failing: failing)
        }
        for index in ending {
          await checker.endLatches[index].wait(for: "seed \(seed): item \(index) to end")
        }
        clock.advance(by: frame)
      case 60..<68:
        checker.isPaused = true
        group.pauseAll()
      case 0..<60, 68..<78:
        // Nothing under way in a queue still active: it is paused.
        checker.isPaused = false
        group.resumeAll()
      case 78..<80:
        checker.isStopped = true
        group.cancelAll()
      case 80..<90:
        let added = queue.count..<queue.count + random.next(below: 10)
        #expect(queue.append(contentsOf: added), "seed \(seed)")
      default:
        let waiting = checker.itemsWaiting
        if !waiting.isEmpty {
          #expect(queue.remove(at: waiting[random.next(below: waiting.count)]), "seed \(seed)")
        }
      }
      // Right after an action, without a frame.
      #expect(group.counts == expectedCounts(of: group), "seed \(seed), step \(steps)")
      // The failures the queue names are the ones the test made, as each is heard.
      let failed = endings.filter(\.value).keys.sorted()
      #expect(queue.failures.map(\.index) == failed, "seed \(seed), step \(steps)")
      #expect(queue.isCancelled == checker.isStopped, "seed \(seed), step \(steps)")
      if !checker.violations.isEmpty {
        group.cancelAll()  // so that the rest of the checks need not wait for it
        break
      }
    }
    // Stopped at the test's time limit: the rest would only say so again.
    if Task.isCancelled {
      group.cancelAll()
      return
    }
    #expect(checker.violations.isEmpty, "seed \(seed): \(checker.violations)")
    #expect(queue.isOver, "seed \(seed): still under way after \(steps) steps")
    let outcomes = await withDeadline(waitingFor: "seed \(seed): the queue's outcomes") {
      await queue.wait()
    }
    guard let outcomes else { return }
    #expect(outcomes.count == queue.count, "seed \(seed)")
    for (index, outcome) in outcomes.enumerated() {
      let expected: RunState =
        switch endings[index] {
        case true?: .failed(TestError(message: "item \(index) failed"))
        case false?: .finished
        case nil: .cancelled
        }
      #expect(outcome == expected, "seed \(seed): item \(index)")
      #expect(gates.starts(index) <= 1, "seed \(seed): item \(index)")
      if checker.starts[index] == 0 {
        #expect(gates.starts(index) == 0, "seed \(seed): item \(index) never started")
      }
      if checker.left.contains(index) {
        #expect(outcome == .cancelled, "seed \(seed): item \(index) was removed")
      } else {
        #expect(checker.ends[index] == 1, "seed \(seed): item \(index) ended once")
        #expect(queue.runners[index].state == outcome, "seed \(seed): item \(index)")
      }
    }
    clock.advance(by: frame)
    #expect(group.counts == expectedCounts(of: group), "seed \(seed) at the end")
  }
}

extension Array {
  /// The element at `index`, or `nil` outside the array.
  fileprivate subscript(safe index: Int) -> Element? {
    indices.contains(index) ? self[index] : nil
  }
}
