import ExampleSupport

/// The command line of `downloads`, parsed without Foundation.
struct Options: Equatable, Sendable {
  var count = 8
  var jobs = 3
  var seed: UInt64 = 5
  var speed = 1.0
  var failAt: Int?
  var showsHelp = false

  static let countRange = 1...1_000
  static let jobsRange = 1...100
  static let speedRange = 0.1...1_000.0

  /// A command line that cannot be run: one line naming what was wrong.
  typealias UsageError = ExampleSupport.UsageError

  static let usage = """
    USAGE: downloads [--count N] [--jobs K] [--seed S] [--speed X] [--fail-at I]

    Downloads a queue of files, K at a time, with a bar for each download under way and the
    total below them. The downloads are simulated: sizes from 1 MB to 200 MB, each file at a
    speed of its own, the same ones for the same seed.

    On a terminal, the downloads start when you press Enter:
      Enter  start the downloads (again, once they have ended)
      c      cancel all: the downloads under way and the ones waiting
      q      quit (Ctrl-C cancels the downloads and quits)
    Piped or in CI, they start at once and the progress is written as plain lines.

    OPTIONS:
      --count N     The number of files, 1 to 1000. (default: 8)
      --jobs K      Download K files at a time, 1 to 100. (default: 3)
      --seed S      Pick the files' names, sizes and speeds with seed S, a whole number
                    from 0 to 18446744073709551615. (default: 5)
      --speed X     Simulate the downloads X times as fast, 0.1 to 1000. (default: 1)
      --fail-at I   Make download I (1 to N) break off partway. (default: none)
      -h, --help    Show this help.

    EXIT STATUS:
      0 every download finished, 1 a download failed, 130 cancelled (c, Ctrl-C, SIGINT),
      143 terminated (SIGTERM, SIGHUP), 141 the reader of the output went away (as after
      SIGPIPE), 64 bad usage.
      On a terminal, q exits with the status of the last run (0 if none ran; 130 if q
      cancelled it).
    """

  /// Parses the arguments that follow the program's name.
  static func parse<Arguments: Collection<String>>(
    _ arguments: Arguments
  ) throws(UsageError) -> Options {
    var options = Options()
    var scanner = ArgumentScanner(
      arguments, options: ["--count", "--jobs", "--seed", "--speed", "--fail-at"])
    while let argument = try scanner.next() {
      guard case .option(let name, let value) = argument else {
        options.showsHelp = true
        continue
      }
      switch name {
      case "--count":
        options.count = try ArgumentValue.integer(
          value, for: name, in: countRange, what: "a number of files")
      case "--jobs":
        options.jobs = try ArgumentValue.integer(
          value, for: name, in: jobsRange, what: "a number of downloads")
      case "--seed":
        options.seed = try ArgumentValue.integer(
          value, for: name, in: UInt64.min...UInt64.max, what: "a whole number")
      case "--speed":
        options.speed = try ArgumentValue.decimal(
          value, for: name, in: speedRange, what: "a factor")
      default:
        options.failAt = try ArgumentValue.integer(
          value, for: name, in: countRange, what: "a download number")
      }
    }
    if let failAt = options.failAt, failAt > options.count, !options.showsHelp {
      throw UsageError(
        "option '--fail-at' is \(failAt), past the last download (--count is \(options.count))")
    }
    return options
  }
}
