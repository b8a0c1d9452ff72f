#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(WASILibc)
import WASILibc
#elseif os(Windows)
import ucrt
#else
#error("Unsupported platform")
#endif

/// A log file that could not be opened, written or flushed, with the path and the system's reason.
///
/// ```
/// cannot open log file '/missing/run.log': No such file or directory
/// cannot open log file '/tmp/progress.fifo': no process is reading the FIFO
/// cannot write to log file '/dev/full': No space left on device
/// ```
public struct LogFileError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What was being done to the file.
  public enum Operation: Hashable, Sendable {
    /// Opening (or creating) it for appending.
    case open
    /// Appending a line to it.
    case write
    /// Flushing it to storage.
    case flush
  }

  /// The path of the log file.
  public let path: String
  /// What failed.
  public let operation: Operation
  /// The `errno` value the system reported.
  public let code: Int32
  /// Why it failed: the system's description of `code`, such as `No such file or directory`, or
  /// a plainer one where the system's is misleading, such as ``fifoWithoutReader``.
  public let reason: String

  /// The reason given when the log file is a FIFO that no process has open for reading.
  ///
  /// Opening such a FIFO would wait for a reader forever; the renderer fails at once instead, and
  /// the system's description of the code it gets, `ENXIO` ("No such device or address"), would
  /// not say why.
  public static let fifoWithoutReader = "no process is reading the FIFO"

  /// Creates an error for `code`, taking its reason from the system.
  public init(path: String, operation: Operation, code: Int32) {
    self.init(
      path: path, operation: operation, code: code,
      reason: strerror(code).map { String(cString: $0) } ?? "error \(code)")
  }

  /// Creates an error for `code` with a reason of its own.
  init(path: String, operation: Operation, code: Int32, reason: String) {
    self.path = path
    self.operation = operation
    self.code = code
    self.reason = reason
  }

  /// One line naming the operation, the path and the reason.
  ///
  /// A control character or a line separator in the path is escaped (`\n`, `\u{2028}`), so
  /// the description stays one line whatever the path is.
  public var description: String {
    let verb =
      switch operation {
      case .open: "open"
      case .write: "write to"
      case .flush: "flush"
      }
    return "cannot \(verb) log file '\(TerminalFormat.escapingBreaks(path))': \(reason)"
  }
}
