/// `exp`, `sin` and `cos` for the spring solution, so that the core needs neither Foundation nor
/// the C library (the standard library has no elementary functions).
///
/// Classic range reduction (fdlibm's split constants) followed by Taylor polynomials whose
/// truncation error is below 1e-17 on the reduced range. Accurate to a few ulps for the
/// arguments a spring produces (`|x| < 1e6` for `sin` and `cos`); the tests compare them with the
/// C library's over many arguments.
enum ElementaryFunctions {
  private static let ln2High = 6.931_471_803_691_238_164_90e-01
  private static let ln2Low = 1.908_214_929_270_587_700_02e-10
  private static let halfPiFirst = 1.570_796_326_734_125_614_17e+00
  private static let halfPiSecond = 6.077_100_506_303_965_976_60e-11
  private static let halfPiThird = 2.022_266_248_795_950_631_54e-21

  /// e raised to `x`.
  static func exp(_ x: Double) -> Double {
    guard !x.isNaN else { return x }
    if x > 709.78 { return .infinity }
    if x < -745.2 { return 0 }
    let k = (x / (ln2High + ln2Low)).rounded()
    let r = (x - k * ln2High) - k * ln2Low
    // Taylor series of e^r for |r| <= ln 2 / 2, by Horner's rule from the 13th term down.
    var sum = 1.0
    var index = 13.0
    while index >= 1 {
      sum = 1 + sum * r / index
      index -= 1
    }
    return Double(sign: .plus, exponent: Int(k), significand: sum)
  }

  /// The sine of `x` radians.
  static func sin(_ x: Double) -> Double {
    let (r, quadrant) = reduced(x)
    switch quadrant {
    case 0: return sinKernel(r)
    case 1: return cosKernel(r)
    case 2: return -sinKernel(r)
    default: return -cosKernel(r)
    }
  }

  /// The cosine of `x` radians.
  static func cos(_ x: Double) -> Double {
    let (r, quadrant) = reduced(x)
    switch quadrant {
    case 0: return cosKernel(r)
    case 1: return -sinKernel(r)
    case 2: return -cosKernel(r)
    default: return sinKernel(r)
    }
  }

  /// Reduces `x` to `x - n·π/2` in `-π/4...π/4`, with `n` modulo 4; NaN for non-finite `x`.
  private static func reduced(_ x: Double) -> (Double, Int) {
    guard x.isFinite else { return (.nan, 0) }
    let n = (x * (2 / Double.pi)).rounded()
    // n·halfPiFirst and n·halfPiSecond are exact while |n| < 2^20: each constant has 33 bits.
    let r = ((x - n * halfPiFirst) - n * halfPiSecond) - n * halfPiThird
    let quadrant = Int(n.truncatingRemainder(dividingBy: 4))
    return (r, (quadrant + 4) % 4)
  }

  /// Taylor series of sin(r) for |r| <= π/4, to the 19th power.
  private static func sinKernel(_ r: Double) -> Double {
    let r2 = r * r
    var sum = 1.0
    var index = 19.0
    while index >= 3 {
      sum = 1 - sum * r2 / (index * (index - 1))
      index -= 2
    }
    return r * sum
  }

  /// Taylor series of cos(r) for |r| <= π/4, to the 20th power.
  private static func cosKernel(_ r: Double) -> Double {
    let r2 = r * r
    var sum = 1.0
    var index = 20.0
    while index >= 2 {
      sum = 1 - sum * r2 / (index * (index - 1))
      index -= 2
    }
    return sum
  }
}
