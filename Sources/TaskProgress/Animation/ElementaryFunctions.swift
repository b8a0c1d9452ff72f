/// `exp`, `sin` and `cos` for the spring solution, so that the core needs neither Foundation nor
/// the C library (the standard library has no elementary functions).
///
/// fdlibm's algorithms: range reduction with split constants, then its minimax polynomials (a
/// rational form for `exp`), which take multiplications and at most one division. Accurate to
/// about one ulp for the arguments a spring produces (`|x| < 1e6` for `sin` and `cos`); the tests
/// compare them with the C library's over many arguments.
enum ElementaryFunctions {
  private static let ln2High = 6.931_471_803_691_238_164_90e-01
  private static let ln2Low = 1.908_214_929_270_587_700_02e-10
  private static let inverseLn2 = 1.442_695_040_888_963_387_00e+00
  private static let halfPiFirst = 1.570_796_326_734_125_614_17e+00
  private static let halfPiSecond = 6.077_100_506_303_965_976_60e-11
  private static let halfPiThird = 2.022_266_248_795_950_631_54e-21

  /// e raised to `x`.
  static func exp(_ x: Double) -> Double {
    guard !x.isNaN else { return x }
    if x > 709.78 { return .infinity }
    if x < -745.2 { return 0 }
    // x = k·ln 2 + r with |r| <= ln 2 / 2, r carried as high - low for the extra bits.
    let k = (x * inverseLn2).rounded()
    let high = x - k * ln2High
    let low = k * ln2Low
    let r = high - low
    let r2 = r * r
    let c =
      r - r2
      * (1.666_666_666_666_660_190_37e-01 + r2
        * (-2.777_777_777_701_559_338_42e-03 + r2
          * (6.613_756_321_437_934_361_17e-05 + r2
            * (-1.653_390_220_546_525_153_90e-06 + r2 * 4.138_136_797_057_238_460_39e-08))))
    let y = 1 - ((low - (r * c) / (2 - c)) - high)
    // Scaled in two steps: 2^k alone is not a normal number near the ends of the range.
    let half = Int(k) / 2
    return y * Double(sign: .plus, exponent: half, significand: 1)
      * Double(sign: .plus, exponent: Int(k) - half, significand: 1)
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

  /// sin(r) for |r| <= π/4: fdlibm's kernel polynomial.
  private static func sinKernel(_ r: Double) -> Double {
    let z = r * r
    let tail =
      8.333_333_333_322_489_461_24e-03 + z
      * (-1.984_126_982_985_794_931_34e-04 + z
        * (2.755_731_370_707_006_767_89e-06 + z
          * (-2.505_076_025_340_686_341_95e-08 + z * 1.589_690_995_211_550_102_21e-10)))
    return r + z * r * (-1.666_666_666_666_663_243_48e-01 + z * tail)
  }

  /// cos(r) for |r| <= π/4: fdlibm's kernel polynomial.
  private static func cosKernel(_ r: Double) -> Double {
    let z = r * r
    let tail =
      z
      * (4.166_666_666_666_660_190_37e-02 + z
        * (-1.388_888_888_887_410_957_49e-03 + z
          * (2.480_158_728_947_672_941_78e-05 + z
            * (-2.755_731_435_139_066_330_35e-07 + z
              * (2.087_572_321_298_174_827_90e-09 + z * -1.135_964_755_778_819_482_65e-11)))))
    let halfZ = 0.5 * z
    let w = 1 - halfZ
    return w + (((1 - w) - halfZ) + z * tail)
  }
}
