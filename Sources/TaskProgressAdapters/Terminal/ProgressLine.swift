import TaskProgress

/// One line of a terminal progress bar, composed to fit a width: a pure value, so its layout is
/// tested without a terminal.
///
/// ```
/// Heavy task ▕█████▏    ▏  52%  26/50  24.8 it/s  ETA 0:01  Hashing IMG_0042.jpg
/// Heavy task ▕█████▏    ▏  52%  26/50  paused  Hashing IMG_0042.jpg
/// ```
///
/// The bar draws the animated value; the percentage beside it is the reported one, so that it
/// always agrees with the counts. The bar takes the room the other parts leave, and keeps it for
/// the whole run: room is reserved for the counts, the rate and the ETA before they are known, and
/// for the final status. A paused line shows `paused` in the room of the rate and the ETA.
///
/// The message comes last. Once a run has shown one, half of the room the other parts leave is
/// kept for it, at least ``minimumMessageRoom`` columns while the bar keeps its
/// ``minimumBarCells``, so that the bar keeps one width while the message changes; a message
/// longer than its room is cut with `…`. The line never wraps: when it is too narrow, the message
/// shrinks first, down to ``shortestMessage`` columns and then away, then the other parts go in
/// this order: rate, ETA, counts, label, `paused`; then the bar shrinks, down to 3 cells, and
/// below that the row is cut. Widths are counted in terminal columns, so a label or a message in
/// Japanese takes the room it really takes.
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
  /// Whether the run is paused: `paused` is shown in place of the rate and the ETA.
  var isPaused = false
  /// The status text of the work, shown last; control characters in it are shown as spaces.
  var message: String?
  /// Whether the message takes all the room it needs while the bar keeps its minimum, rather
  /// than half of the room the bar could take, and the rate and the time left give way to it
  /// where it does not fit whole beside them: a summary's counts per phase.
  var prefersWholeMessage = false
  /// With ``prefersWholeMessage``, the columns the message keeps even while it is shorter: the
  /// widest it was, so that the bar does not widen and narrow as the text changes.
  var keptMessageColumns = 0
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
    /// Whether room is kept for a message, as it is once a run has shown one.
    var message = false

    /// Room for `done in 59.9s` and the like at the end of a run, and for `ETA 9:59:59`.
    static let status = 13

    /// Room for the widest counts, rate and ETA (`ETA 9:59:59`) a run with this progress can
    /// show, in this unit: `1000/1000`, `99.9k it/s`, or `999.9 MB / 3.4 GB`, `99.9 MB/s`.
    ///
    /// A run that reports only a fraction has no rate; an indeterminate one has no total and no
    /// time left, and a rate only when it counts.
    static func forRun(_ progress: RunProgress, unit: ProgressUnit) -> Reservation {
      let rateUnit = unit.rateUnit(of: progress)
      let counts = ProgressMeasure.counts(of: progress)
      switch (progress.fractionCompleted, counts) {
      case (.some, .some(let counts)) where counts.total != nil:
        let columns = countsColumns(
          total: counts.total ?? 0, unit: counts.measure.unit(given: unit))
        return Reservation(
          counts: columns + (counts.measure == .files ? 6 : 0), rate: rateColumns(rateUnit),
          eta: 11)
      case (_, .some):
        return Reservation(rate: rateColumns(rateUnit), eta: status)
      default:
        return Reservation(eta: status)
      }
    }

    /// The widest `completed/total` for this total: an item count is never longer than its
    /// total, but an amount of bytes may be (`15.3 kB` of `1.5 MB`), up to `1009 MiB`.
    private static func countsColumns(total: Int, unit: ProgressUnit) -> Int {
      let pair = TerminalFormat.columns(unit.format(completed: total, of: total))
      return unit.isBytes ? pair + max(8 - TerminalFormat.columns(unit.format(total)), 0) : pair
    }

    /// The widest usual rate in this unit: `99.9k it/s`, `99.9 kB/s`, `1023 KiB/s`.
    ///
    /// Formatted once per unit, not for every run that joins a group: a queue's runs share a
    /// unit, and two rates formatted per run were most of what a renderer did when a run began.
    private static func rateColumns(_ unit: ProgressUnit) -> Int {
      if let columns = rateColumnsByUnit.withLock({ $0[unit] }) {
        return columns
      }
      let columns =
        [99_900, 1_047_552].map { TerminalFormat.columns(unit.format(throughput: $0)) }.max() ?? 0
      rateColumnsByUnit.withLock { cache in
        // A few units in a program; a bound all the same, for one that makes units by the many.
        if cache.count >= 64 {
          cache.removeAll()
        }
        cache[unit] = columns
      }
      return columns
    }

    /// What ``rateColumns(_:)`` found for each unit so far.
    private static let rateColumnsByUnit = Locked<[ProgressUnit: Int]>([:])
  }

  static let minimumBarCells = 10
  /// The least room kept for a message while the bar keeps its minimum: at 80 columns the
  /// message gets about as much room as the bar.
  static let minimumMessageRoom = 20
  /// The fewest columns a cut message is shown in; with less room it is left out.
  static let shortestMessage = 4

  /// Where a status too long for a row of its own goes.
  enum LongStatus {
    /// On its row, whole, for the terminal to wrap: a reason is read in full.
    case whole
    /// On its row, cut to the row with `…`, so that the row is redrawn like any other.
    case cut
  }

  /// The line as a terminal `columns` wide shows it: a row at most `columns - 1` wide, and the
  /// row of its status when that does not fit after the bar.
  ///
  /// The last column is left free, so that terminals that wrap on it do not scroll, and a row
  /// redrawn in place never wraps. A status that does not fit after the bar goes on a row of its
  /// own rather than squeezing the bar, whole or cut as `longStatus` says when it is longer than
  /// a row. A line that ``prefersWholeMessage`` shows its message whole rather than the rate and
  /// the time left, when it cannot show all three. At widths too small for the shortest bar, the
  /// row is cut, with no ellipsis.
  ///
  /// - Parameters:
  ///   - columns: The terminal's width.
  ///   - capabilities: Whether the bar is drawn in Unicode blocks and the status coloured.
  ///   - longStatus: Where a status longer than a row goes.
  /// - Returns: The line's row, and the row of its status when that does not fit after the bar.
  func fitted(
    columns: Int, capabilities: TerminalCapabilities, longStatus: LongStatus
  ) -> (line: String, overflow: String?) {
    let room = max(columns - 1, 0)
    let unicode = capabilities.supportsUnicode
    var line = self
    if longStatus == .cut, let status, TerminalFormat.columns(status.text) > room {
      line.status = status.cut(toColumns: room, ellipsis: unicode ? "…" : "...")
    }
    var layout = line.laidOut(width: columns, unicode: unicode)
    if line.prefersWholeMessage, !layout.showsWholeMessage, line.rate != nil || line.eta != nil {
      line.rate = nil
      line.eta = nil
      line.reserved.rate = 0
      line.reserved.eta = 0
      layout = line.laidOut(width: columns, unicode: unicode)
    }
    // Colour adds escape sequences but no columns: the layout is measured without it.
    let color = capabilities.supportsColor && line.status != nil
    let statusRowFits = longStatus == .whole || layout.statusColumns <= room
    // Most lines: the layout added their columns up, and they fit.
    if let added = layout.columns, added <= room, statusRowFits {
      return layout.joined(color: color)
    }
    let plain = layout.joined(color: false)
    let colored = color ? layout.joined(color: true) : plain
    let first =
      (layout.columns ?? TerminalFormat.columns(plain.line)) <= room
      ? colored.line : ProgressLine.clipped(plain.line, columns: columns)
    let overflow = plain.overflow.map { overflow in
      statusRowFits
        ? colored.overflow ?? overflow : ProgressLine.clipped(overflow, columns: columns)
    }
    return (first, overflow)
  }

  /// `text` cut to a row of a terminal `columns` wide, `columns - 1` columns, with no ellipsis.
  static func clipped(_ text: String, columns: Int) -> String {
    TerminalFormat.truncated(text, toColumns: max(columns - 1, 0), ellipsis: "")
  }

  /// A line laid out for a width: everything but the status, and where the status goes.
  ///
  /// The same layout gives the plain line and the coloured one, which differ only in the status.
  struct Layout {
    /// The line up to the status, or the whole line when it has none, with room kept for the
    /// status so that joining it writes in place.
    fileprivate var line: String
    /// The status, and whether it fits after the line or goes on a row of its own.
    fileprivate var status: (value: Status, fits: Bool)?
    /// The columns of the plain line, its status included when it fits, or `nil` when they
    /// were not added up (measure the line then).
    let columns: Int?
    /// The columns of the status, or 0 for none: what its own row takes when it does not fit.
    let statusColumns: Int
    /// Whether the line shows its message whole, or has none to show.
    let showsWholeMessage: Bool

    /// The line and its overflow row, with the status coloured when `color`.
    ///
    /// Consuming: the layout's line, when no one else holds it, takes the status in place, in
    /// the room kept for it.
    consuming func joined(color: Bool) -> (line: String, overflow: String?) {
      guard let status else { return (line, nil) }
      let (open, close) = ProgressLine.escapes(status.value, color: color)
      let text = status.value.text
      guard status.fits else {
        return (line, open.isEmpty ? text : open + text + close)
      }
      line += "  "
      line += open
      line += text
      line += close
      return (line, nil)
    }
  }

  /// Lays the line out for `width`, as ``fitted(columns:capabilities:longStatus:)`` shows it
  /// before any cut: at most `width - 1` columns wide unless even a bar of 3 cells does not fit,
  /// with the status after the bar only where it fits.
  func laidOut(width: Int, unicode: Bool) -> Layout {
    let room = max(width - 1, 1)
    var label = self.label
    var counts = self.counts
    var reserved = self.reserved
    var rate = isPaused ? nil : self.rate
    var eta = isPaused ? nil : self.eta
    var paused = isPaused ? "paused" : nil
    let columns: (String) -> Int = TerminalFormat.columns
    let percent = percentText
    let message = self.message.map(TerminalFormat.singleLine)

    // Each part is measured once; a part that is dropped is `nil` from then on.
    let labelColumns = columns(label)
    let countsColumns = counts.map(columns) ?? 0
    let rateColumns = rate.map(columns) ?? 0
    let etaColumns = eta.map(columns) ?? 0

    func part(_ text: String?, _ columns: Int, _ reservation: Int) -> Int {
      let length = max(text == nil ? 0 : columns, reservation)
      return length == 0 ? 0 : length + 2
    }
    func used() -> Int {
      // `paused` takes the room of the rate and the ETA, or its own when theirs is gone.
      let after = max(
        part(rate, rateColumns, reserved.rate) + part(eta, etaColumns, reserved.eta),
        part(paused, 6, 0))
      return (label.isEmpty ? 0 : labelColumns + 1) + 2 + (percent == nil ? 0 : 5)
        + part(counts, countsColumns, reserved.counts) + after
    }
    // Drop the least useful parts until the bar gets its minimum; the message goes before any.
    var keepsMessage = true
    for drop in 0..<5 where room - used() < ProgressLine.minimumBarCells {
      keepsMessage = false
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
      case 3:
        label = ""
      default:
        paused = nil
      }
    }
    let spare = room - used()
    // The message's room: half of what the bar could take, at least `minimumMessageRoom`
    // columns, as long as the bar keeps its minimum.
    var messageRoom = 0
    if keepsMessage && (reserved.message || message != nil) {
      var wanted = max(spare / 2, ProgressLine.minimumMessageRoom)
      if prefersWholeMessage, let message {
        wanted = max(wanted, columns(message), keptMessageColumns)
      }
      messageRoom = min(wanted, spare - 2 - ProgressLine.minimumBarCells)
      if messageRoom < ProgressLine.shortestMessage {
        messageRoom = 0
      }
    }
    let cells = max(spare - (messageRoom == 0 ? 0 : messageRoom + 2), 3)

    // The line's columns, added up part by part rather than measured: the bar alone is tens of
    // glyphs to walk. A sum is exact when no part begins with a mark that would join the space
    // before it; otherwise the line is measured.
    var lineColumns: Int? = (label.isEmpty ? 0 : labelColumns + 1) + cells + 2
    if percent != nil {
      lineColumns? += 5
    }
    // The parts after the bar that are kept, in the order they read, with their columns: no
    // array, which a line would allocate.
    func forEachPart(_ body: (String, Int) -> Void) {
      if let counts { body(counts, countsColumns) }
      if let rate { body(rate, rateColumns) }
      if let eta { body(eta, etaColumns) }
      if let paused { body(paused, 6) }
    }
    forEachPart { part, partColumns in
      lineColumns =
        TerminalFormat.startsCleanly(part) ? lineColumns.map { $0 + 2 + partColumns } : nil
    }
    // The line up to the message or the status, in the order it reads.
    func writeParts(to sink: inout LineSink) {
      if !label.isEmpty {
        sink.append(label)
        sink.append(" ")
      }
      ProgressLine.writeBar(
        cells: cells, fraction: barFraction, position: indeterminatePosition, unicode: unicode,
        to: &sink)
      if let percent {
        sink.append(" ", times: 4 - percent.count)
        sink.append(percent)
        sink.append("%")
      }
      forEachPart { part, _ in
        sink.append("  ")
        sink.append(part)
      }
    }
    let measured = lineColumns ?? columns(ProgressLine.text(extra: 0, writeParts))
    // What follows the parts: the message, whole or cut, or the status, if it fits.
    var tail: String?
    var showsWholeMessage = (message ?? "").isEmpty
    var total: Int? = measured
    var statusColumns = 0
    var statusFits = false
    if let status {
      // The status takes the place of the rate and the ETA, or any room left after the counts.
      statusColumns = columns(status.text)
      statusFits = statusColumns <= room - measured - 2
      if statusFits {
        total = TerminalFormat.startsCleanly(status.text) ? measured + 2 + statusColumns : nil
      }
    } else if keepsMessage, let message, !message.isEmpty {
      // The message takes what is left: its room, and whatever the other parts leave of theirs.
      let left = room - measured - 2
      let messageColumns = columns(message)
      if messageColumns <= left {
        tail = message
        showsWholeMessage = true
        total = TerminalFormat.startsCleanly(message) ? measured + 2 + messageColumns : nil
      } else if left >= ProgressLine.shortestMessage {
        let ellipsis = unicode ? "…" : "..."
        let cut = TerminalFormat.truncated(message, toColumns: left, ellipsis: ellipsis)
        tail = cut
        total = TerminalFormat.startsCleanly(cut) ? measured + 2 + columns(cut) : nil
      }
    }
    // One string, written once, with room for a status that fits and its colour: joining it
    // writes in place.
    var statusRoom = 0
    if statusFits, let status {
      let (open, close) = ProgressLine.escapes(status, color: true)
      statusRoom = 2 + open.utf8.count + status.text.utf8.count + close.utf8.count
    }
    let line = ProgressLine.text(extra: statusRoom) { sink in
      writeParts(to: &sink)
      if let tail {
        sink.append("  ")
        sink.append(tail)
      }
    }
    return Layout(
      line: line, status: status.map { ($0, statusFits) }, columns: total,
      statusColumns: statusColumns, showsWholeMessage: showsWholeMessage)
  }

  /// Writes a bar of `cells` cells between its ends: filled to `fraction`, or, without one, a
  /// block at `position` (0 to 1) of an indeterminate bar.
  private static func writeBar(
    cells: Int, fraction: Double?, position: Double, unicode: Bool, to sink: inout LineSink
  ) {
    let (open, close, full, empty) = unicode ? ("▕", "▏", "█", " ") : ("[", "]", "#", " ")
    sink.append(open)
    defer { sink.append(close) }
    guard let fraction else {
      let block = max(1, cells / 4)
      let position = position.isNaN ? 0 : min(max(position, 0), 1)
      let start = Int((position * Double(cells - block)).rounded())
      sink.append(empty, times: start)
      sink.append(unicode ? full : "=", times: block)
      sink.append(empty, times: cells - block - start)
      return
    }
    let clamped = fraction.isNaN ? 0 : min(max(fraction, 0), 1)
    let eighths = Int((clamped * Double(cells * 8)).rounded(.down))
    let whole = eighths / 8
    sink.append(full, times: min(whole, cells))
    guard whole < cells else { return }
    let partial = eighths % 8
    let edge =
      unicode
      ? (partial == 0 ? empty : ["▏", "▎", "▍", "▌", "▋", "▊", "▉"][partial - 1])
      : (partial >= 4 ? ">" : empty)
    sink.append(edge)
    sink.append(empty, times: cells - whole - 1)
  }

  /// The escapes that colour a status: green for a success, red for a failure, none for a note
  /// or without `color`.
  fileprivate static func escapes(_ status: Status, color: Bool) -> (open: String, close: String) {
    guard color else { return ("", "") }
    switch status {
    case .success: return ("\u{1B}[32m", "\u{1B}[0m")
    case .failure: return ("\u{1B}[31m", "\u{1B}[0m")
    case .note: return ("", "")
    }
  }

  /// The text `write` writes, in one string made once, with room for `extra` more bytes.
  ///
  /// `write` runs twice: once to count the bytes, once to write them.
  private static func text(extra: Int, _ write: (inout LineSink) -> Void) -> String {
    var counter = LineSink(buffer: nil)
    write(&counter)
    return String(unsafeUninitializedCapacity: counter.count + extra) { buffer in
      var writer = LineSink(buffer: buffer)
      write(&writer)
      return writer.count
    }
  }
}

/// Where a line's parts go: first a count of their bytes, then the bytes themselves, into a
/// buffer of that size.
private struct LineSink {
  /// The buffer written to, or `nil` while counting.
  let buffer: UnsafeMutableBufferPointer<UInt8>?
  /// The bytes counted or written so far.
  private(set) var count = 0

  /// Appends `text`, `times` times.
  mutating func append(_ text: String, times: Int = 1) {
    guard times > 0 else { return }
    guard let buffer else {
      count += text.utf8.count * times
      return
    }
    var text = text
    text.withUTF8 { bytes in
      // The count sized the buffer for these very parts; the bound only keeps a mistake in it,
      // which a debug build stops at.
      assert(bytes.count * times <= buffer.count - count, "a line wrote more than it counted")
      let total = min(bytes.count * times, buffer.count - count)
      guard total > 0, let source = bytes.baseAddress, let start = buffer.baseAddress else {
        return
      }
      // The text once, then what is written so far again, doubling: a bar's glyphs are
      // copied in a few blocks, not a byte at a time.
      let base = start + count
      var filled = min(bytes.count, total)
      base.initialize(from: source, count: filled)
      while filled < total {
        let block = min(filled, total - filled)
        (base + filled).initialize(from: base, count: block)
        filled += block
      }
      count += total
    }
  }
}

extension ProgressLine.Status {
  /// The status with its text cut to `width` columns.
  fileprivate func cut(toColumns width: Int, ellipsis: String) -> ProgressLine.Status {
    let text = TerminalFormat.truncated(self.text, toColumns: width, ellipsis: ellipsis)
    switch self {
    case .success: return .success(text)
    case .failure: return .failure(text)
    case .note: return .note(text)
    }
  }
}
