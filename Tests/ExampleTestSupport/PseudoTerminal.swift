package import Foundation

/// A pseudo-terminal to run an example on, as a user at a real terminal would: keys go in,
/// everything drawn comes out, and the terminal's modes can be read back afterwards.
///
/// Reads block a thread, so they run off Swift's pool (``offThePool(_:)-(()->Value)``), and
/// are async.
// SAFETY: one test uses a terminal, and awaits each read, the only writer of `bytes`, before
// it reads them or reads again: no two accesses to `bytes` overlap.
package final class PseudoTerminal: @unchecked Sendable {  // SAFETY: above
  /// The side the tests read and type on.
  package let primary: Int32
  private let secondary: Int32
  /// Every byte the program wrote to the terminal so far.
  package private(set) var bytes: [UInt8] = []

  /// Everything the program wrote so far, as text.
  package var output: String { String(decoding: bytes, as: UTF8.self) }

  /// How many bytes have been read so far: an offset for `read(until:after:)`.
  package var bytesRead: Int { bytes.count }

  /// Opens a terminal of `columns` by `rows`.
  package init(columns: UInt16 = 80, rows: UInt16 = 24) throws {
    var primary: Int32 = -1
    var secondary: Int32 = -1
    var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
    guard openpty(&primary, &secondary, nil, nil, &size) == 0 else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    self.primary = primary
    self.secondary = secondary
  }

  deinit {
    close(primary)
  }

  /// Starts the built `product` with the terminal as its standard input, output and error, or
  /// with `standardError` as its standard error, to tell the two streams apart.
  package func launch(
    _ arguments: [String], product: String,
    environment extra: [String: String] = [:],
    standardError: Pipe? = nil
  ) throws -> Process {
    let process = Process()
    process.executableURL = ProgramProcess.productsDirectory.appendingPathComponent(product)
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = "xterm-256color"
    environment["LANG"] = "C.UTF-8"
    environment["NO_COLOR"] = nil
    process.environment = environment.merging(extra) { $1 }
    let handle = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
    process.standardInput = handle
    process.standardOutput = handle
    process.standardError = standardError ?? handle
    try process.run()
    close(secondary)  // the child has its own; the terminal closes when the child exits
    return process
  }

  /// Types `text` as keys.
  package func type(_ text: String) {
    _ = text.utf8CString.withUnsafeBufferPointer { write(primary, $0.baseAddress, $0.count - 1) }
  }

  /// Reads what the program draws until `text` has appeared after the first `offset` bytes (or
  /// the program has gone, or drawn nothing for 30 s: a failure, not a hang).
  @discardableResult
  package func read(until text: String, after offset: Int = 0) async -> Bool {
    await offThePool { self.readBlocking(until: text, after: offset) }
  }

  private func readBlocking(until text: String, after offset: Int) -> Bool {
    while !String(decoding: bytes.dropFirst(offset), as: UTF8.self).contains(text) {
      guard readChunk() else { return false }
    }
    return true
  }

  /// Tells the program the terminal is now `columns` wide, as a window manager would.
  package func resize(columns: UInt16, rows: UInt16 = 24, for process: Process) {
    var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(primary, UInt(TIOCSWINSZ), &size)
    kill(process.processIdentifier, SIGWINCH)
  }

  /// Waits at most `limit` for `process` to exit, then ends it with `SIGKILL`, so that a program
  /// that hangs fails its test instead of hanging the test run.
  ///
  /// - Returns: Whether the process exited by itself.
  package func waitForExit(
    of process: Process, within limit: Duration = .seconds(60)
  ) async -> Bool {
    await offThePool { process.waitUntilExit(within: limit) }
  }

  /// Reads until the program has closed the terminal.
  package func readToEnd() async {
    await offThePool { while self.readChunk() {} }
  }

  private func readChunk() -> Bool {
    // The deadline only turns a program that stopped drawing into a failure instead of a hang.
    var ready = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
    guard poll(&ready, 1, 30_000) > 0 else { return false }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = Foundation.read(primary, &buffer, buffer.count)
    guard count > 0 else { return false }  // EIO once the program's side is closed
    bytes += buffer[..<count]
    return true
  }

  /// The terminal's current modes.
  package var modes: termios {
    var modes = termios()
    tcgetattr(primary, &modes)
    return modes
  }
}
