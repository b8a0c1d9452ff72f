#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif os(Windows) || os(WASI)
// The terminal's size comes from ioctl(TIOCGWINSZ), which these platforms do not have.
#error("TaskProgressAdapters needs a POSIX terminal (isatty, ioctl): not on this platform")
#else
#error("Unsupported platform: TaskProgressAdapters needs a POSIX C library")
#endif

/// Where a ``TerminalRenderer`` writes, and what the destination can show.
///
/// ``TerminalStream`` writes to a file descriptor: `.standardError`, the renderers' default, or
/// `.standardOutput`. Tests give the renderer their own output, an in-memory terminal of a chosen
/// width, and compare the bytes.
@MainActor
public protocol TerminalOutput: AnyObject {
  /// What the destination can show.
  var capabilities: TerminalCapabilities { get }
  /// The width in columns, read before every draw so that a resized window is followed.
  var columns: Int { get }
  /// The height in rows, read before every draw, or `nil` when it is unknown.
  ///
  /// A ``TerminalGroupRenderer`` keeps its bars within this many lines, and assumes 24 when it
  /// is `nil`. The default implementation returns `nil`.
  var rows: Int? { get }
  /// Writes text as it is.
  func write(_ text: String)
}

extension TerminalOutput {
  /// The height is unknown: `nil`.
  public var rows: Int? { nil }
}

extension TerminalOutput where Self == TerminalStream {
  /// Standard output, where a program writes its results: `output: .standardOutput`.
  public static var standardOutput: TerminalStream {
    TerminalStream(fileDescriptor: STDOUT_FILENO)
  }

  /// Standard error, where progress goes by default, so that what a program prints on standard
  /// output stays apart from it: `output: .standardError`.
  public static var standardError: TerminalStream {
    TerminalStream(fileDescriptor: STDERR_FILENO)
  }
}

/// A file descriptor as a terminal output: standard output, standard error, or any other.
///
/// Its capabilities come from `isatty` and the environment (see
/// ``TerminalCapabilities/detect(isTerminal:environment:)``), its width from the terminal
/// (`TIOCGWINSZ`), then `COLUMNS`, then 80, and its height from the terminal, then `LINES`.
/// Writes go straight to the descriptor, unbuffered, after flushing what the program printed
/// (`print` buffers its output when it is piped); when the reader has gone away (a closed pipe, as in `heavy-task | head -1`), later writes are dropped
/// and ``isBroken`` becomes `true`.
@MainActor
public final class TerminalStream: TerminalOutput {
  /// The descriptor written to.
  public let fileDescriptor: Int32
  /// What the descriptor can show, detected once when the stream is created.
  public let capabilities: TerminalCapabilities
  /// Whether a write failed for good (for example, the pipe was closed); later writes are dropped.
  public private(set) var isBroken = false
  private let environment: [String: String]

  /// Creates a stream on a file descriptor.
  ///
  /// - Parameters:
  ///   - fileDescriptor: The descriptor to write to; the stream does not close it.
  ///   - environment: The variables that decide the capabilities (`TERM`, `NO_COLOR`, `LC_ALL`,
  ///     `LC_CTYPE`, `LANG`, `COLUMNS`, `LINES`); `nil` reads the process environment.
  public init(fileDescriptor: Int32, environment: [String: String]? = nil) {
    self.fileDescriptor = fileDescriptor
    self.environment = environment ?? TerminalStream.processEnvironment()
    self.capabilities = TerminalCapabilities.detect(
      isTerminal: isatty(fileDescriptor) == 1, environment: self.environment)
  }

  /// The terminal's width, else `COLUMNS`, else 80.
  public var columns: Int {
    if let columns = windowSize()?.ws_col, columns > 0 {
      return Int(columns)
    }
    return positiveNumber("COLUMNS") ?? 80
  }

  /// The terminal's height, else `LINES`, else `nil`.
  public var rows: Int? {
    if let rows = windowSize()?.ws_row, rows > 0 {
      return Int(rows)
    }
    return positiveNumber("LINES")
  }

  /// The size of the terminal the descriptor is, or `nil` when it is none.
  private func windowSize() -> winsize? {
    var size = winsize()
    return ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0 ? size : nil
  }

  /// The environment variable `name` as a number above 0, or `nil`.
  private func positiveNumber(_ name: String) -> Int? {
    environment[name].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
  }

  /// Writes all of `text`, retrying after interruptions; gives up for good on other errors.
  public func write(_ text: String) {
    guard !isBroken, !text.isEmpty else { return }
    // What the program printed through the C library's buffers (Swift's `print` among them)
    // goes first, so that piped output keeps the order in which it was written.
    fflush(nil)
    var text = text
    text.withUTF8 { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = systemWrite(
          fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written > 0 {
          offset += written
        } else if written < 0 && errno == EINTR {
          continue
        } else {
          isBroken = true
          return
        }
      }
    }
  }

  static func processEnvironment() -> [String: String] {
    var values: [String: String] = [:]
    for key in ["TERM", "NO_COLOR", "LC_ALL", "LC_CTYPE", "LANG", "COLUMNS", "LINES"] {
      if let value = getenv(key) {
        values[key] = String(cString: value)
      }
    }
    return values
  }
}

/// `write(2)`, named apart from ``TerminalStream/write(_:)``.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}
