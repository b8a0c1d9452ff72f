extension RandomAccessCollection {
  /// The index of the first element for which `belongsInSecondPartition` is true, in a
  /// collection whose elements for which it is false all come first; `endIndex` when there is
  /// none.
  ///
  /// A binary search, as swift-algorithms' `partitioningIndex(where:)`: in a sorted collection,
  /// `partitioningIndex { $0 >= value }` is where `value` goes to keep it sorted, after the
  /// elements less than it.
  package func partitioningIndex(
    where belongsInSecondPartition: (Element) throws -> Bool
  ) rethrows -> Index {
    var low = startIndex
    var count = self.count
    while count > 0 {
      let half = count / 2
      let middle = index(low, offsetBy: half)
      if try belongsInSecondPartition(self[middle]) {
        count = half
      } else {
        low = index(after: middle)
        count -= half + 1
      }
    }
    return low
  }
}
