import Foundation
import TaskProgressTestSupport
import Testing

@testable import TaskProgress

/// Random trees of reporters against a small reference model of the progress tree, checked after
/// every event.
///
/// A sequence grows a tree from one root: it hands out subprogresses, starts some, drops others,
/// reports on any live reporter (counts, fractions, indeterminate, totals, added counts, negative
/// and huge values included) and releases children. After every event the root's progress must
/// equal the model's: the counts exactly, the fraction within 1e-12.
///
/// Each sequence starts from a seed; a failure names it with the events played, and
/// `TASKPROGRESS_TREE_SEED=<seed> TASKPROGRESS_TREE_SEQUENCES=1 swift test --filter
/// ProgressTreeModelTests` replays it. CI runs 10,000 sequences (`TASKPROGRESS_TREE_SEQUENCES`).
@Suite("Progress tree against its model", .timeLimit(TestScale.timeLimit(minutes: 3)))
struct ProgressTreeModelTests {
  /// Totals from this size on do not fit the lock-free words.
  static let countLimit = (1 << 62) - 8
  /// Counts from this size on do not fit the lock-free words, unless that many units were added.
  static let baseLimit = 1 << 61

  // MARK: - The model

  /// One reporter as the documentation describes it, in plain values: no atomics, no generations, no
  /// wide counts, no pruning.
  final class Node {
    /// What the reporter's last report said its size is.
    enum Size {
      /// No total yet: the counts assigned to subprogresses, if any, are the total.
      case neverGiven
      case total(Int)
      /// A bare fraction, which hides the counts and the children.
      case fraction(Double)
      /// Unknown size; `counting` when the report gave a count.
      case indeterminate(counting: Bool)
    }

    /// The parent's units this reporter stands for; 0 for the root.
    let assigned: Int
    /// The reporter this one's share goes to; `nil` for the root.
    private(set) weak var parent: Node?
    let isChild: Bool
    var size = Size.neverGiven
    /// The completed count, unsigned: replaced by count reports, grown by added counts and
    /// shares.
    private var count: UInt64 = 0
    /// The sum of the counts handed to subprogresses, unsigned.
    private var assignedSum: UInt64 = 0
    /// The started children, in the order they started.
    var children: [Node] = []
    /// Whether the share went to the parent.
    var isFinished = false
    /// Set when an addition took a count where the library does not hold it exactly; the
    /// sequence stops there.
    private(set) var leftTheExactRange = false

    init(parent: Node?, assigned: Int) {
      self.parent = parent
      self.assigned = assigned
      isChild = parent != nil
    }

    func report(fractionCompleted value: Double) {
      guard value.isFinite else { return }
      size = .fraction(min(max(value, 0), 1) + 0)
      finishIfComplete()
    }

    func report(completed: Int, of total: Int) {
      let total = max(total, 0)
      size = .total(total)
      count = UInt64(min(max(completed, 0), total))
      finishIfComplete()
    }

    func reportIndeterminate(completed: Int?) {
      size = .indeterminate(counting: completed != nil)
      if let completed {
        count = UInt64(max(completed, 0))
      }
    }

    /// Sets the total and keeps the completed count, which a fraction or a count-less report
    /// only hid.
    func report(totalCount: Int?) {
      size = totalCount.map { .total(max($0, 0)) } ?? .indeterminate(counting: true)
      finishIfComplete()
    }

    func complete(count: Int) {
      add(max(count, 0))
      finishIfComplete()
    }

    /// Hands `count` units to a subprogress; returns the count it stands for.
    func assign(_ count: Int) -> Int {
      let count = max(count, 0)
      let (sum, overflow) = assignedSum.addingReportingOverflow(UInt64(count))
      leftTheExactRange = leftTheExactRange || overflow
      assignedSum = sum
      return count
    }

    func startChild(assigned: Int, totalCount: Int?) -> Node {
      let child = Node(parent: self, assigned: assigned)
      children.append(child)
      if let totalCount {
        child.report(totalCount: totalCount)
      }
      return child
    }

    /// A share that ended: a child finished or released, or a subprogress dropped unstarted.
    func handOver(_ count: Int) {
      add(count)
      finishIfComplete()
    }

    /// Ends the child once: its assigned count goes to its parent.
    func finish() {
      guard isChild, !isFinished else { return }
      isFinished = true
      parent?.handOver(assigned)
    }

    func finishIfComplete() {
      guard isChild, !isFinished else { return }
      switch size {
      case .fraction(let fraction):
        if fraction >= 1 { finish() }
      case .total(let total):
        if completed >= total { finish() }
      case .neverGiven, .indeterminate:
        break  // no total: finishes when its reporter is released
      }
    }

    /// Adds to the completed count.
    ///
    /// The library reads a count exactly up to `Int.max` and as `Int.max` above, until it
    /// reaches 2^64, where the sequence stops. Everything added since the reporter began may pass
    /// `Int.max`, even 2^64: a count is the last one reported plus what was added since (see
    /// ``aCountIsKeptAfterMoreThanIntMaxUnitsWereAdded()``).
    private func add(_ count: Int) {
      let (sum, overflow) = self.count.addingReportingOverflow(UInt64(count))
      leftTheExactRange = leftTheExactRange || overflow
      self.count = sum
    }

    /// The completed count as the library reads it.
    var completed: Int { Int(min(count, UInt64(Int.max))) }

    /// The counts assigned to subprogresses, as the library reads their sum.
    var assignedToChildren: Int { Int(min(assignedSum, UInt64(Int.max))) }

    /// Whether this reporter or one below it left the range the library holds exactly.
    var anyLeftTheExactRange: Bool {
      leftTheExactRange || children.contains { $0.anyLeftTheExactRange }
    }

    /// The documented progress: counts plus the unfinished children's shares, over the total.
    var progress: RunProgress {
      switch size {
      case .fraction(let fraction):
        return RunProgress(fractionCompleted: fraction)
      case .indeterminate(let counting):
        return .indeterminate(completed: counting ? completed : nil)
      case .total(let total):
        return progress(total: total)
      case .neverGiven:
        if assignedToChildren > 0 {
          return progress(total: assignedToChildren)
        }
        return completed == 0 ? .zero : .indeterminate(completed: completed)
      }
    }

    private func progress(total: Int) -> RunProgress {
      guard total > 0 else { return RunProgress(completed: 0, of: 0) }
      let counted = min(completed, total)
      var shares = 0.0
      for child in children where !child.isFinished {
        shares += Double(child.assigned) * (child.progress.fractionCompleted ?? 0)
      }
      return RunProgress(
        fractionCompleted: (Double(counted) + shares) / Double(total), completed: counted,
        of: total)
    }
  }

  // MARK: - Events

  enum Event: CustomStringConvertible {
    case subprogress(reporter: Int, count: Int)
    case start(share: Int, totalCount: Int?)
    case drop(share: Int)
    case reportCounts(reporter: Int, completed: Int, total: Int)
    case complete(reporter: Int, count: Int)
    case reportFraction(reporter: Int, Double)
    case reportIndeterminate(reporter: Int, completed: Int?)
    case reportTotal(reporter: Int, Int?)
    case copy(reporter: Int)
    case releaseCopy(reporter: Int)
    case release(reporter: Int)

    var description: String {
      switch self {
      case .subprogress(let reporter, let count):
        "r\(reporter).subprogress(assigningCount: \(count))"
      case .start(let share, let total): "s\(share).start(totalCount: \(Self.text(total)))"
      case .drop(let share): "drop s\(share)"
      case .reportCounts(let reporter, let completed, let total):
        "r\(reporter).report(completed: \(completed), of: \(total))"
      case .complete(let reporter, let count): "r\(reporter).complete(count: \(count))"
      case .reportFraction(let reporter, let value):
        "r\(reporter).report(fractionCompleted: \(value))"
      case .reportIndeterminate(let reporter, let completed):
        "r\(reporter).reportIndeterminate(completed: \(Self.text(completed)))"
      case .reportTotal(let reporter, let total):
        "r\(reporter).report(totalCount: \(Self.text(total)))"
      case .copy(let reporter): "copy r\(reporter)"
      case .releaseCopy(let reporter): "release a copy of r\(reporter)"
      case .release(let reporter): "release r\(reporter)"
      }
    }

    private static func text(_ value: Int?) -> String {
      value.map { "\($0)" } ?? "nil"
    }
  }

  /// Reported counts and totals at the edges: negative, around 2^31, 2^61 and 2^62, and the
  /// extremes of `Int`.
  static let edgeCounts = [
    Int.min, -7, 1 << 31, (1 << 31) + 1, 5 << 30, 1 << 40, baseLimit - 1, baseLimit,
    countLimit - 1, countLimit, 1 << 62, Int.max,
  ]
  /// Added and assigned counts at the edges; three of the largest ones can add up past 2^64,
  /// where the model stops, so they come rarely.
  static let edgeAdditions = [Int.min, -7, 1 << 31, (1 << 31) + 1, 5 << 30, 1 << 40]
  static let largestAdditions = [1 << 61, countLimit, Int.max]
  static let smallTotals: [Int?] = [nil, nil, 0, -3, 1, 2, 3, 4, 5, 8, 10, 100]
  static let fractions: [Double] = [
    0, 0.25, 0.5, 0.75, 1, 1.0 / 3, -0.5, 1.5, -0.0, .nan, .infinity, -.infinity, 1 - .ulpOfOne,
    .leastNonzeroMagnitude,
  ]

  // MARK: - The driver

  /// A subprogress the sequence holds, until it starts or drops it.
  final class Share {
    var subprogress: TaskRunner.Subprogress?

    init(_ subprogress: consuming TaskRunner.Subprogress) {
      self.subprogress = .some(subprogress)
    }
  }

  /// One sequence: the real tree, the model's, and the events played so far.
  final class Driver {
    private var random: Generator
    let root: TaskRunner.Reporter
    let model = Node(parent: nil, assigned: 0)
    /// Every copy of each live reporter the sequence holds, by number; 0 is the root.
    private var reporters: [Int: [TaskRunner.Reporter]] = [:]
    private var nodes: [Int: Node] = [:]
    private var shares: [Int: Share] = [:]
    private var shareModels: [Int: (parent: Node, assigned: Int)] = [:]
    private var nextReporter = 1
    private var nextShare = 1
    private(set) var played: [Event] = []

    init(root: TaskRunner.Reporter, seed: UInt64) {
      random = Generator(seed: seed)
      self.root = root
      reporters[0] = [root]
      nodes[0] = model
    }

    /// Whether an event took a count where the library does not hold it exactly, where the
    /// sequence stops.
    var leftTheExactRange: Bool { model.anyLeftTheExactRange }

    /// Plays one random event on the tree and the model.
    func step() {
      let event = nextEvent()
      played.append(event)
      play(event)
    }

    private func nextEvent() -> Event {
      let live = reporters.keys.sorted()
      let reporter = live[random.below(live.count)]
      let waiting = shares.keys.sorted()
      let roll = random.below(100)
      switch roll {
      case 0..<30 where !waiting.isEmpty:
        let share = waiting[random.below(waiting.count)]
        return roll < 24 ? .start(share: share, totalCount: total()) : .drop(share: share)
      case 0..<48: return .subprogress(reporter: reporter, count: addition())
      case 48..<60:
        let total = total() ?? 10
        let completed = random.below(4) == 0 ? count() : random.below(max(min(total, 12), 0) + 2)
        return .reportCounts(reporter: reporter, completed: completed, total: total)
      case 60..<76: return .complete(reporter: reporter, count: addition())
      case 76..<81:
        return .reportFraction(reporter: reporter, Self.pick(fractions, &random))
      case 81..<84:
        return .reportIndeterminate(
          reporter: reporter, completed: random.below(3) == 0 ? nil : count())
      case 84..<90: return .reportTotal(reporter: reporter, total())
      case 90..<92: return .copy(reporter: reporter)
      case 92..<93: return .releaseCopy(reporter: reporter)
      default:
        guard let child = live.filter({ $0 != 0 }).randomElement(using: &random) else {
          return .complete(reporter: reporter, count: 1)
        }
        return .release(reporter: child)
      }
    }

    /// A reported count: small mostly, an edge value sometimes.
    private func count() -> Int {
      random.below(12) == 0 ? Self.pick(edgeCounts, &random) : random.below(8) - 1
    }

    /// An added or assigned count: small mostly, an edge value sometimes, rarely a huge one.
    private func addition() -> Int {
      switch random.below(200) {
      case 0: Self.pick(largestAdditions, &random)
      case 1..<16: Self.pick(edgeAdditions, &random)
      default: random.below(8) - 1
      }
    }

    /// A total: small mostly, an edge value sometimes.
    private func total() -> Int? {
      random.below(10) == 0 ? Self.pick(edgeCounts, &random) : Self.pick(smallTotals, &random)
    }

    private static func pick<Value>(_ values: [Value], _ random: inout Generator) -> Value {
      values[random.below(values.count)]
    }

    private func play(_ event: Event) {
      switch event {
      case .subprogress(let number, let count):
        let share = nextShare
        nextShare += 1
        shares[share] = Share(reporters[number]![0].subprogress(assigningCount: count))
        let node = nodes[number]!
        shareModels[share] = (node, node.assign(count))
      case .start(let share, let total):
        let started = start(shares.removeValue(forKey: share)!, totalCount: total)
        let (parent, assigned) = shareModels.removeValue(forKey: share)!
        reporters[nextReporter] = [started]
        nodes[nextReporter] = parent.startChild(assigned: assigned, totalCount: total)
        nextReporter += 1
      case .drop(let share):
        shares.removeValue(forKey: share)!.subprogress = nil
        let (parent, assigned) = shareModels.removeValue(forKey: share)!
        parent.handOver(assigned)
      case .reportCounts(let number, let completed, let total):
        reporters[number]![0].report(completed: completed, of: total)
        nodes[number]!.report(completed: completed, of: total)
      case .complete(let number, let count):
        reporters[number]![0].complete(count: count)
        nodes[number]!.complete(count: count)
      case .reportFraction(let number, let value):
        reporters[number]![0].report(fractionCompleted: value)
        nodes[number]!.report(fractionCompleted: value)
      case .reportIndeterminate(let number, let completed):
        reporters[number]![0].reportIndeterminate(completed: completed)
        nodes[number]!.reportIndeterminate(completed: completed)
      case .reportTotal(let number, let total):
        reporters[number]![0].report(totalCount: total)
        nodes[number]!.report(totalCount: total)
      case .copy(let number):
        reporters[number]!.append(reporters[number]![0])
      case .releaseCopy(let number):
        if reporters[number]!.count > 1 {
          reporters[number]!.removeLast()
        }
      case .release(let number):
        reporters[number] = nil
        nodes.removeValue(forKey: number)!.finish()
      }
    }

    private func start(_ share: Share, totalCount: Int?) -> TaskRunner.Reporter {
      let subprogress = share.subprogress.take()!
      return subprogress.start(totalCount: totalCount)
    }

    /// Every live reporter whose progress differs from its model's.
    func disagreements() -> [String] {
      reporters.keys.sorted().compactMap { number in
        let (actual, expected) = (reporters[number]![0].progress, nodes[number]!.progress)
        guard !ProgressTreeModelTests.agree(actual, expected) else { return nil }
        return "r\(number) \(actual.debugDescription), model \(expected.debugDescription)"
      }
    }

    /// What a failure prints: the seed and every event played.
    func failure(seed: UInt64, _ problem: String) -> String {
      "seed \(seed): after [\(played.map(\.description).joined(separator: ", "))]: \(problem)"
    }
  }

  /// Whether two progress values agree: the counts exactly, the fractions within 1e-12.
  static func agree(_ actual: RunProgress, _ expected: RunProgress) -> Bool {
    guard actual.completedCount == expected.completedCount,
      actual.totalCount == expected.totalCount
    else { return false }
    switch (actual.fractionCompleted, expected.fractionCompleted) {
    case (nil, nil): return true
    case (let actual?, let expected?): return abs(actual - expected) <= 1e-12
    default: return false
    }
  }

  /// Plays one sequence on a standalone root; returns the first disagreement.
  static func play(seed: UInt64, events count: Int) -> (failure: String?, cut: Bool) {
    var setup = Generator(seed: seed ^ 0x7EE5)
    let totalCount = setup.below(3) == 0 ? nil : setup.below(12) - 1
    let driver = Driver(root: TaskRunner.Reporter(totalCount: totalCount), seed: seed)
    if let totalCount {
      driver.model.report(totalCount: totalCount)
    }
    var frames = Generator(seed: seed ^ 0xF4A3)
    for _ in 0..<count {
      driver.step()
      if driver.leftTheExactRange { return (nil, true) }
      // A frame after some events, not all: what a frame keeps from the last one must still
      // be right after several changes, or none.
      if frames.below(3) == 0, let frame = driver.root.node.readChanges(),
        !agree(frame, driver.model.progress)
      {
        return (
          driver.failure(
            seed: seed,
            "frame \(frame.debugDescription), model \(driver.model.progress.debugDescription)"),
          false
        )
      }
      let (actual, expected) = (driver.root.progress, driver.model.progress)
      if !agree(actual, expected) {
        return (
          driver.failure(
            seed: seed, "root \(actual.debugDescription), model \(expected.debugDescription)"),
          false
        )
      }
    }
    let others = driver.disagreements()
    return (
      others.isEmpty ? nil : driver.failure(seed: seed, others.joined(separator: "; ")), false
    )
  }

  static var sequenceCount: Int {
    ProcessInfo.processInfo.environment["TASKPROGRESS_TREE_SEQUENCES"].flatMap(Int.init)
      ?? TestScale.count(10_000, sanitized: 2_000)
  }

  static var baseSeed: UInt64 {
    ProcessInfo.processInfo.environment["TASKPROGRESS_TREE_SEED"].flatMap(UInt64.init)
      ?? UInt64.random(in: 0...UInt64.max / 2)
  }

  /// The length of sequence `seed`: 1 to 100 events.
  static func length(of seed: UInt64) -> Int {
    var random = Generator(seed: seed ^ 0x5EED)
    return random.below(100) + 1
  }

  @Test func aStandaloneRootAgreesWithTheModelAfterEveryEventOfRandomTrees() async {
    let base = Self.baseSeed
    // Tens of seconds under ThreadSanitizer: on a thread of its own, it holds none of the pool.
    let (failures, cut) = await onThreadsOfItsOwn { _ in
      var failures: [String] = []
      var cut = 0
      for index in 0..<Self.sequenceCount {
        let seed = base &+ UInt64(index)
        let outcome = Self.play(seed: seed, events: Self.length(of: seed))
        if outcome.cut { cut += 1 }
        if let failure = outcome.failure {
          failures.append(failure)
          if failures.count >= 3 { break }
        }
      }
      return (failures, cut)
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n(base seed \(base))")
    // Sequences that take a count out of the exact range, to 2^64, stop there (about 3 in
    // 50,000); nearly all must run to the end.
    #expect(cut * 1000 <= Self.sequenceCount, "\(cut) sequences left the exact range")
  }

  // MARK: - The same trees under a runner

  /// Plays one sequence on the root of a run of a runner on a manual clock: after each event, one
  /// frame, and the state must show the model's progress.
  @MainActor
  static func playOnRunner(seed: UInt64, events count: Int) async -> String? {
    let clock = ManualClock()
    let runner = TaskRunner(animation: .instant, clock: clock)
    let handedOut = Locked<TaskRunner.Reporter?>(nil)
    let (ready, proceed) = (Latch(), Latch())
    runner.start { reporter in
      handedOut.withLock { $0 = reporter }
      ready.open()
      await proceed.wait()
    }
    guard await ready.wait(for: "the operation of sequence \(seed) to start"),
      let root = handedOut.withLock({ $0.take() })
    else {
      proceed.open()
      return "seed \(seed): the run's operation never started"
    }
    var failure: String?
    do {
      let driver = Driver(root: root, seed: seed)
      var shown = RunProgress.zero
      for _ in 0..<count {
        driver.step()
        if driver.leftTheExactRange { break }
        clock.advance(by: runner.updateInterval)
        // The runner keeps its fraction where a new one is below it by rounding only.
        shown = driver.model.progress.keepingFraction(of: shown)
        guard case .running(let actual) = runner.state, agree(actual, shown) else {
          failure = driver.failure(seed: seed, "state \(runner.state), model \(shown)")
          break
        }
      }
    }
    proceed.open()
    await runner.lastRunTask?.value
    if failure == nil, runner.state != .finished {
      failure = "seed \(seed): the run ended \(runner.state)"
    }
    return failure
  }

  @MainActor @Test func aRunnersStateAgreesWithTheModelAfterEveryFrameOfRandomTrees() async {
    let base = Self.baseSeed
    var failures: [String] = []
    for index in 0..<max(Self.sequenceCount / 25, 1) {
      let seed = base &+ UInt64(index)
      if let failure = await Self.playOnRunner(seed: seed, events: Self.length(of: seed)) {
        failures.append(failure)
        if failures.count >= 3 { break }
      }
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n(base seed \(base))")
  }

  // MARK: - Found by the model

  // Each of these disagreed with the model in an earlier version of the library.

  @Test func aChildWithoutATotalStillShowsItsSecondStage() {
    // A callee that does not know its size hands its stages subprogresses; the first ends.
    let root = TaskRunner.Reporter(totalCount: 2)
    let callee = root.subprogress(assigningCount: 2).start(totalCount: nil)
    _ = callee.subprogress(assigningCount: 1)  // dropped: the first stage is done
    let second = callee.subprogress(assigningCount: 1).start(totalCount: 10)
    second.complete(count: 5)
    #expect(callee.progress == RunProgress(fractionCompleted: 0.75, completed: 1, of: 2))
    #expect(root.progress == RunProgress(fractionCompleted: 0.75, completed: 0, of: 2))
  }

  @Test func aFractionReportHidesTheCountWithoutDroppingIt() {
    let reporter = TaskRunner.Reporter()
    reporter.report(completed: 3, of: 10)
    reporter.report(fractionCompleted: 0.5)
    reporter.complete(count: 2)
    reporter.report(totalCount: 10)
    #expect(reporter.progress == RunProgress(completed: 5, of: 10))
  }

  @Test func aShareDroppedWhileTheParentShowsAFractionStillCounts() {
    let root = TaskRunner.Reporter(totalCount: 10)
    let share = root.subprogress(assigningCount: 4)
    root.report(fractionCompleted: 0.2)
    _ = consume share
    root.report(totalCount: 10)
    root.complete(count: 6)
    #expect(root.progress == RunProgress(completed: 10, of: 10))
  }

  @Test func aHugeCountKeptUnderASmallTotalIsClamped() {
    let reporter = TaskRunner.Reporter()
    reporter.reportIndeterminate(completed: 1 << 62)
    reporter.report(totalCount: 3)
    #expect(reporter.progress == RunProgress(completed: 3, of: 3))
  }

  @Test func aCountIsKeptAfterMoreThanIntMaxUnitsWereAdded() {
    // Counts that were added, then replaced: the count itself stays small.
    let reporter = TaskRunner.Reporter()
    reporter.complete(count: Int.max)
    reporter.report(completed: 1, of: 10)
    reporter.complete(count: 5)
    #expect(reporter.progress == RunProgress(completed: 6, of: 10))
    reporter.report(fractionCompleted: 0.5)
    reporter.report(totalCount: nil)
    #expect(reporter.progress == .indeterminate(completed: 6))
  }

  @Test func aCountOf2To61IsKeptUnderATotalAbove2To62() {
    let reporter = TaskRunner.Reporter()
    reporter.report(completed: 1 << 61, of: (1 << 61) + 5)
    reporter.report(totalCount: Int.max)
    #expect(reporter.progress == RunProgress(completed: 1 << 61, of: Int.max))
  }

  /// A small, fast, seedable generator (SplitMix64), so that a sequence replays from its seed.
  struct Generator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
      state = seed
    }

    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
      Int(next() % UInt64(bound))
    }
  }
}
