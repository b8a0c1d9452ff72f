import Synchronization
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
  private let wallClock: @Sendable () -> Duration
  /// What is logged of the runner this renderer is attached to.
  private var run: RunLog
  /// What is logged of each member of the group this renderer is attached to.
  private var members: [TaskRunnerGroup.Member.ID: RunLog] = [:]

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
    wallClock: @escaping @Sendable () -> Duration = LogFileRenderer.systemTime
  ) throws(LogFileError) {
    try self.init(path: path, label: label, wallClock: wallClock, syncFile: { fsync($0) })
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
    self.run = RunLog(label: label, member: nil)
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
  public nonisolated static func systemTime() -> Duration {
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
    guard let line = log.line(for: update, at: wallClock) else { return }
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
  private func syncInBackground() {
    guard file.requestSync() else { return }  // the sync under way takes this one in
    let (file, path) = (self.file, self.path)
    Task.detached { [weak self] in
      repeat {
        if let code = file.sync() {
          await self?.report(LogFileError(path: path, operation: .flush, code: code))
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
    case .joined(let member, let update):
      var memberLog = RunLog(label: label, member: member.label)
      log(update, in: &memberLog)
      members[member.id] = memberLog
    case .updated(let id, let update):
      guard var memberLog = members.removeValue(forKey: id) else { return }
      log(update, in: &memberLog)
      members[id] = memberLog
    case .left(let id):
      members[id] = nil
    case .frame:
      break
    }
  }
}

/// What the log keeps of one run, a runner's or a group member's, between its lines.
struct RunLog {
  /// The label written in every line; empty for none.
  let label: String
  /// The group member's label, for a member's runs.
  let member: String?
  private var runStart: Duration?
  /// The last line written: when, in which phase, and with what progress.
  private var lastLine: (time: Duration, phase: RunPhase, progress: RunProgress?)?
  /// The last progress of the current run, logged or not: where a run that ends got to.
  private var lastProgress: RunProgress?

  init(label: String, member: String?) {
    self.label = label
    self.member = member
  }

  /// The line `update` calls for, if any: a state change worth a line, the run's start and end
  /// always.
  mutating func line(
    for update: ProgressUpdate, at wallClock: () -> Duration
  ) -> LogLine? {
    guard update.reason == .stateChanged else { return nil }
    let state = update.state
    guard lastLine != nil || state.phase != .idle else { return nil }  // attached while idle
    let progress = state.progress
    if state.phase.isActive && !(lastLine?.phase.isActive ?? false) {
      runStart = update.time
    }
    if let progress {
      lastProgress = progress
    }
    if let lastLine, lastLine.phase == state.phase, state.phase.isActive, let progress,
      !isWorthALine(progress, since: lastLine.progress, elapsed: update.time - lastLine.time)
    {
      return nil
    }
    // A run that ended is logged where it got to: the last progress it reported.
    let position = state.phase.isTerminal ? lastProgress : progress
    let fraction =
      switch state.phase {
      case .failed, .cancelled: position?.fractionCompleted ?? 0
      case .idle, .running, .paused, .finished: state.fractionCompleted
      }
    let line = LogLine(
      time: wallClock(), label: label, member: member, phase: state.phase, fraction: fraction,
      completed: position?.completedCountForDisplay, total: position?.totalCount, unit: update.unit,
      bytes: (position?.completedByteCount, position?.totalByteCount),
      files: (position?.completedFileCount, position?.totalFileCount),
      throughput: update.throughput,
      throughputUnit: position.map(update.unit.rateUnit(of:)),
      eta: update.estimatedTimeRemaining,
      elapsed: state.phase == .idle ? nil : runStart.map { update.time - $0 },
      message: position?.message, error: state.error.map { String(describing: $0) })
    lastLine = (update.time, state.phase, progress)
    if state.phase.isTerminal {
      runStart = nil
      lastProgress = nil
    }
    return line
  }

  private func isWorthALine(
    _ progress: RunProgress, since last: RunProgress?, elapsed: Duration
  ) -> Bool {
    guard let last else { return true }
    if let total = progress.totalCount, total > 0, total == last.totalCount,
      let completed = progress.completedCount, let lastCompleted = last.completedCount
    {
      // In whole counts, so that 28/100 to 29/100 is a step (0.29 - 0.28 is 0.00999…).
      let moved = (completed - lastCompleted).magnitude.multipliedReportingOverflow(by: 100)
      if moved.overflow || moved.partialValue >= total.magnitude { return true }
    }
    // Also in fractions, which count unfinished children beyond the counts.
    if let fraction = progress.fractionCompleted, let lastFraction = last.fractionCompleted {
      if abs(fraction - lastFraction) >= LogFileRenderer.fractionStep * (1 - 1e-9) { return true }
    } else if progress.isIndeterminate != last.isIndeterminate {
      return true
    }
    return progress != last && elapsed >= LogFileRenderer.timeStep
  }

}

/// The open descriptor, closed exactly once, also from the renderer's `deinit`.
///
/// Writes and closes come from the main actor, syncs from a task of their own. A close during a
/// sync leaves the descriptor to the sync, which closes it when it is done: neither a write nor
/// a close waits for the disk.
final class OpenFile: Sendable {
  /// The descriptor, open until ``close()``.
  let descriptor: Int32
  /// `fsync(2)`, or what a test puts in its place.
  private let syncFile: @Sendable (Int32) -> Int32
  private let state = Locked(State())
  /// ``SyncState``'s raw value: whether a background sync is under way, and whether another is
  /// wanted.
  private let backgroundSync = Atomic<Int>(SyncState.idle.rawValue)

  private struct State {
    /// Whether writes and syncs may use the descriptor: until ``close()``.
    var isOpen = true
    /// The syncs using the descriptor: the background one, and ``LogFileRenderer/flush()``'s.
    var syncs = 0
    /// The descriptor was closed: by ``close()``, or, when syncs were using it then, by the
    /// last of them.
    var isClosed = false

    /// Whether the descriptor is to be closed now: closed to writes and syncs, and used by none.
    mutating func closesNow() -> Bool {
      guard !isOpen, !isClosed, syncs == 0 else { return false }
      isClosed = true
      return true
    }
  }

  private enum SyncState: Int {
    case idle
    case syncing
    /// Syncing, and asked for another sync after this one.
    case syncingWithMore
  }

  init(descriptor: Int32, syncFile: @escaping @Sendable (Int32) -> Int32 = { fsync($0) }) {
    self.descriptor = descriptor
    self.syncFile = syncFile
  }

  /// Whether the descriptor was closed: by ``close()``, or by the sync that was using it then.
  var isClosed: Bool {
    state.withLock { $0.isClosed }
  }

  /// Whether no background sync is under way or asked for.
  var isSyncIdle: Bool {
    backgroundSync.load(ordering: .acquiring) == SyncState.idle.rawValue
  }

  deinit {
    close()
  }

  /// Writes `text` in one `write`; returns the `errno` of a failure, `EIO` for a short write.
  func append(_ text: String) -> Int32? {
    guard state.withLock({ $0.isOpen }) else { return EBADF }
    var text = text
    return text.withUTF8 { buffer in
      while true {
        let written = write(descriptor, buffer.baseAddress, buffer.count)
        if written == buffer.count { return nil }
        if written < 0 && errno == EINTR { continue }
        // A short write leaves a partial line: report it rather than appending the rest later,
        // where another writer's line may already follow.
        return written < 0 ? errno : EIO
      }
    }
  }

  /// Asks for a sync in the background; returns whether the caller starts it, `false` when the
  /// one under way will sync once more when it is done.
  func requestSync() -> Bool {
    var current = backgroundSync.load(ordering: .relaxed)
    while true {
      let next: SyncState = current == SyncState.idle.rawValue ? .syncing : .syncingWithMore
      let (exchanged, original) = backgroundSync.compareExchange(
        expected: current, desired: next.rawValue, ordering: .acquiringAndReleasing)
      if exchanged { return next == .syncing }
      current = original
    }
  }

  /// Ends a background sync; returns whether another was asked for meanwhile, which the caller
  /// then makes.
  func syncAgain() -> Bool {
    if backgroundSync.compareExchange(
      expected: SyncState.syncingWithMore.rawValue, desired: SyncState.syncing.rawValue,
      ordering: .acquiringAndReleasing
    ).exchanged {
      return true
    }
    backgroundSync.store(SyncState.idle.rawValue, ordering: .releasing)
    return false
  }

  /// Syncs the file to storage and returns the `errno` of a failure that loses data.
  ///
  /// Pipes, terminals and device files such as /dev/full cannot be synced, and nothing is lost.
  func sync() -> Int32? {
    let usable = state.withLock { state in
      guard state.isOpen else { return false }
      state.syncs += 1
      return true
    }
    guard usable else { return nil }
    let failed = syncFile(descriptor) != 0
    let code = errno
    let closes = state.withLock { state in
      state.syncs -= 1
      return state.closesNow()
    }
    if closes {
      _ = closeDescriptor(descriptor)
    }
    guard failed else { return nil }
    return code == EINVAL || code == EROFS || code == ENOTSUP ? nil : code
  }

  func close() {
    let closes = state.withLock { state in
      state.isOpen = false
      return state.closesNow()
    }
    if closes {
      _ = closeDescriptor(descriptor)
    }
  }
}

/// `close(2)`, named apart from the methods called `close`.
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
  close(descriptor)
}
