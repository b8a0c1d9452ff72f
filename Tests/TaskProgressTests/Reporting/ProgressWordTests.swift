import Testing

@testable import TaskProgress

/// The encoding of a progress node's words, apart from the node: generations, modes, bases,
/// fractions, the saturating count and the hand-over version.
@Suite("Progress word")
struct ProgressWordTests {
  typealias Mode = ProgressWord.Mode

  /// Every mode, with totals at both ends of the words' range.
  static let modes: [Mode] = [
    .total(0), .total(1), .total(1 << 40), .total((1 << 62) - 9), .fraction,
    .indeterminateCounting, .indeterminate, .neverGiven, .wide,
  ]

  /// The payload a total word holds for `mode`.
  static func payload(_ mode: Mode) -> UInt64 {
    switch mode {
    case .total(let total): UInt64(total)
    case .fraction: ProgressWord.fractionMode
    case .indeterminateCounting: ProgressWord.indeterminateCountingMode
    case .indeterminate: ProgressWord.indeterminateMode
    case .neverGiven: ProgressWord.neverGivenMode
    case .wide: ProgressWord.wideMode
    }
  }
  /// Payloads at the edges of the 62 bits.
  static let payloads: [UInt64] = [0, 1, 1 << 61, (1 << 62) - 1]

  /// A word of `generation` over `payload`.
  static func word(generation: UInt64, payload: UInt64) -> ProgressWord {
    ProgressWord(rawValue: generation << 62 | payload)
  }

  // MARK: - Generation and payload

  @Test(arguments: 0..<4, payloads)
  func aWordSplitsIntoItsGenerationAndPayload(generation: Int, payload: UInt64) {
    let word = Self.word(generation: UInt64(generation), payload: payload)
    #expect(word.generation == generation)
    #expect(word.payload == payload)
  }

  @Test(arguments: 0..<4, payloads)
  func aNewPayloadKeepsTheGeneration(generation: Int, payload: UInt64) {
    let word = Self.word(generation: UInt64(generation), payload: 12345)
    let count = word.with(payload: payload)
    #expect(count.generation == generation)
    #expect(count.payload == payload)
    #expect(count.isSameGeneration(as: word))
  }

  @Test(arguments: 0..<4, payloads)
  func aNewTotalTakesTheNextGenerationAndWrapsFromThreeToZero(generation: Int, payload: UInt64) {
    let word = Self.word(generation: UInt64(generation), payload: 7)
    let next = word.next(payload: payload)
    #expect(next.generation == (generation + 1) % 4)
    #expect(next.payload == payload)
    #expect(!next.isSameGeneration(as: word))
  }

  @Test func fourNewTotalsComeBackToTheSameGeneration() {
    var word = ProgressWord(rawValue: ProgressWord.neverGivenMode)
    var seen: [Int] = []
    for total in 1...4 {
      word = word.next(payload: UInt64(total))
      seen.append(word.generation)
    }
    #expect(seen == [1, 2, 3, 0])
    #expect(word.mode == .total(4))
  }

  // MARK: - Modes

  @Test(arguments: modes)
  func everyModeReadsBackFromItsPayload(mode: Mode) {
    let payload = Self.payload(mode)
    #expect(payload <= ProgressWord.payloadMask)
    for generation: UInt64 in 0..<4 {
      #expect(Self.word(generation: generation, payload: payload).mode == mode)
    }
  }

  @Test func theModesHaveDistinctPayloadsAboveEveryTotal() {
    let modes: [Mode] = [.fraction, .indeterminateCounting, .indeterminate, .neverGiven, .wide]
    let payloads = modes.map(Self.payload)
    #expect(Set(payloads).count == modes.count)
    #expect(payloads.allSatisfy { $0 >= ProgressWord.fractionMode })
  }

  @Test func totalsFitBelowTheFirstMode() {
    #expect(ProgressWord.payload(total: 0) == 0)
    #expect(ProgressWord.payload(total: (1 << 62) - 9) == (1 << 62) - 9)
    #expect(ProgressWord.payload(total: (1 << 62) - 8) == nil)
    #expect(ProgressWord.payload(total: 1 << 62) == nil)
    #expect(ProgressWord.payload(total: Int.max) == nil)
    #expect(ProgressWord.payload(total: -1) == nil)
  }

  /// Every change from one mode to another, from every generation: the new total word reads as
  /// the new mode one generation on, and the count word written with it matches it.
  @Test(arguments: modes, modes)
  func everyModeChangeReadsAsTheNewModeOneGenerationOn(from: Mode, to: Mode) throws {
    for generation: UInt64 in 0..<4 {
      let before = Self.word(generation: generation, payload: Self.payload(from))
      let after = before.next(payload: Self.payload(to))
      #expect(after.mode == to)
      #expect(after.generation == Int(generation + 1) % 4)
      let count = after.with(payload: try #require(ProgressWord.payload(base: -3)))
      #expect(count.isSameGeneration(as: after))
      #expect(!count.isSameGeneration(as: before))
    }
  }

  /// A mode saves the base on entry exactly when the words hold none in it.
  @Test(arguments: modes)
  func aModeSavesTheBaseExactlyWhenTheWordsHoldNone(mode: Mode) throws {
    let total = ProgressWord(rawValue: Self.payload(mode))
    let count = total.with(payload: try #require(ProgressWord.payload(base: 42)))
    let base = ProgressWord.base(total: total, count: count)
    #expect((base == nil) == mode.savesBase)
    switch mode {
    case .total, .indeterminateCounting: #expect(base == 42)
    case .neverGiven: #expect(base == 0)
    case .fraction, .indeterminate, .wide: #expect(base == nil)
    }
  }

  // MARK: - The count word

  static let basesInTheWords = [
    0, 1, -1, 1 << 40, -(1 << 40), (1 << 61) - 1, -(1 << 61),
  ]

  @Test(arguments: basesInTheWords)
  func aBaseReadsBackFromEveryGeneration(base: Int) throws {
    let payload = try #require(ProgressWord.payload(base: base))
    #expect(payload <= ProgressWord.payloadMask)
    for generation: UInt64 in 0..<4 {
      #expect(Self.word(generation: generation, payload: payload).base == base)
    }
  }

  @Test(arguments: [1 << 61, -(1 << 61) - 1, 1 << 62, Int.max, Int.min])
  func aBaseBeyondSixtyTwoBitsDoesNotFit(base: Int) {
    #expect(ProgressWord.payload(base: base) == nil)
  }

  @Test(arguments: [0, 0.25, 0.5, 1.0 / 3, 1 - .ulpOfOne, 1, .leastNonzeroMagnitude])
  func aFractionReadsBackFromEveryGeneration(fraction: Double) {
    let payload = ProgressWord.payload(fraction: fraction)
    #expect(payload <= ProgressWord.payloadMask)
    for generation: UInt64 in 0..<4 {
      #expect(Self.word(generation: generation, payload: payload).fraction == fraction)
    }
  }

  // MARK: - Counts

  @Test func aCountIsTheBasePlusWhatWasAdded() {
    #expect(ProgressWord.completed(base: 0, added: 0) == 0)
    #expect(ProgressWord.completed(base: -5, added: 10) == 5)
    #expect(ProgressWord.completed(base: 3, added: 1 << 62) == (1 << 62) + 3)
    #expect(ProgressWord.completed(base: -(1 << 61), added: Int.max) == Int.max - (1 << 61))
  }

  @Test func aCountStaysExactWhenTheUnitsAddedPassIntMax() {
    // More than Int.max units were added, then a count of 3 was reported and 7 more added.
    let addedThen = Int.max &+ 10
    let base = 3 &- addedThen
    #expect(ProgressWord.completed(base: base, added: addedThen &+ 7) == 10)
  }

  @Test func aCountAboveIntMaxSaturates() {
    #expect(ProgressWord.completed(base: 1, added: Int.max) == Int.max)
    #expect(ProgressWord.completed(base: (1 << 61) - 1, added: Int.max) == Int.max)
    #expect(ProgressWord.completed(base: 0, added: Int.max &+ Int.max) == Int.max)
    #expect(ProgressWord.saturated(Int.max) == Int.max)
    #expect(ProgressWord.saturated(Int.min) == Int.max)
    #expect(ProgressWord.saturated(-1) == Int.max)
    #expect(ProgressWord.saturated(0) == 0)
  }

  // MARK: - The hand-over version

  @Test func aHandOverIsUnderWayFromItsOpeningToItsClosing() {
    var version: UInt64 = 0
    #expect(ProgressWord.HandOver.isQuiet(version))
    version &+= ProgressWord.HandOver.opening
    #expect(!ProgressWord.HandOver.isQuiet(version))
    version &+= ProgressWord.HandOver.opening
    version &+= ProgressWord.HandOver.closing
    #expect(!ProgressWord.HandOver.isQuiet(version))
    version &+= ProgressWord.HandOver.closing
    #expect(ProgressWord.HandOver.isQuiet(version))
    #expect(version == 2 << 32)
  }

  @Test func theCountOfHandOversWrapsWithoutTouchingThoseUnderWay() {
    var version: UInt64 = 0xFFFF_FFFF << 32
    version &+= ProgressWord.HandOver.opening
    #expect(!ProgressWord.HandOver.isQuiet(version))
    version &+= ProgressWord.HandOver.closing
    #expect(version == 0)
    #expect(ProgressWord.HandOver.isQuiet(version))
  }
}
