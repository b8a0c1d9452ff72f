import ExampleSupport

/// The command line of `heavy-task`, parsed without Foundation by the examples' shared
/// ``ArgumentScanner``, so that it can be fuzzed alone (see Scripts/fuzz.sh).
struct Options: Equatable, Sendable {
  /// The animation curve of the progress view.
  enum Curve: String, CaseIterable, Sendable {
    case linear, easeIn, easeOut, easeInOut, spring, none
  }

  var items = 50
  var delayMilliseconds = 40
  var failAt: Int?
  var jobs = 1
  var logPath: String?
  var curve = Curve.spring
  var showsHelp = false

  static let itemsRange = 0...10_000_000
  static let delayRange = 0...60_000
  static let jobsRange = 1...1_000

  /// A command line that cannot be run: one line naming what was wrong.
  typealias UsageError = ExampleSupport.UsageError

  static let usage = """
    USAGE: heavy-task [--items N] [--delay-ms D] [--fail-at K] [--jobs J] [--log FILE]
                      [--curve CURVE]

    Performs a heavy task with a progress view, like the "Perform a Heavy Task" button of the
    SwiftUI example it mirrors.

    On a terminal, the button and the progress view are drawn on the screen:
      Enter  press the button (again, once a run has ended)
      p      pause the run; p again resumes it
      c      cancel the run (running or paused)
      q      quit (Ctrl-C cancels the run and quits)
    Piped or in CI, the button presses itself once and the progress is written as plain lines.

    OPTIONS:
      --items N       The number of items to process, 0 to 10000000. (default: 50)
      --delay-ms D    The time each item takes, in milliseconds, 0 to 60000. (default: 40)
      --fail-at K     Make item K (1 to N) throw an error. (default: none)
      --jobs J        Perform J items at a time, 1 to 1000. (default: 1, one after another)
      --log FILE      Also append the progress to FILE as JSON Lines. (default: none)
      --curve CURVE   The animation of the progress view: linear, easeIn, easeOut, easeInOut,
                      spring or none. (default: spring)
      -h, --help      Show this help.

    EXIT STATUS:
      0 finished, 1 failed, 130 cancelled (Ctrl-C, SIGINT), 143 terminated (SIGTERM),
      141 the reader of the output went away (as after SIGPIPE), 64 bad usage,
      73 a log file that cannot be created or written.
      On a terminal, q exits with the status of the last run (0 if none ran; 130 if q
      cancelled it).
    """

  /// Parses the arguments that follow the program's name.
  static func parse<Arguments: Collection<String>>(
    _ arguments: Arguments
  ) throws(UsageError) -> Options {
    var options = Options()
    var scanner = ArgumentScanner(
      arguments, options: ["--items", "--delay-ms", "--fail-at", "--jobs", "--log", "--curve"])
    while let argument = try scanner.next() {
      guard case .option(let name, let value) = argument else {
        options.showsHelp = true
        continue
      }
      switch name {
      case "--items":
        options.items = try ArgumentValue.integer(
          value, for: name, in: itemsRange, what: "a whole number")
      case "--delay-ms":
        options.delayMilliseconds = try ArgumentValue.integer(
          value, for: name, in: delayRange, what: "a number of milliseconds")
      case "--fail-at":
        options.failAt = try ArgumentValue.integer(
          value, for: name, in: 1...itemsRange.upperBound, what: "an item number")
      case "--jobs":
        options.jobs = try ArgumentValue.integer(
          value, for: name, in: jobsRange, what: "a number of items")
      case "--log":
        guard !value.isEmpty else { throw UsageError("option '--log' needs a file path, got ''") }
        options.logPath = value
      default:
        guard let curve = Curve(rawValue: value) else {
          let names = Curve.allCases.map(\.rawValue).joined(separator: ", ")
          throw UsageError(
            "option '--curve' expects one of \(names); got '\(ArgumentValue.printable(value))'")
        }
        options.curve = curve
      }
    }
    if let failAt = options.failAt, failAt > options.items, !options.showsHelp {
      throw UsageError(
        "option '--fail-at' is \(failAt), past the last item (--items is \(options.items))")
    }
    return options
  }
}
