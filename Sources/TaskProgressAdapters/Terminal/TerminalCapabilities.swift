/// What a terminal destination can show: how much it redraws in place, Unicode, colour.
///
/// ``detect(isTerminal:environment:)`` derives them the way well-behaved command-line tools do:
/// redraw in place only on a terminal; no escape sequences when `TERM=dumb`; the eighth-block bar
/// only when the locale (`LC_ALL`, `LC_CTYPE`, `LANG`, the first one set) is UTF-8; colour only on
/// a terminal, without `NO_COLOR` (https://no-color.org) and not on a dumb one.
public struct TerminalCapabilities: Hashable, Sendable {
  /// How much of what was written a destination can redraw in place.
  public enum Redrawing: Hashable, Sendable {
    /// Nothing: a pipe, a file or a log collector, where each line follows the last.
    case never
    /// The row the cursor is on, which a carriage return goes back to: a terminal without
    /// escape sequences (`TERM=dumb`). A single bar redraws in place; an area of rows does not.
    case currentRow
    /// Any rows: a terminal that understands escape sequences, which move the cursor up and
    /// erase lines, hide the cursor and colour text.
    case anyRows
  }

  /// How much the destination can redraw in place: the one answer every renderer asks.
  public var redrawing: Redrawing
  /// Whether Unicode block characters can be drawn.
  public var supportsUnicode: Bool
  /// Whether finished and failed lines may be coloured; only where escape sequences are
  /// understood, with ``Redrawing/anyRows``.
  public var supportsColor: Bool

  /// Creates a set of capabilities.
  ///
  /// - Parameters:
  ///   - redrawing: How much the destination can redraw in place.
  ///   - supportsUnicode: Whether Unicode block characters can be drawn.
  ///   - supportsColor: Whether lines may be coloured; ignored unless `redrawing` is
  ///     ``Redrawing/anyRows``.
  public init(redrawing: Redrawing, supportsUnicode: Bool, supportsColor: Bool) {
    self.redrawing = redrawing
    self.supportsUnicode = supportsUnicode
    self.supportsColor = supportsColor && redrawing == .anyRows
  }

  /// A pipe, a file or a log collector: plain lines, no carriage returns, no escape sequences.
  public static let plain = TerminalCapabilities(
    redrawing: .never, supportsUnicode: false, supportsColor: false)

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
      redrawing: !isTerminal ? .never : isDumb ? .currentRow : .anyRows,
      supportsUnicode: normalizedLocale.hasSuffix("utf8") || normalizedLocale.contains("utf8@"),
      supportsColor: !isDumb && !noColor)
  }
}
