import Synchronization
import TaskProgress

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
func closeDescriptor(_ descriptor: Int32) -> Int32 {
  close(descriptor)
}
