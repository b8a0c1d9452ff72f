/// What one invocation of `progress-bench` does, parsed from its arguments.
enum Invocation: Equatable {
  /// Print the usage and exit.
  case help
  /// Measure every case in child processes and report: the normal run.
  case benchmark(BenchmarkOptions)
  /// Measure one case in this process and print one JSON line: what the parent runs.
  case child(ChildOptions)
}

/// The options of a full benchmark run.
struct BenchmarkOptions: Equatable {
  /// How many child processes measure each case at each size; the report shows their medians.
  var runs = 5
  /// The two sizes: the targets compare the smaller with the larger (1M and 10M by default).
  var sizes = [1_000_000, 10_000_000]
  /// Whether the seed's pipeline also runs at the larger size (minutes and gigabytes at 10M).
  var seedAtLargeSize = false
  /// Whether this is the smoke test: fewer runs, smaller sizes.
  var quick = false
  /// Where the full results are written as JSON.
  var jsonPath = "Benchmarks/results/latest.json"
  /// The cases to run; all of them by default.
  var cases = BenchCase.allCases
  /// How long the idle case waits with nothing running.
  var idleSeconds = 2.0

  /// The seed's sizes: the smaller size only, unless asked for both.
  var seedSizes: [Int] {
    seedAtLargeSize ? sizes : [sizes[0]]
  }
}

/// The options of a child process: one case, one size.
struct ChildOptions: Equatable {
  var benchCase: BenchCase
  var n: Int
  var repetitions = 1
  var idleSeconds = 2.0
}

/// A command line that cannot be run, with the one line that says why.
struct UsageError: Error, CustomStringConvertible {
  var description: String
}

extension Invocation {
  /// The text `--help` prints.
  static let usage = """
    USAGE: progress-bench [--runs K] [--quick] [--seed-10m] [--json PATH] [--only CASES]
                          [--idle-seconds S]

    Measures the cost of progress reporting, side by side, each case in a fresh child process:
      (a) seed                 the blog's AsyncStream pipeline, one main-actor Task per value
      (b) foundation-progress  Foundation.Progress, completedUnitCount += 1
      (c) atomic               a raw Atomic<Int> store loop with .releasing (the floor)
      (d) reporter             TaskRunner.Reporter.report(completed:of:) in a tight loop
      (e) run-over             TaskRunner.run(over: 0..<N) { _ in await noOp() }, end to end
      (e') hand-loop           the same work written by hand in run { reporter in ... } (reference)
      (f) reporter-x2, -x8     (d) split over 2 and 8 concurrent tasks, N reports in total
      (g) saturated            8 tasks report for 0.5 s without suspending: frames wait
      (g') saturated-checkpoints
                               (g) with reporter.checkpoint() every 4,096 reports: frames come
          idle                 wake-ups of a runner before, during and after a run
          empty                the peak RSS of a child that measures nothing (the baseline)

    OPTIONS:
      --runs K       Child processes per case and size; the report shows medians (default 5).
      --quick        Smoke test: 2 runs at N = 100,000 and 1,000,000, idle window 1 s.
      --seed-10m     Also run (a) at 10,000,000 (minutes, several GB); by default (a) runs at the
                     smaller size only.
      --json PATH    Where to write the results (default Benchmarks/results/latest.json).
      --only CASES   Comma-separated case names from the list above (default: all).
      --idle-seconds S
                     How long the idle case waits with nothing running (default 2).
      -h, --help     Show this help.

    INTERNAL (what the parent runs in each child):
      --case NAME --n N [--repeat R]
                     Measure one case in this process and print one JSON line.
    """

  /// Parses the arguments, without the program name.
  static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
    var benchmark = BenchmarkOptions()
    var childCase: BenchCase?
    var childN: Int?
    var repetitions = 1
    var explicitRuns: Int?
    var explicitIdleSeconds: Double?
    var remaining = arguments[...]

    func value(for flag: String) throws(UsageError) -> String {
      guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
        throw UsageError(description: "\(flag) needs a value")
      }
      return value
    }

    func positive(_ text: String, for flag: String) throws(UsageError) -> Int {
      let digits = text.filter { $0 != "_" && $0 != "," }
      guard let number = Int(digits), number > 0 else {
        throw UsageError(description: "\(flag) needs a positive whole number, not '\(text)'")
      }
      return number
    }

    while let argument = remaining.popFirst() {
      switch argument {
      case "-h", "--help":
        return .help
      case "--runs":
        explicitRuns = try positive(try value(for: argument), for: argument)
      case "--quick":
        benchmark.quick = true
      case "--seed-10m":
        benchmark.seedAtLargeSize = true
      case "--json":
        benchmark.jsonPath = try value(for: argument)
      case "--only":
        benchmark.cases = try cases(from: try value(for: argument))
      case "--idle-seconds":
        let text = try value(for: argument)
        guard let seconds = Double(text), seconds > 0, seconds <= 60 else {
          throw UsageError(description: "--idle-seconds needs a number of seconds in (0, 60]")
        }
        explicitIdleSeconds = seconds
      case "--case":
        let name = try value(for: argument)
        guard let benchCase = BenchCase(rawValue: name) else {
          throw UsageError(description: "unknown case '\(name)'; see --help for the list")
        }
        childCase = benchCase
      case "--n":
        childN = try positive(try value(for: argument), for: argument)
      case "--repeat":
        repetitions = try positive(try value(for: argument), for: argument)
      default:
        throw UsageError(description: "unknown argument '\(argument)'; see --help")
      }
    }

    if let childCase {
      return .child(
        ChildOptions(
          benchCase: childCase, n: childN ?? 1, repetitions: repetitions,
          idleSeconds: explicitIdleSeconds ?? benchmark.idleSeconds))
    }
    if childN != nil || repetitions != 1 {
      throw UsageError(description: "--n and --repeat go with --case")
    }
    if benchmark.quick {
      benchmark.runs = 2
      benchmark.sizes = [100_000, 1_000_000]
      benchmark.idleSeconds = 1
    }
    if let explicitRuns {
      benchmark.runs = explicitRuns
    }
    if let explicitIdleSeconds {
      benchmark.idleSeconds = explicitIdleSeconds
    }
    return .benchmark(benchmark)
  }

  private static func cases(from list: String) throws(UsageError) -> [BenchCase] {
    var selected: [BenchCase] = []
    for name in list.split(separator: ",") {
      guard let benchCase = BenchCase(rawValue: String(name)) else {
        throw UsageError(description: "unknown case '\(name)' in --only; see --help for the list")
      }
      selected.append(benchCase)
    }
    guard !selected.isEmpty else {
      throw UsageError(description: "--only needs at least one case name")
    }
    return BenchCase.allCases.filter(selected.contains)
  }
}
