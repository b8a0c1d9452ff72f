import Dispatch
public import TaskProgress

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif os(Windows) || os(WASI)
// The log file is opened without following a FIFO that has no reader, moved above the standard
// streams and made close-on-exec with fcntl, none of which these platforms have.
#error("TaskProgressAdapters needs POSIX files (fcntl, O_CLOEXEC): not on this platform")
#else
#error("Unsupported platform: TaskProgressAdapters needs a POSIX C library")
#endif

/// Appends a runner's progress to a log file as JSON Lines.
///
/// ```swift
/// let log = try LogFileRenderer(path: "import.log", label: "import")
/// log.onError = { error in print(error) }       // or read `lastError`, or `try log.flush()`
/// runner.attach(log)
/// ```
@MainActor
public final class LogFileRenderer: ProgressRenderer {
  /// The path the renderer appends to.
  public let path: String
  /// The label written in every line; empty for none.
  public let label: String
  /// The last write or flush that failed, if any; it stays until another one fails.
  public private(set) var lastError: LogFileError?
  /// A write that failed since the last ``flush()``, which that call throws.
  private var unflushedWriteError: LogFileError?
  /// Called on the main actor for every write or flush that fails.
  public var onError: (@MainActor (LogFileError) -> Void)?

  let file: OpenFile
  /// Where background syncs run: a thread that may block on the disk.
  private let syncQueue = DispatchQueue(label: "TaskProgressAdapters.LogFileRenderer.sync")
  private let wallClock: @Sendable () -> Duration
  /// What is logged of the runner this renderer is attached to.
  private var run: RunLog
  /// What is logged of each member of the group this renderer is attached to, by member.
  private var members = SlotList<RunLog>()

  /// Progress moves a line is written for: 1% (in counts, 1/100 of the total).
  nonisolated static let fractionStep = 0.01
  /// The longest progress goes unlogged while it changes.
  nonisolated static let timeStep: Duration = .seconds(1)

  /// Opens `path` for appending, creating it if needed.
  ///
  /// - Parameters:
  ///   - path: The file to append to. Its folder must exist.
  ///   - label: A label written in every line, to tell runs apart in a shared file.
  ///   - wallClock: The time since 1970-01-01T00:00:00Z for the timestamps; the system's real-time
  ///     clock by default. Tests pass a fixed one.
  /// - Throws: ``LogFileError`` when the file cannot be opened: a missing folder, a folder, no
  ///   permission, a FIFO that no process is reading (rather than waiting for one).
  public convenience init(
    path: String, label: String = "",
    wallClock: (@Sendable () -> Duration)? = nil
  ) throws(LogFileError) {
    try self.init(
      path: path, label: label, wallClock: wallClock ?? LogFileRenderer.systemTime,
      syncFile: { fsync($0) })
  }

  /// Opens `path` as ``init(path:label:wallClock:)`` does, with `syncFile` in place of
  /// `fsync(2)`: what tests hold to see when syncs happen.
  init(
    path: String, label: String = "",
    wallClock: @escaping @Sendable () -> Duration = LogFileRenderer.systemTime,
    syncFile: @escaping @Sendable (Int32) -> Int32
  ) throws(LogFileError) {
    self.path = path
    self.label = label
    self.wallClock = wallClock
    self.run = RunLog(label: label, member: nil, id: nil)
    self.file = OpenFile(
      descriptor: try LogFileRenderer.openForAppending(path), syncFile: syncFile)
  }

  /// Opens `path` for appending, without waiting and never as a standard stream's descriptor.
  private static func openForAppending(_ path: String) throws(LogFileError) -> Int32 {
    // Without O_NONBLOCK, opening a FIFO that no process reads would wait for a reader forever;
    // with it, that open fails at once with ENXIO. Writes block again once the file is open.
    var descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0o644)
    guard descriptor >= 0 else {
      let code = errno
      if code == ENXIO && isFIFO(path) {
        throw LogFileError(
          path: path, operation: .open, code: code, reason: LogFileError.fifoWithoutReader)
      }
      throw LogFileError(path: path, operation: .open, code: code)
    }
    // A program started with standard output (or input, or error) closed gets that number back
    // from open(2), and everything it then writes to the standard stream would land in the log.
    if descriptor <= STDERR_FILENO {
      let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, STDERR_FILENO + 1)
      let code = errno
      _ = closeDescriptor(descriptor)
      guard moved >= 0 else {
        throw LogFileError(path: path, operation: .open, code: code)
      }
      descriptor = moved
    }
    let flags = fcntl(descriptor, F_GETFL)
    guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
      let code = errno
      _ = closeDescriptor(descriptor)
      throw LogFileError(path: path, operation: .open, code: code)
    }
    return descriptor
  }

  /// Whether `path` names a FIFO: `ENXIO` from `open(2)` means "no reader" only for those.
  private static func isFIFO(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
  }

  /// The system's real-time clock, as time since 1970-01-01T00:00:00Z.
  nonisolated static func systemTime() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return .seconds(Int64(now.tv_sec)) + .nanoseconds(Int64(now.tv_nsec))
  }

  /// Appends the lines this update calls for.
  public func render(_ update: ProgressUpdate) {
    log(update, in: &run)
  }

  /// Appends the line `update` calls for in the log of one run, its runner's or a member's.
  private func log(_ update: ProgressUpdate, in log: inout RunLog) {
    if let line = log.line(for: update, at: wallClock) {
      append(line)
    }
  }

  /// Appends `line`, and puts the file on storage at the end of a run.
  private func append(_ line: LogLine) {
    append(line.encoded())
    if line.phase.isTerminal {
      syncInBackground()
    }
  }

  /// Does nothing: the file stays open until ``close()`` or the renderer's release, so that a
  /// renderer detached from one runner can be attached to another.
  public func didDetach() {}

  /// Flushes what was written to storage.
  ///
  /// - Throws: The ``LogFileError`` of a write that failed since the last call, or of the flush.
  public func flush() throws(LogFileError) {
    if let error = unflushedWriteError {
      unflushedWriteError = nil
      throw error
    }
    if let error = syncToStorage() {
      throw error
    }
  }

  /// Asks the system to put the file on storage; reports and returns a failure.
  private func syncToStorage() -> LogFileError? {
    guard let code = file.sync() else { return nil }
    let error = LogFileError(path: path, operation: .flush, code: code)
    report(error)
    return error
  }

  /// Syncs off the main actor, where a slow disk cannot stall the interface; a failure is
  /// reported back on the main actor.
  ///
  /// One sync at a time: the ends of runs heard while a sync is under way are put on storage by
  /// one more, after it. A queue of thousands of items ends runs faster than a loaded disk syncs,
  /// and a sync each made the queue wait for the disk.
  ///
  /// On a dispatch queue, not in a task: `fsync(2)` blocks its thread for as long as the disk
  /// takes, and Swift's cooperative pool has one thread per core, which the runs being logged
  /// need: in a task, a slow disk would hold one of a 2-core machine's two pool threads for the
  /// length of each sync.
  private func syncInBackground() {
    guard file.requestSync() else { return }  // the sync under way takes this one in
    let (file, path) = (self.file, self.path)
    syncQueue.async { [weak self] in
      repeat {
        if let code = file.sync() {
          Task { @MainActor [weak self] in
            self?.report(LogFileError(path: path, operation: .flush, code: code))
          }
        }
      } while file.syncAgain()
    }
  }

  /// Closes the file, after which updates are not written; releasing the renderer closes it too.
  public func close() {
    file.close()
  }

  private func append(_ text: String) {
    guard let code = file.append(text) else { return }
    let error = LogFileError(path: path, operation: .write, code: code)
    unflushedWriteError = error
    report(error)
  }

  private func report(_ error: LogFileError) {
    lastError = error
    onError?(error)
  }
}

extension LogFileRenderer: GroupRenderer {
  /// Appends the lines of a group's members: one file for the whole group, each line naming
  /// its member in `member`.
  ///
  /// ```swift
  /// let group = TaskRunnerGroup()
  /// let log = try LogFileRenderer(path: "downloads.log", label: "downloads")
  /// group.attach(log)
  /// // {"time":"…","label":"downloads","member":"disk.img","phase":"running","fraction":0.42,…}
  /// ```
  public func render(_ event: TaskRunnerGroup.Event) {
    switch event {
    case .updated(let member, let update):
      if !members.contains(member.id) {
        members.append(RunLog(label: label, member: member.label, id: member.id))
      }
      if let line = members[member.id]?.line(for: update, at: wallClock) {  // in place
        append(line)
      }
    case .left(let id):
      members.remove(id)
    case .frame:
      break
    }
  }
}
