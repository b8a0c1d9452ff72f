extension TaskRunnerGroup {
  /// A member's part in the group's sums, as its latest update has it.
  struct Share: Equatable {
    /// Its weight, when known: given, 1 with equal weighting, or its run's total; a member
    /// without one counts as the mean of those that have one.
    var weight: Double?
    /// Its state's fraction: idle 0, running its fraction or 0 while indeterminate, finished 1,
    /// failed and cancelled 0.
    var fraction = 0.0
    /// Its animated progress.
    var displayed = 0.0
    /// Whether its work is still to do: idle, running or paused.
    var isOpen = true
    /// The part of its work done, for the group's speed: a failed or cancelled run keeps what it
    /// had done, though its state shows 0.
    var done = 0.0
  }

  /// The sums over the members' shares, kept up to date as shares change, so that summing up a
  /// group costs the same whatever the number of its members.
  ///
  /// A sum over members whose weight is not known counts each of them once, and is weighted by
  /// the mean known weight only when read, since that mean changes with every known weight.
  struct GroupSums {
    /// A sum over the members with a known weight, weighted; over the others, once each; and
    /// over every member once each, for when the weights add up to 0 or to more than a `Double`
    /// holds and the members count equally.
    struct Sum {
      var known = 0.0
      var unknown = 0.0
      var all = 0.0

      mutating func add(_ value: Double, weight: Double?, sign: Double) {
        if let weight {
          known += sign * weight * value
        } else {
          unknown += sign * value
        }
        all += sign * value
      }
    }

    private(set) var count = 0
    private var knownCount = 0
    private var knownWeight = 0.0
    private var fraction = Sum()
    private var displayed = Sum()
    /// The work the idle and active members have left.
    private var remaining = Sum()

    /// Sums of no shares.
    init() {}

    /// Sums of `shares`, added in their order.
    init(_ shares: some Sequence<Share>) {
      for share in shares {
        add(share)
      }
    }

    mutating func add(_ share: Share) {
      change(share, sign: 1)
    }

    mutating func remove(_ share: Share) {
      change(share, sign: -1)
    }

    private mutating func change(_ share: Share, sign: Double) {
      count += Int(sign)
      if let weight = share.weight {
        knownCount += Int(sign)
        knownWeight += sign * weight
      }
      fraction.add(share.fraction, weight: share.weight, sign: sign)
      displayed.add(share.displayed, weight: share.weight, sign: sign)
      remaining.add(share.isOpen ? 1 - share.fraction : 0, weight: share.weight, sign: sign)
    }

    /// Whether every weight is known.
    var isTotalKnown: Bool {
      knownCount == count
    }

    /// The weight of a member without one: the mean of the known weights, or 1.
    private var guess: Double {
      knownCount > 0 ? knownWeight / Double(knownCount) : 1
    }

    /// Whether the weights count: they add up to more than 0, and to a finite number.
    ///
    /// Otherwise every member counts as 1, rather than divide by 0 or by infinity.
    private var weightsCount: Bool {
      let total = knownWeight + Double(count - knownCount) * guess
      return total > 0 && total.isFinite
    }

    /// The weight a share counts with now.
    func weight(of share: Share) -> Double {
      weightsCount ? share.weight ?? guess : 1
    }

    private func value(of sum: Sum) -> Double {
      weightsCount ? sum.known + guess * sum.unknown : sum.all
    }

    /// The weighted work in all.
    var total: Double {
      weightsCount ? knownWeight + Double(count - knownCount) * guess : Double(count)
    }

    /// The weighted work done.
    var completed: Double { value(of: fraction) }

    /// The weighted work the idle and active members have left.
    var left: Double { value(of: remaining) }

    /// The share of the work done, in `0...1`.
    var fractionCompleted: Double {
      let total = total
      return total > 0 ? min(max(completed / total, 0), 1) : 0
    }

    /// The weighted mean of the members' displayed progress, in `0...1`.
    var displayedProgress: Double {
      let total = total
      return total > 0 ? min(max(value(of: displayed) / total, 0), 1) : 0
    }
  }
}
