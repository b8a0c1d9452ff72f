/// One line of a terminal progress bar, composed to fit a width: a pure value, so its layout is
/// tested without a terminal.
///
/// ```
/// Heavy task ▕█████████████▍            ▏  52%  26/50  24.8 it/s  ETA 0:01
/// ```
///
/// The bar draws the animated value; the percentage beside it is the reported one, so that it
/// always agrees with the counts. The bar takes the room the other parts leave, and keeps it for
/// the whole run: room is reserved for the counts, the rate and the ETA before they are known, and
/// for the final status. When the line is too narrow, the parts go in this order: rate, ETA,
/// counts, label; then the bar shrinks, down to 3 cells. Widths are counted in terminal columns,
/// so a label in Japanese takes the room it really takes.
struct ProgressLine: Equatable {
  /// How a finished line ends.
  enum Status: Equatable {
    /// The run finished: green when colour is allowed.
    case success(String)
    /// The run failed: red when colour is allowed.
    case failure(String)
    /// Neutral text, such as `cancelled`.
    case note(String)

    var text: String {
      switch self {
      case .success(let text), .failure(let text), .note(let text): text
      }
    }
  }

  var label = ""
  /// The fraction the bar shows, or `nil` for an indeterminate bar.
  var barFraction: Double?
  /// The fraction the percentage shows, or `nil` for none.
  var percentFraction: Double?
  /// The counts the percentage is computed from when the work counts, exactly, so that it agrees
  /// with them where the fraction's rounding would not (`29/100` shows 29%, never 28%); they
  /// take precedence over ``percentFraction``.
  var percentCounts: Counts?
  /// Where the moving block of an indeterminate bar is, in `0...1`.
  var indeterminatePosition = 0.0
  var counts: String?
  var rate: String?
  var eta: String?
  var status: Status?
  /// Room kept for the parts after the bar even while they are not shown, so that the bar keeps
  /// its width for the whole run.
  var reserved = Reservation()

  /// Units of work done, of a total.
  struct Counts: Equatable {
    var completed: Int
    var total: Int
  }

  /// The percentage beside the bar, without its `%`, or `nil` for none.
  var percentText: String? {
    if let percentCounts {
      return TerminalFormat.percent(completed: percentCounts.completed, of: percentCounts.total)
    }
    return percentFraction.map(TerminalFormat.percent)
  }

  /// The room kept after the bar.
  struct Reservation: Equatable {
    var counts = 0
    var rate = 0
    var eta = 0

    /// Room for `done in 59.9s` and the like at the end of a run, and for `ETA 9:59:59`.
    static let status = 13

    /// Room for `total/total`, `999.9k it/s` and `ETA 9:59:59`, as far as the run can show them.
    static func forRun(total: Int?, determinate: Bool) -> Reservation {
      guard let total, determinate else { return Reservation(eta: status) }
      return Reservation(counts: 2 * String(total).count + 1, rate: 11, eta: 11)
    }
  }

  static let minimumBarCells = 10

  /// The line, at most `width - 1` columns wide (the last column is left free, so that terminals
  /// that wrap on it do not scroll), and the status when it does not fit after the bar: then it
  /// goes on a line of its own, whole, rather than squeezing the bar.
  func rendered(width: Int, unicode: Bool, color: Bool) -> (line: String, overflow: String?) {
    let room = max(width - 1, 1)
    var label = self.label
    var counts = self.counts
    var reserved = self.reserved
    var rate = self.rate
    var eta = self.eta
    let columns = TerminalFormat.columns
    let percent = percentText

    func part(_ text: String?, _ reservation: Int) -> Int {
      let length = max(text.map(columns) ?? 0, reservation)
      return length == 0 ? 0 : length + 2
    }
    func used() -> Int {
      (label.isEmpty ? 0 : columns(label) + 1) + 2 + (percent == nil ? 0 : 5)
        + part(counts, reserved.counts) + part(rate, reserved.rate) + part(eta, reserved.eta)
    }
    // Drop the least useful parts until the bar gets its minimum.
    for drop in 0..<4 where room - used() < ProgressLine.minimumBarCells {
      switch drop {
      case 0:
        rate = nil
        reserved.rate = 0
      case 1:
        eta = nil
        reserved.eta = 0
      case 2:
        counts = nil
        reserved.counts = 0
      default:
        label = ""
      }
    }
    let cells = max(room - used(), 3)

    var line = label.isEmpty ? "" : label + " "
    line += bar(cells: cells, unicode: unicode)
    if let percent {
      line += " " + String(repeating: " ", count: 3 - percent.count) + percent + "%"
    }
    for part in [counts, rate, eta].compactMap({ $0 }) {
      line += "  " + part
    }
    guard let status else { return (line, nil) }
    // The status takes the place of the rate and the ETA, or any room left after the counts.
    if columns(status.text) <= room - columns(line) - 2 {
      return (line + "  " + colored(status.text, color: color), nil)
    }
    return (line, colored(status.text, color: color))
  }

  private func bar(cells: Int, unicode: Bool) -> String {
    let (open, close, full, empty) = unicode ? ("▕", "▏", "█", " ") : ("[", "]", "#", " ")
    guard let barFraction else {
      let block = max(1, cells / 4)
      let start = Int((indeterminatePosition * Double(cells - block)).rounded())
      let mark = unicode ? full : "="
      return open + String(repeating: empty, count: start) + String(repeating: mark, count: block)
        + String(repeating: empty, count: cells - block - start) + close
    }
    let eighths = Int((min(max(barFraction, 0), 1) * Double(cells * 8)).rounded(.down))
    let whole = eighths / 8
    var text = open + String(repeating: full, count: whole)
    if whole < cells {
      let partial = eighths % 8
      if unicode {
        text += partial == 0 ? empty : ["▏", "▎", "▍", "▌", "▋", "▊", "▉"][partial - 1]
      } else {
        text += partial >= 4 ? ">" : empty
      }
      text += String(repeating: empty, count: cells - whole - 1)
    }
    return text + close
  }

  private func colored(_ text: String, color: Bool) -> String {
    guard color, let status else { return text }
    switch status {
    case .success: return "\u{1B}[32m" + text + "\u{1B}[0m"
    case .failure: return "\u{1B}[31m" + text + "\u{1B}[0m"
    case .note: return text
    }
  }
}
