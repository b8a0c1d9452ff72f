import TaskProgress

/// One frame of the default update interval.
package let frame: Duration = .seconds(1) / 60

extension Double {
  /// Whether two values are within `tolerance` of each other.
  package func isClose(to other: Double, tolerance: Double = 1e-9) -> Bool {
    abs(self - other) <= tolerance
  }
}
