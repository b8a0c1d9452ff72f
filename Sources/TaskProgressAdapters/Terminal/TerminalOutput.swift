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

/// Where a ``TerminalRenderer`` writes, and what the destination can show.
///
/// ``TerminalStream`` writes to a file descriptor, standard output by default. Tests give the
/// renderer their own output, an in-memory terminal of a chosen width, and compare the bytes.
@MainActor
public protocol TerminalOutput: AnyObject {
  /// What the destination can show.
  var capabilities: TerminalCapabilities { get }
  /// The width in columns, read before every draw so that a resized window is followed.
  var columns: Int { get }
  /// Writes text as it is.
  func write(_ text: String)
}

/// A file descriptor as a terminal output: standard output, standard error, or any other.
///
/// Its capabilities come from `isatty` and the environment (see
/// ``TerminalCapabilities/detect(isTerminal:environment:)``), its width from the terminal
/// (`TIOCGWINSZ`), then `COLUMNS`, then 80. Writes go straight to the descriptor, unbuffered, after
/// flushing what the program printed (`print` buffers its output when it is piped); when
/// the reader has gone away (a closed pipe, as in `heavy-task | head -1`), later writes are dropped
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

  /// Standard output.
  public static var standardOutput: TerminalStream {
    TerminalStream(fileDescriptor: STDOUT_FILENO)
  }

  /// Standard error.
  public static var standardError: TerminalStream {
    TerminalStream(fileDescriptor: STDERR_FILENO)
  }

  /// Creates a stream on a file descriptor.
  ///
  /// - Parameters:
  ///   - fileDescriptor: The descriptor to write to; the stream does not close it.
  ///   - environment: The variables that decide the capabilities (`TERM`, `NO_COLOR`, `LC_ALL`,
  ///     `LC_CTYPE`, `LANG`, `COLUMNS`); `nil` reads the process environment.
  public init(fileDescriptor: Int32, environment: [String: String]? = nil) {
    self.fileDescriptor = fileDescriptor
    self.environment = environment ?? TerminalStream.processEnvironment()
    self.capabilities = TerminalCapabilities.detect(
      isTerminal: isatty(fileDescriptor) == 1, environment: self.environment)
  }

  /// The terminal's width, else `COLUMNS`, else 80.
  public var columns: Int {
    var size = winsize()
    if ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return Int(size.ws_col)
    }
    if let columns = environment["COLUMNS"].flatMap({ Int($0) }), columns > 0 {
      return columns
    }
    return 80
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
    for key in ["TERM", "NO_COLOR", "LC_ALL", "LC_CTYPE", "LANG", "COLUMNS"] {
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
