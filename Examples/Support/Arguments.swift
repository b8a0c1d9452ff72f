/// A command line that cannot be run: one line naming what was wrong.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What was wrong, on one line.
  public let message: String

  /// An error that says `message`.
  public init(_ message: String) {
    self.message = message
  }

  /// The message.
  public var description: String { message }
}

/// One thing an ``ArgumentScanner`` read from a command line.
public enum ScannedArgument: Equatable, Sendable {
  /// `-h` or `--help`.
  case help
  /// An option with its value, given as `--name value` or `--name=value`.
  case option(String, value: String)
}

/// Reads the command line of an example, without Foundation so that the parsers can be fuzzed
/// alone: options of the form `--name value` or `--name=value`, each at most once, and `-h` or
/// `--help`.
///
/// ```swift
/// var scanner = ArgumentScanner(arguments, options: ["--count", "--seed"])
/// while let argument = try scanner.next() {
///   switch argument {
///   case .help: options.showsHelp = true
///   case .option(let name, let value): ...
///   }
/// }
/// ```
///
/// Each error is one line that names the option or the argument, with anything typed made
/// printable by ``ArgumentValue/printable(_:)``.
public struct ArgumentScanner<Arguments: Collection<String>> {
  private var remaining: Arguments.SubSequence
  private let names: Set<String>
  private var seen: Set<String> = []

  /// A scanner of `arguments`, the ones after the program's name, that knows the options
  /// `names`, each of which takes a value.
  public init(_ arguments: Arguments, options names: Set<String>) {
    self.remaining = arguments[...]
    self.names = names
  }

  /// The next argument, or `nil` at the end.
  ///
  /// - Throws: ``UsageError`` for an unknown option, an argument that is no option, an option
  ///   given twice or without its value, and a value given to `--help`.
  public mutating func next() throws(UsageError) -> ScannedArgument? {
    guard let argument = remaining.popFirst() else { return nil }
    var name = argument
    var inlineValue: String?
    if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
      name = String(argument[..<equals])
      inlineValue = String(argument[argument.index(after: equals)...])
    }
    if name == "-h" || name == "--help" {
      guard inlineValue == nil else { throw UsageError("option '\(name)' takes no value") }
      return .help
    }
    guard names.contains(name) else {
      if argument.hasPrefix("-") {
        throw UsageError("unknown option '\(ArgumentValue.printable(name))'")
      }
      throw UsageError("unexpected argument '\(ArgumentValue.printable(argument))'")
    }
    guard seen.insert(name).inserted else {
      throw UsageError("option '\(name)' is given more than once")
    }
    guard let value = inlineValue ?? remaining.popFirst() else {
      throw UsageError("option '\(name)' needs a value")
    }
    return .option(name, value: value)
  }
}

/// The values of options: numbers within a range, and text made printable for a message.
public enum ArgumentValue {
  /// The whole number `text` stands for, if it is within `range`.
  ///
  /// - Parameters:
  ///   - text: The value typed.
  ///   - name: The option, for the message.
  ///   - range: The values allowed.
  ///   - what: What the number counts, for the message: `a number of items`.
  /// - Returns: The number.
  /// - Throws: ``UsageError``, such as `option '--jobs' expects a number of items from 1 to
  ///   1000; got 'four'`.
  public static func integer<Value: FixedWidthInteger>(
    _ text: String, for name: String, in range: ClosedRange<Value>, what: String
  ) throws(UsageError) -> Value {
    guard let value = Value(text), range.contains(value) else {
      throw outOfRange(
        text, for: name, what: what, from: "\(range.lowerBound)",
        to: "\(range.upperBound)")
    }
    return value
  }

  /// The decimal number `text` stands for, such as `2.5`, if it is within `range`.
  ///
  /// - Parameters:
  ///   - text: The value typed.
  ///   - name: The option, for the message.
  ///   - range: The values allowed; neither infinity nor NaN is within any.
  ///   - what: What the number measures, for the message.
  /// - Returns: The number.
  /// - Throws: ``UsageError``, such as `option '--speed' expects a factor from 0.1 to 1000;
  ///   got 'fast'`.
  public static func decimal(
    _ text: String, for name: String, in range: ClosedRange<Double>, what: String
  ) throws(UsageError) -> Double {
    // Digits and a point only: `Double` would also take `0x10` (hex), `1e3` and `inf`.
    let isDecimal = text.utf8.allSatisfy {
      $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") || $0 == UInt8(ascii: ".")
    }
    guard isDecimal, let value = Double(text), range.contains(value) else {
      throw outOfRange(
        text, for: name, what: what, from: shortest(range.lowerBound),
        to: shortest(range.upperBound))
    }
    return value
  }

  private static func outOfRange(
    _ text: String, for name: String, what: String, from lower: String, to upper: String
  ) -> UsageError {
    UsageError(
      "option '\(name)' expects \(what) from \(lower) to \(upper); got '\(printable(text))'")
  }

  /// `1000` for 1000.0, `0.1` for 0.1: a bound as a user would type it.
  private static func shortest(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
  }

  /// `text` with control characters escaped and cut to 40 characters, so that an error message
  /// stays on one line whatever was typed.
  public static func printable(_ text: String) -> String {
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
