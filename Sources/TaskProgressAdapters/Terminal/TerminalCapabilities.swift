/// What a terminal destination can show: in-place redraws, escape sequences, Unicode, colour.
///
/// ``detect(isTerminal:environment:)`` derives them the way well-behaved command-line tools do:
/// redraw in place only on a terminal; no escape sequences when `TERM=dumb`; the eighth-block bar
/// only when the locale (`LC_ALL`, `LC_CTYPE`, `LANG`, the first one set) is UTF-8; colour only on
/// a terminal, without `NO_COLOR` (https://no-color.org) and not on a dumb one.
public struct TerminalCapabilities: Hashable, Sendable {
  /// Whether the destination is an interactive terminal, where a bar redraws in place.
  public var isInteractive: Bool
  /// Whether escape sequences (erase line, hide cursor, colour) are understood.
  public var supportsEscapeSequences: Bool
  /// Whether Unicode block characters can be drawn.
  public var supportsUnicode: Bool
  /// Whether finished and failed lines may be coloured.
  public var supportsColor: Bool

  /// Creates a set of capabilities.
  public init(
    isInteractive: Bool, supportsEscapeSequences: Bool, supportsUnicode: Bool, supportsColor: Bool
  ) {
    self.isInteractive = isInteractive
    self.supportsEscapeSequences = supportsEscapeSequences && isInteractive
    self.supportsUnicode = supportsUnicode
    self.supportsColor = supportsColor && supportsEscapeSequences && isInteractive
  }

  /// A pipe, a file or a log collector: plain lines, no carriage returns, no escape sequences.
  public static let plain = TerminalCapabilities(
    isInteractive: false, supportsEscapeSequences: false, supportsUnicode: false,
    supportsColor: false)

  /// Derives the capabilities of a destination from whether it is a terminal and the environment.
  public static func detect(isTerminal: Bool, environment: [String: String]) -> TerminalCapabilities
  {
    let term = environment["TERM"] ?? ""
    let isDumb = term == "dumb"
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first {
      !$0.isEmpty
    }
    let normalizedLocale = (locale ?? "").lowercased().filter { $0 != "-" }
    let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
    return TerminalCapabilities(
      isInteractive: isTerminal,
      supportsEscapeSequences: !isDumb,
      supportsUnicode: normalizedLocale.hasSuffix("utf8") || normalizedLocale.contains("utf8@"),
      supportsColor: !isDumb && !noColor)
  }
}
