/// The command line of `heavy-task`, parsed without Foundation so that it can be fuzzed alone.
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
  struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String
    var description: String { message }
  }

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
    var seen: Set<String> = []
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      var name = argument
      var inlineValue: String?
      if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        inlineValue = String(argument[argument.index(after: equals)...])
      }
      switch name {
      case "-h", "--help":
        guard inlineValue == nil else { throw error("option '\(name)' takes no value") }
        options.showsHelp = true
        continue
      case "--items", "--delay-ms", "--fail-at", "--jobs", "--log", "--curve":
        break
      default:
        if argument.hasPrefix("-") {
          throw error("unknown option '\(printable(name))'")
        }
        throw error("unexpected argument '\(printable(argument))'")
      }
      guard seen.insert(name).inserted else {
        throw error("option '\(name)' is given more than once")
      }
      guard let value = inlineValue ?? remaining.popFirst() else {
        throw error("option '\(name)' needs a value")
      }
      switch name {
      case "--items":
        options.items = try number(value, for: name, in: itemsRange, what: "a whole number")
      case "--delay-ms":
        options.delayMilliseconds = try number(
          value, for: name, in: delayRange, what: "a number of milliseconds")
      case "--fail-at":
        options.failAt = try number(
          value, for: name, in: 1...itemsRange.upperBound, what: "an item number")
      case "--jobs":
        options.jobs = try number(value, for: name, in: jobsRange, what: "a number of items")
      case "--log":
        guard !value.isEmpty else { throw error("option '--log' needs a file path, got ''") }
        options.logPath = value
      default:
        guard let curve = Curve(rawValue: value) else {
          let names = Curve.allCases.map(\.rawValue).joined(separator: ", ")
          throw error("option '--curve' expects one of \(names); got '\(printable(value))'")
        }
        options.curve = curve
      }
    }
    if let failAt = options.failAt, failAt > options.items, !options.showsHelp {
      throw error(
        "option '--fail-at' is \(failAt), past the last item (--items is \(options.items))")
    }
    return options
  }

  private static func number(
    _ text: String, for name: String, in range: ClosedRange<Int>, what: String
  ) throws(UsageError) -> Int {
    guard let value = Int(text), range.contains(value) else {
      throw error(
        "option '\(name)' expects \(what) from \(range.lowerBound) to \(range.upperBound); "
          + "got '\(printable(text))'")
    }
    return value
  }

  private static func error(_ message: String) -> UsageError {
    UsageError(message: message)
  }

  /// `text` with control characters escaped and cut to 40 characters, so that an error message
  /// stays on one line whatever was typed.
  static func printable(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      if result.unicodeScalars.count >= 40 {
        return result + "…"
      }
      if scalar.properties.generalCategory == .control || scalar == "\u{2028}"
        || scalar == "\u{2029}"
      {
        result += scalar.escaped(asASCII: true)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}
