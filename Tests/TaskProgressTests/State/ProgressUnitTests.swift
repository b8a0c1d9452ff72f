import Testing

@testable import TaskProgress

@Suite("Progress unit")
struct ProgressUnitTests {
  static let itemCounts: [(Int, String)] = [
    (0, "0"), (1, "1"), (999, "999"), (1000, "1000"), (1_050_195_871, "1050195871"),
    (Int.max, "9223372036854775807"), (-5, "0"), (Int.min, "0"),
  ]

  static let itemPairs: [(Int, Int, String)] = [
    (29, 100, "29/100"), (0, 0, "0/0"), (100, 100, "100/100"), (150, 100, "150/100"),
    (-1, 10, "0/10"), (3, -4, "3/0"), (1_050_195_871, Int.max, "1050195871/9223372036854775807"),
  ]

  static let decimalBytes: [(Int, String)] = [
    (0, "0 B"), (1, "1 B"), (999, "999 B"), (1000, "1.0 kB"), (1023, "1.0 kB"), (1024, "1.0 kB"),
    (1049, "1.0 kB"), (1050, "1.1 kB"), (9949, "9.9 kB"), (9950, "10.0 kB"),
    (12_345, "12.3 kB"), (99_949, "99.9 kB"), (99_950, "100 kB"), (123_456, "123 kB"),
    (999_499, "999 kB"), (999_500, "1.0 MB"), (999_950, "1.0 MB"), (999_999, "1.0 MB"),
    (1_000_000, "1.0 MB"), (1_049_999, "1.0 MB"), (1_050_000, "1.1 MB"),
    (12_345_678, "12.3 MB"), (123_456_789, "123 MB"), (999_499_999, "999 MB"),
    (999_500_000, "1.0 GB"), (1_000_000_000, "1.0 GB"), (1_234_567_890, "1.2 GB"),
    (999_499_999_999, "999 GB"), (999_500_000_000, "1.0 TB"), (1_000_000_000_000, "1.0 TB"),
    (999_499_999_999_999, "999 TB"), (999_500_000_000_000, "1.0 PB"),
    (1_000_000_000_000_000, "1.0 PB"), (999_500_000_000_000_000, "1.0 EB"),
    (1_000_000_000_000_000_000, "1.0 EB"), (Int.max, "9.2 EB"), (-1, "0 B"), (Int.min, "0 B"),
  ]

  static let binaryBytes: [(Int, String)] = [
    (0, "0 B"), (999, "999 B"), (1000, "1000 B"), (1023, "1023 B"), (1024, "1.0 KiB"),
    (1075, "1.0 KiB"), (1076, "1.1 KiB"), (10_188, "9.9 KiB"), (10_189, "10.0 KiB"),
    (102_348, "99.9 KiB"), (102_349, "100 KiB"), (1_023_487, "999 KiB"),
    (1_023_488, "1000 KiB"), (1_048_063, "1023 KiB"), (1_048_064, "1.0 MiB"),
    (1_048_575, "1.0 MiB"), (1_048_576, "1.0 MiB"), (1_058_013_184, "1009 MiB"),
    (1_181_116_006, "1.1 GiB"), (1 << 40, "1.0 TiB"), (1 << 50, "1.0 PiB"),
    ((1 << 60) - 1, "1.0 EiB"), (1 << 60, "1.0 EiB"), (Int.max, "8.0 EiB"), (-1, "0 B"),
    (Int.min, "0 B"),
  ]

  static let bytePairs: [(ProgressUnit, Int, Int, String)] = [
    (.bytes, 1_200_000_000, 3_400_000_000, "1.2 GB / 3.4 GB"),
    (.bytes, 0, 999, "0 B / 999 B"), (.bytes, -1, 1000, "0 B / 1.0 kB"),
    (.bytes, 12_345_678, Int.max, "12.3 MB / 9.2 EB"),
    (.binaryBytes, 1024, 1_048_576, "1.0 KiB / 1.0 MiB"),
    (.binaryBytes, 1023, 1_181_116_006, "1023 B / 1.1 GiB"),
  ]

  static let itemRates: [(Double, String)] = [
    (0, "0.00 it/s"), (0.004, "0.00 it/s"), (0.005, "0.01 it/s"), (0.05, "0.05 it/s"),
    (0.5, "0.50 it/s"), (0.994, "0.99 it/s"), (0.996, "1.0 it/s"), (1, "1.0 it/s"),
    (9.94, "9.9 it/s"), (24.45, "24.5 it/s"), (99.94, "99.9 it/s"), (99.96, "100 it/s"),
    (139, "139 it/s"), (999.4, "999 it/s"), (999.5, "1.0k it/s"), (999.95, "1.0k it/s"),
    (1000, "1.0k it/s"), (1234, "1.2k it/s"), (99_960, "100k it/s"), (999_499, "999k it/s"),
    (999_500, "1.0M it/s"), (139e6, "139M it/s"), (999.5e6, "1.0G it/s"), (1e9, "1.0G it/s"),
    (1e12, "1.0T it/s"), (1e15, "1.0P it/s"), (1e18, "1.0E it/s"),
    (Double(Int.max), "9.2E it/s"), (999e18, "999E it/s"), (999.5e18, "1000E it/s"),
    (1e21, "1000E it/s"), (1e30, "1000000000000E it/s"),
    (1e40, "10000000000000000000000E it/s"), (.nan, "0.00 it/s"), (.infinity, "0.00 it/s"),
    (-.infinity, "0.00 it/s"), (-3, "0.00 it/s"), (-0.0, "0.00 it/s"),
  ]

  static let decimalByteRates: [(Double, String)] = [
    (0, "0 B/s"), (0.004, "0 B/s"), (0.4, "0 B/s"), (0.5, "1 B/s"), (1, "1 B/s"),
    (24.45, "24 B/s"), (512, "512 B/s"), (999.4, "999 B/s"), (999.5, "1.0 kB/s"),
    (999.95, "1.0 kB/s"), (1000, "1.0 kB/s"), (12_345_678, "12.3 MB/s"), (12.3e6, "12.3 MB/s"),
    (999_950, "1.0 MB/s"), (123.4e6, "123 MB/s"), (1e12, "1.0 TB/s"),
    (Double(Int.max), "9.2 EB/s"), (1e30, "1000000000000 EB/s"), (.nan, "0 B/s"),
    (.infinity, "0 B/s"), (-3, "0 B/s"),
  ]

  static let binaryByteRates: [(Double, String)] = [
    (0, "0 B/s"), (512, "512 B/s"), (1023.4, "1023 B/s"), (1023.5, "1.0 KiB/s"),
    (1024, "1.0 KiB/s"), (12_267_000, "11.7 MiB/s"), (1_048_575, "1.0 MiB/s"),
    (1_058_013_184, "1009 MiB/s"), (1e12, "931 GiB/s"), (Double(Int.max), "8.0 EiB/s"),
    (1e30, "867361737988 EiB/s"), (.nan, "0 B/s"), (.infinity, "0 B/s"), (-3, "0 B/s"),
  ]

  @Test(arguments: itemCounts)
  func itemCountsAreExactIntegers(count: Int, expected: String) {
    #expect(ProgressUnit.items.format(count) == expected)
    #expect(ProgressUnit.items(named: "files").format(count) == expected)
  }

  @Test(arguments: itemPairs)
  func itemPairsAreExactIntegersAroundASlash(completed: Int, total: Int, expected: String) {
    #expect(ProgressUnit.items.format(completed: completed, of: total) == expected)
    #expect(ProgressUnit.items(named: "files").format(completed: completed, of: total) == expected)
  }

  @Test func itemPairsReadAsRunProgressDescribesItsCounts() {
    for (completed, total) in [(0, 1), (29, 100), (99, 100), (100, 100), (7, Int.max)] {
      #expect(
        ProgressUnit.items.format(completed: completed, of: total)
          == RunProgress(completed: completed, of: total).description)
    }
  }

  @Test(arguments: decimalBytes)
  func decimalBytesTakeThePrefixThatKeepsTheNumberBelowAThousand(count: Int, expected: String) {
    #expect(ProgressUnit.bytes.format(count) == expected)
  }

  @Test(arguments: binaryBytes)
  func binaryBytesTakeThePrefixThatKeepsTheNumberBelow1024(count: Int, expected: String) {
    #expect(ProgressUnit.binaryBytes.format(count) == expected)
  }

  @Test(arguments: bytePairs)
  func bytePairsFormatEachSideOnItsOwn(
    unit: ProgressUnit, completed: Int, total: Int, expected: String
  ) {
    #expect(unit.format(completed: completed, of: total) == expected)
  }

  @Test(arguments: itemRates)
  func itemRatesGlueAnSIPrefixToTheNumber(rate: Double, expected: String) {
    #expect(ProgressUnit.items.format(throughput: rate) == expected)
  }

  @Test func namedItemRatesShowTheName() {
    let files = ProgressUnit.items(named: "files")
    #expect(files.format(throughput: 24.45) == "24.5 files/s")
    #expect(files.format(throughput: 1234) == "1.2k files/s")
    #expect(files.format(throughput: 0.5) == "0.50 files/s")
    #expect(files.format(throughput: .nan) == "0.00 files/s")
    #expect(ProgressUnit.items(named: "").format(throughput: 24.45) == "24.5 it/s")
  }

  @Test(arguments: decimalByteRates)
  func decimalByteRatesScaleLikeCounts(rate: Double, expected: String) {
    #expect(ProgressUnit.bytes.format(throughput: rate) == expected)
  }

  @Test(arguments: binaryByteRates)
  func binaryByteRatesScaleLikeCounts(rate: Double, expected: String) {
    #expect(ProgressUnit.binaryBytes.format(throughput: rate) == expected)
  }

  @Test func theLargestRatesStayInTheLargestPrefixWithoutTrapping() {
    let largest = ProgressUnit.items.format(throughput: .greatestFiniteMagnitude)
    // 1.7976931348623157e308 / 1e18: the 17 digits that identify it, then 274 zeros.
    #expect(largest.hasPrefix("17976931348623157000"))
    #expect(largest.hasSuffix("0E it/s"))
    #expect(largest.count == 291 + "E it/s".count)
    #expect(largest.dropLast("E it/s".count).allSatisfy { $0.isASCII && $0.isNumber })
    let bytes = ProgressUnit.bytes.format(throughput: .greatestFiniteMagnitude)
    #expect(bytes.hasPrefix("17976931348623157") && bytes.hasSuffix("0 EB/s"))
    let binary = ProgressUnit.binaryBytes.format(throughput: .greatestFiniteMagnitude)
    #expect(binary.hasSuffix(" EiB/s"))
    #expect(binary.dropLast(" EiB/s".count).allSatisfy { $0.isASCII && $0.isNumber })
  }

  @Test func integerDigitsAreExactBelow2To63AndPaddedAbove() {
    #expect(ProgressUnit.integerDigits(0) == "0")
    #expect(ProgressUnit.integerDigits(0x1p53 + 2) == "9007199254740994")
    #expect(ProgressUnit.integerDigits(0x1p63 - 1024) == "9223372036854774784")
    #expect(ProgressUnit.integerDigits(0x1p63) == "9223372036854776000")
    #expect(ProgressUnit.integerDigits(1.5e30) == "1500000000000000000000000000000")
  }

  /// Counts around every boundary of both byte scales, in steps fine enough to cross each shown
  /// digit.
  static func sweep(base: Int) -> [Int] {
    var counts: [Int] = []
    var multiple = 1
    for _ in 0...6 {
      let boundaries = [1, 10, 100, 1000, base].compactMap { factor in
        let (boundary, overflow) = multiple.multipliedReportingOverflow(by: factor)
        return overflow ? nil : boundary
      }
      for boundary in boundaries {
        let step = max(multiple / 200, 1)
        for offset in -300...300 {
          let (count, overflow) = boundary.addingReportingOverflow(offset * step)
          if !overflow, count >= 0 { counts.append(count) }
        }
      }
      let (next, overflow) = multiple.multipliedReportingOverflow(by: base)
      if overflow { break }
      multiple = next
    }
    return Array(Set(counts)).sorted()
  }

  @Test(arguments: [(ProgressUnit.bytes, 1000), (ProgressUnit.binaryBytes, 1024)])
  func byteCountsAreAccurateMonotonicAndBelowTheMultiple(unit: ProgressUnit, base: Int) throws {
    let prefixes =
      base == 1000 ? ["", "k", "M", "G", "T", "P", "E"] : ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
    var previous = -1.0
    for count in Self.sweep(base: base) {
      let text = unit.format(count)
      let parts = text.split(separator: " ")
      try #require(parts.count == 2, "\(count): \(text)")
      let number = try #require(Double(String(parts[0])), "\(count): \(text)")
      let prefix = String(parts[1].dropLast())
      let exponent = try #require(prefixes.firstIndex(of: prefix), "\(count): \(text)")
      let multiple = (0..<exponent).reduce(1.0) { value, _ in value * Double(base) }
      let decimals = parts[0].split(separator: ".").dropFirst().first?.count ?? 0
      // One decimal below 100, none from 100; bytes below one multiple are whole.
      #expect(decimals == (exponent > 0 && number < 100 ? 1 : 0), "\(count): \(text)")
      #expect(number < Double(base), "\(count): \(text)")
      #expect(exponent == 0 || number >= 1, "\(count): \(text)")
      // Within half of the digit shown.
      let digit = decimals == 1 ? 0.1 : 1
      let shown = number * multiple
      #expect(abs(shown - Double(count)) <= digit / 2 * multiple * (1 + 1e-12), "\(count): \(text)")
      #expect(shown >= previous, "\(count): \(text)")
      previous = shown
    }
  }

  @Test func unitsAreEqualWhenTheyFormatAlike() {
    #expect(ProgressUnit.items == .items(named: "it"))
    #expect(ProgressUnit.items == .items(named: ""))
    #expect(ProgressUnit.items != .items(named: "files"))
    #expect(ProgressUnit.items(named: "files") == .items(named: "files"))
    #expect(ProgressUnit.bytes != .binaryBytes)
    #expect(ProgressUnit.items != .bytes)
    let units: Set<ProgressUnit> = [.items, .items(named: "it"), .bytes, .binaryBytes]
    #expect(units.count == 3)
  }

  @Test func onlyByteUnitsAreBytes() {
    #expect(!ProgressUnit.items.isBytes)
    #expect(!ProgressUnit.items(named: "files").isBytes)
    #expect(ProgressUnit.bytes.isBytes)
    #expect(ProgressUnit.binaryBytes.isBytes)
  }

  @Test func descriptionNamesTheUnit() {
    #expect(ProgressUnit.items.description == "items")
    #expect(ProgressUnit.items(named: "it").description == "items")
    #expect(ProgressUnit.items(named: "files").description == "items(files)")
    #expect(ProgressUnit.bytes.description == "bytes")
    #expect(ProgressUnit.binaryBytes.description == "binaryBytes")
    #expect("\(ProgressUnit.binaryBytes)" == "binaryBytes")
  }
}
