#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A log file that could not be opened, written or flushed, with the path and the system's reason.
///
/// ```
/// cannot open log file '/missing/run.log': No such file or directory
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
  /// The system's description of `code`, such as `No such file or directory`.
  public let reason: String

  /// Creates an error for `code`, taking its reason from the system.
  public init(path: String, operation: Operation, code: Int32) {
    self.path = path
    self.operation = operation
    self.code = code
    self.reason = strerror(code).map { String(cString: $0) } ?? "error \(code)"
  }

  /// One line naming the operation, the path and the reason.
  public var description: String {
    let verb =
      switch operation {
      case .open: "open"
      case .write: "write to"
      case .flush: "flush"
      }
    return "cannot \(verb) log file '\(path)': \(reason)"
  }
}
