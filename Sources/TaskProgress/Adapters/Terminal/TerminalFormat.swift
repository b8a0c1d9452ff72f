/// The numbers a progress line shows, formatted without Foundation.
enum TerminalFormat {
  /// A whole percentage, rounded down, that reaches 100 only when the work is complete.
  static func percent(_ fraction: Double) -> String {
    String(fraction >= 1 ? 100 : min(max(Int(fraction * 100), 0), 99))
  }

  /// A duration as `4.2s` under a minute, else `m:ss`, else `h:mm:ss`.
  static func elapsed(_ duration: Duration) -> String {
    let seconds = max(duration / .seconds(1), 0)
    guard seconds >= 59.95 else {
      let tenths = Int((seconds * 10).rounded())
      return "\(tenths / 10).\(tenths % 10)s"
    }
    return clock(Int(seconds.rounded()))
  }

  /// A remaining time as `m:ss` or `h:mm:ss`, rounded up, so that it reaches `0:00` only at the end.
  static func remaining(_ duration: Duration) -> String {
    clock(Int((max(duration / .seconds(1), 0)).rounded(.up)))
  }

  private static func clock(_ totalSeconds: Int) -> String {
    let hours = totalSeconds / 3600
    let minutes = totalSeconds / 60 % 60
    let seconds = totalSeconds % 60
    let mm = hours > 0 && minutes < 10 ? "0\(minutes)" : "\(minutes)"
    let ss = seconds < 10 ? "0\(seconds)" : "\(seconds)"
    return hours > 0 ? "\(hours):\(mm):\(ss)" : "\(mm):\(ss)"
  }

  /// A rate of items per second: `12.3 it/s`, `4.5k it/s`, `1.2M it/s`, or `2.5 s/it` below one.
  static func rate(_ perSecond: Double) -> String {
    guard perSecond.isFinite, perSecond > 0 else { return "" }
    if perSecond < 1 {
      return decimal(1 / perSecond) + " s/it"
    }
    for (suffix, scale) in [("G", 1e9), ("M", 1e6), ("k", 1e3)] where perSecond >= scale {
      return decimal(perSecond / scale) + suffix + " it/s"
    }
    return decimal(perSecond) + " it/s"
  }

  /// One decimal below 100, none above: `4.5`, `12.3`, `250`.
  private static func decimal(_ value: Double) -> String {
    guard value < 99.95 else { return String(Int(value.rounded())) }
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }
}
