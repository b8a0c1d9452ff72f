import Foundation
import Testing

@testable import TaskProgress

@Suite("Elementary functions")
struct ElementaryFunctionsTests {
  /// Arguments from tiny to large, both signs, plus the spots range reduction splits at.
  static let arguments: [Double] = {
    var values: [Double] = [
      0, -0.0, 1e-300, 1e-10, 0.5, 1, .pi / 4, .pi / 2, .pi, 2 * .pi, 10, 100, 700,
    ]
    var x = 1e-6
    while x < 1e5 {
      values.append(x)
      x *= 1.37
    }
    return values + values.map { -$0 }
  }()

  /// The error in units of the last place of the reference, with a floor for results near 0.
  private func ulps(_ value: Double, _ reference: Double) -> Double {
    abs(value - reference) / max(reference.magnitude.ulp, Double.leastNormalMagnitude)
  }

  @Test func expMatchesTheCLibraryWithinAFewUlps() {
    for x in Self.arguments where x < 709 {
      #expect(ulps(ElementaryFunctions.exp(x), Foundation.exp(x)) <= 4, "exp(\(x))")
    }
  }

  @Test func expHandlesItsLimits() {
    #expect(ElementaryFunctions.exp(0) == 1)
    #expect(ElementaryFunctions.exp(710) == .infinity)
    #expect(ElementaryFunctions.exp(-746) == 0)
    #expect(ElementaryFunctions.exp(-740).isFinite)
    #expect(ElementaryFunctions.exp(.nan).isNaN)
  }

  @Test func sinAndCosMatchTheCLibraryWithin1eMinus15Absolute() {
    for x in Self.arguments {
      #expect(
        abs(ElementaryFunctions.sin(x) - Foundation.sin(x)) <= 1e-15 * max(1, abs(x) / 1e3),
        "sin(\(x))")
      #expect(
        abs(ElementaryFunctions.cos(x) - Foundation.cos(x)) <= 1e-15 * max(1, abs(x) / 1e3),
        "cos(\(x))")
    }
  }

  @Test func sinAndCosOfNonFiniteAreNaN() {
    #expect(ElementaryFunctions.sin(.infinity).isNaN)
    #expect(ElementaryFunctions.cos(.nan).isNaN)
  }
}
