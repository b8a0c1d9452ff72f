import Testing

@testable import TaskProgress

/// The one binary search of the package, against a linear search.
@Suite("Partitioning index")
struct PartitioningIndexTests {
  /// Every non-decreasing array of values in `0...3`, up to `length` elements.
  private func sortedArrays(upTo length: Int) -> [[Int]] {
    var arrays: [[Int]] = [[]]
    var longest: [[Int]] = [[]]
    for _ in 0..<length {
      longest = longest.flatMap { array in ((array.last ?? 0)...3).map { array + [$0] } }
      arrays += longest
    }
    return arrays
  }

  @Test func everySortedArrayFindsWhereEachValueGoesAsALinearSearchDoes() {
    var checked = 0
    for array in sortedArrays(upTo: 8) {
      // A slice that does not start at 0, too.
      let slice = ([-9, -9] + array).dropFirst(2)
      for value in -1...4 {
        let expected = array.firstIndex { $0 >= value } ?? array.endIndex
        #expect(array.partitioningIndex { $0 >= value } == expected, "\(array), \(value)")
        #expect(slice.partitioningIndex { $0 >= value } == expected + 2, "\(array), \(value)")
        checked += 1
      }
    }
    #expect(checked == 495 * 6)  // C(12, 4) arrays, six values each
  }
}
