import Testing

@testable import TaskProgress

/// One rule decides what a progress measures, for the counts beside a bar and for its rate.
@Suite("Progress measure")
struct ProgressMeasureTests {
  private static let units = RunProgress(completed: 10, of: 100)
  private static let expectedBytes = units.withByteCount(completed: nil, total: 1_050_000_000)
  private static let countedBytes = units.withByteCount(completed: 0, total: 1_050_000_000)
  private static let expectedFiles = units.withFileCount(completed: nil, total: 24)
  private static let countedFiles = units.withFileCount(completed: 3, total: 24)
  private static let both = countedFiles.withByteCount(completed: 117, total: nil)

  /// A progress, then what its counts and its rate measure.
  static let table: [(RunProgress, ProgressMeasure?, ProgressMeasure?)] = [
    (units, .units, .units),
    (expectedBytes, .bytes, .units),
    (countedBytes, .bytes, .bytes),
    (expectedFiles, .files, .units),
    (countedFiles, .files, .files),
    (both, .bytes, .bytes),
    (expectedBytes.withFileCount(completed: 2, total: nil), .bytes, .files),
    (RunProgress(fractionCompleted: 0.5), nil, .fraction),
    (RunProgress.indeterminate(completed: 4), .units, .units),
    (RunProgress.indeterminate(), nil, nil),
  ]

  @Test(arguments: table)
  func countsAndRateMeasureTheFirstAmountTheRunHas(
    progress: RunProgress, counts: ProgressMeasure?, rate: ProgressMeasure?
  ) {
    #expect(ProgressMeasure.counts(of: progress)?.measure == counts)
    #expect(ProgressMeasure.rate(of: progress) == rate)
    #expect(ProgressMeasure.position(of: progress)?.measure == rate)
  }

  @Test func aRunThatExpectsBytesAndCompletesUnitsIsRatedInUnits() {
    let progress = Self.expectedBytes
    #expect(ProgressUnit.items.format(throughput: 38, of: progress) == "38.0 it/s")
    #expect(ProgressUnit.items.rateUnit(of: progress) == .items)
    #expect(
      ProgressMeasure.counts(of: progress)
        == ProgressMeasure.Counts(measure: .bytes, completed: 0, total: 1_050_000_000))
    #expect(
      ProgressMeasure.position(of: progress)
        == ProgressMeasure.Position(measure: .units, completed: 10, remaining: 90))
  }

  @Test func eachMeasureIsFormattedInItsOwnUnit() {
    #expect(ProgressMeasure.bytes.unit(given: .items) == .bytes)
    #expect(ProgressMeasure.bytes.unit(given: .binaryBytes) == .binaryBytes)
    #expect(ProgressMeasure.files.unit(given: .bytes) == .items(named: "files"))
    #expect(ProgressMeasure.units.unit(given: .bytes) == .bytes)
    #expect(ProgressMeasure.fraction.unit(given: .items) == .items)
    #expect(ProgressUnit.items.format(throughput: 52_000_000, of: Self.both) == "52.0 MB/s")
    #expect(ProgressUnit.binaryBytes.format(throughput: 1024, of: Self.both) == "1.0 KiB/s")
    #expect(ProgressUnit.items.format(throughput: 2, of: Self.countedFiles) == "2.0 files/s")
    #expect(ProgressUnit.items.format(throughput: 2, of: nil) == "2.0 it/s")
  }

  @Test func countsShowTheWholeTotalOnceFinished() {
    let progress = RunProgress(fractionCompleted: 0.9, completed: 0, of: 100)
    #expect(ProgressMeasure.counts(of: progress)?.completed == 90)
    #expect(ProgressMeasure.counts(of: progress, finished: true)?.completed == 100)
    #expect(
      ProgressMeasure.position(of: progress)
        == ProgressMeasure.Position(measure: .units, completed: 90, remaining: 10))
  }
}
