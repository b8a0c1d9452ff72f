/// A spring: a damped harmonic oscillator released from rest, as SwiftUI's
/// `spring(response:dampingFraction:)`.
///
/// `response` is the period of the undamped spring, in seconds: lower is stiffer.
/// `dampingFraction` is 1 for a critically damped spring, which reaches its target as fast as a
/// spring can without overshooting; less than 1 bounces, more than 1 creeps. The motion is solved
/// in closed form for all three cases, and the curve spans the spring's ``settlingDuration``.
public struct SpringCurve: AnimationCurve, Hashable {
  /// The period of the undamped spring, in seconds.
  public let response: Double
  /// The ratio of the damping to critical damping.
  public let dampingFraction: Double
  /// The settling time in seconds, computed once.
  private let settlingSeconds: Double
  /// The displacement left at the settling time, which the curve removes linearly.
  private let drift: Double

  /// How close to the target the spring must be to count as settled, as a fraction of the distance.
  static let settlingTolerance = 1e-3

  /// Creates a spring.
  ///
  /// - Parameters:
  ///   - response: The period of the undamped spring, in seconds, clamped to `0.01...100`;
  ///     NaN becomes 0.55.
  ///   - dampingFraction: The ratio to critical damping, clamped to `0.01...100`; NaN becomes 1.
  init(response: Double = 0.55, dampingFraction: Double = 1) {
    self.response = response.isNaN ? 0.55 : min(max(response, 0.01), 100)
    self.dampingFraction = dampingFraction.isNaN ? 1 : min(max(dampingFraction, 0.01), 100)
    let settling = SpringCurve.settlingSeconds(
      response: self.response, damping: self.dampingFraction)
    self.settlingSeconds = settling
    self.drift = SpringCurve.displacement(
      at: settling, response: self.response, damping: self.dampingFraction)
  }

  /// Creates a spring from SwiftUI's newer parameters: a perceptual `duration` in seconds and a
  /// `bounce` in `-1...1`, where 0 is critically damped and positive values bounce.
  init(duration: Double, bounce: Double) {
    let bounce = bounce.isNaN ? 0 : min(max(bounce, -0.99), 0.99)
    let damping = bounce >= 0 ? 1 - bounce : 1 / (1 + bounce)
    self.init(response: duration, dampingFraction: damping)
  }

  /// The time the spring takes to come within 1e-3 of its target and stay there.
  public var settlingDuration: Duration {
    .seconds(settlingSeconds)
  }

  /// The progress at `time`, where `1` is ``settlingDuration``.
  public func value(at time: Double) -> Double {
    guard time > 0 else { return 0 }
    guard time < 1 else { return 1 }
    return 1 + displacement(at: time * settlingSeconds) - drift * time
  }

  /// The physical solution at `seconds`: the position relative to the target, released at -1
  /// from rest.
  func displacement(at seconds: Double) -> Double {
    SpringCurve.displacement(at: seconds, response: response, damping: dampingFraction)
  }

  private static func displacement(
    at seconds: Double, response: Double, damping zeta: Double
  )
    -> Double
  {
    typealias Math = ElementaryFunctions
    let omega = 2 * Double.pi / response
    if abs(zeta - 1) < 1e-6 {
      return -(1 + omega * seconds) * Math.exp(-omega * seconds)
    } else if zeta < 1 {
      let damped = omega * (1 - zeta * zeta).squareRoot()
      let b = -zeta * omega / damped
      let oscillation = -Math.cos(damped * seconds) + b * Math.sin(damped * seconds)
      return Math.exp(-zeta * omega * seconds) * oscillation
    } else {
      let root = (zeta * zeta - 1).squareRoot()
      let fast = -omega * (zeta + root)
      let slow = -omega * (zeta - root)
      let slowWeight = fast / (slow - fast)
      return slowWeight * Math.exp(slow * seconds) + (-1 - slowWeight) * Math.exp(fast * seconds)
    }
  }

  /// The last time the spring is farther than the tolerance from its target.
  ///
  /// Released from rest, the spring's velocity is proportional to `sin(ω_d·t)`, so an
  /// under-damped spring's farthest points are at `t_k = kπ/ω_d`, where it is `e^(-ζω·t_k)` away
  /// from the target, ever less. After the last of them that is out of tolerance, the distance
  /// falls below the tolerance once and never comes back: bisection finds that moment. A
  /// critically or over-damped spring from rest approaches its target monotonically, so
  /// bisection applies from the start.
  private static func settlingSeconds(response: Double, damping zeta: Double) -> Double {
    func isFar(_ seconds: Double) -> Bool {
      abs(displacement(at: seconds, response: response, damping: zeta)) > settlingTolerance
    }
    let omega = 2 * Double.pi / response
    var low = 0.0
    var high = response
    if zeta < 1 && abs(zeta - 1) >= 1e-6 {
      let halfPeriod = Double.pi / (omega * (1 - zeta * zeta).squareRoot())
      while ElementaryFunctions.exp(-zeta * omega * (low + halfPeriod)) > settlingTolerance {
        low += halfPeriod
      }
      high = low + halfPeriod
    } else {
      while isFar(high) && high < 1e9 {
        low = high
        high *= 2
      }
    }
    for _ in 0..<100 {
      let middle = (low + high) / 2
      if isFar(middle) { low = middle } else { high = middle }
    }
    return high
  }
}

extension AnimationCurve where Self == SpringCurve {
  /// A spring with SwiftUI's parameters: `response` in seconds and `dampingFraction`, where 1 is
  /// critically damped (no overshoot).
  ///
  /// - Parameters:
  ///   - response: The period of the undamped spring, in seconds, clamped to `0.01...100`;
  ///     NaN becomes 0.55.
  ///   - dampingFraction: The ratio to critical damping, clamped to `0.01...100`; NaN becomes 1.
  /// - Returns: The spring, to pass wherever an ``AnimationCurve`` is expected.
  public static func spring(response: Double = 0.55, dampingFraction: Double = 1) -> SpringCurve {
    SpringCurve(response: response, dampingFraction: dampingFraction)
  }

  /// A spring with SwiftUI's newer parameters: a perceptual `duration` and a `bounce` in `-1...1`.
  public static func spring(duration: Double, bounce: Double) -> SpringCurve {
    SpringCurve(duration: duration, bounce: bounce)
  }
}
