/// One of a progress node's two atomic words: a two-bit generation over a 62-bit payload.
///
/// A node keeps a report in two words, so that a report is a load and a store:
///
/// - The *total word*'s payload is a ``Mode``: a total below ``fractionMode``, or one of the
///   modes from there up.
/// - The *count word*'s payload is a fraction's bits, or the completed count's *base*, a signed
///   62-bit number: the count minus the units the node had added when the count was reported.
///
/// Both words carry the generation of the total they were written for. A new total is stored with
/// the next generation, before its count; a reader that finds two generations caught a report
/// half-way.
///
/// Every constant is a literal, so that the reporter's inlined fast path, in the client's module,
/// reads it as an immediate: a `static let` computed by a call, such as `Int(clamping:)`, is
/// initialised lazily, and each report would check that it was (about a nanosecond per report,
/// measured by progress-bench (d)).
@frozen
@usableFromInline
struct ProgressWord: Equatable, Sendable {
  @usableFromInline let rawValue: UInt64

  @inlinable
  init(rawValue: UInt64) {
    self.rawValue = rawValue
  }

  @usableFromInline static let generationMask: UInt64 = 0b11 << 62
  @usableFromInline static let generationOne: UInt64 = 1 << 62
  @usableFromInline static let payloadMask: UInt64 = (1 << 62) - 1

  /// The generation, 0 to 3.
  @inlinable
  var generation: Int { Int(rawValue >> 62) }

  @inlinable
  var payload: UInt64 { rawValue & ProgressWord.payloadMask }

  /// This generation with another payload: the count word that goes with this total word.
  @inlinable
  func with(payload: UInt64) -> ProgressWord {
    ProgressWord(rawValue: rawValue & ProgressWord.generationMask | payload)
  }

  /// The next generation, 3 wrapping to 0, with another payload: a new total.
  @inlinable
  func next(payload: UInt64) -> ProgressWord {
    ProgressWord(
      rawValue: (rawValue & ProgressWord.generationMask) &+ ProgressWord.generationOne | payload)
  }

  /// Whether two words were written for the same total.
  @inlinable
  func isSameGeneration(as other: ProgressWord) -> Bool {
    generation == other.generation
  }

  // MARK: - The total word

  /// The first of the total word's modes; totals are below it, whatever the width of `Int`.
  @usableFromInline static let fractionMode: UInt64 = (1 << 62) - 8
  @usableFromInline static let indeterminateCountingMode: UInt64 = (1 << 62) - 7
  @usableFromInline static let indeterminateMode: UInt64 = (1 << 62) - 6
  @usableFromInline static let neverGivenMode: UInt64 = (1 << 62) - 5
  @usableFromInline static let wideMode: UInt64 = (1 << 62) - 4

  /// What a total word says.
  enum Mode: Equatable, Sendable {
    /// Counts of a total below ``ProgressWord/fractionMode``; the count word holds the base.
    case total(Int)
    /// A bare fraction, in the count word.
    case fraction
    /// Unknown size, with a count; the count word holds the base.
    case indeterminateCounting
    /// Unknown size, without a count.
    case indeterminate
    /// Nothing replaced the count yet: it is what was added.
    case neverGiven
    /// Counts too large for the words: the total waits behind the node's lock.
    case wide

    /// Whether the words hold no base in this mode, so that the base is saved on entering it.
    var savesBase: Bool {
      switch self {
      case .fraction, .indeterminate, .wide: true
      case .total, .indeterminateCounting, .neverGiven: false
      }
    }
  }

  /// The mode of a total word.
  var mode: Mode {
    switch payload {
    case ProgressWord.fractionMode: .fraction
    case ProgressWord.indeterminateCountingMode: .indeterminateCounting
    case ProgressWord.indeterminateMode: .indeterminate
    case ProgressWord.neverGivenMode: .neverGiven
    case ProgressWord.wideMode: .wide
    default: .total(Int(truncatingIfNeeded: payload))
    }
  }

  /// A total word's payload for a total, or `nil` when it is too large for the words.
  @inlinable
  static func payload(total: Int) -> UInt64? {
    let payload = UInt64(truncatingIfNeeded: total)
    return payload < fractionMode ? payload : nil
  }

  // MARK: - The count word

  /// A count word's payload for a completed count's base, or `nil` when the base needs more than
  /// 62 bits: a count of 2^61 or more, or one 2^61 below the units added so far.
  @inlinable
  static func payload(base: Int) -> UInt64? {
    let bits = UInt64(truncatingIfNeeded: base)
    return bits &+ (1 << 61) < 1 << 62 ? bits & payloadMask : nil
  }

  /// The base a count word holds.
  @inlinable
  var base: Int { Int(truncatingIfNeeded: Int64(bitPattern: rawValue << 2) >> 2) }

  /// A count word's payload for a fraction in `0...1`, whose bits fit in 62.
  @inlinable
  static func payload(fraction: Double) -> UInt64 {
    fraction.bitPattern
  }

  /// The fraction a count word holds.
  var fraction: Double { Double(bitPattern: payload) }

  /// The base a pair of words holds: the count word's, or 0 before any count was reported (the
  /// count is then what was added); `nil` in a mode whose base is saved apart.
  static func base(total: ProgressWord, count: ProgressWord) -> Int? {
    switch total.mode {
    case .total, .indeterminateCounting: count.base
    case .neverGiven: 0
    case .fraction, .indeterminate, .wide: nil
    }
  }

  // MARK: - Counts

  /// The completed count of a base and the units added since the node began.
  @inlinable
  static func completed(base: Int, added: Int) -> Int {
    saturated(base &+ added)
  }

  /// A sum of counts that are never negative, kept modulo 2^64 (2^32 where `Int` has 32 bits):
  /// exact up to `Int.max`, and `Int.max` from there until the sum reaches 2^64, where it would
  /// wrap.
  ///
  /// A count is the last one reported plus the units added since; reaching 2^64 takes more than
  /// `Int.max` units added without a report in between.
  @inlinable
  static func saturated(_ sum: Int) -> Int {
    sum < 0 ? Int.max : sum
  }

  // MARK: - The hand-over version

  /// A node's version word: children handing their shares over, under way in the low 32 bits,
  /// done above.
  enum HandOver {
    /// Added when a hand-over begins.
    static let opening: UInt64 = 1
    /// Added when it ends: one fewer under way, one more done.
    static let closing: UInt64 = (1 << 32) - 1

    /// Whether no hand-over is under way.
    static func isQuiet(_ version: UInt64) -> Bool {
      version & 0xFFFF_FFFF == 0
    }
  }
}
