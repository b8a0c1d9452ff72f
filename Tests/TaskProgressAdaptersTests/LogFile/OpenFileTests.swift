import Dispatch
import Foundation
import Synchronization
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

/// A stand-in for `fsync(2)` that holds each sync until the test lets it go, and counts them.
final class HeldSync: Sendable {
  /// Latched when a sync began.
  let began = Latch()
  private let proceed = DispatchSemaphore(value: 0)
  private let count = Atomic(0)
  private let timedOut = Atomic(false)

  /// The syncs made so far.
  var syncs: Int {
    count.load(ordering: .acquiring)
  }

  /// Whether a sync was held to ``holdLimit``: its test never let it go.
  var anyTimedOut: Bool {
    timedOut.load(ordering: .acquiring)
  }

  /// The longest a sync is held: beyond the time limit of the suites that hold syncs (a minute,
  /// four under ThreadSanitizer), so that a held sync ends when its test lets it go, however
  /// long the test took to get there, and this limit only frees the thread of a test that never
  /// did.
  static let holdLimit: Duration = .seconds(TestScale.isSanitized ? 5 * 60 : 2 * 60)

  /// The function to give in place of `fsync(2)`: it blocks its thread until the test lets it
  /// go, then succeeds.
  var function: @Sendable (Int32) -> Int32 {
    { [self] _ in
      count.add(1, ordering: .acquiringAndReleasing)
      began.open()
      let seconds = Int(HeldSync.holdLimit.components.seconds)
      if proceed.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
        timedOut.store(true, ordering: .releasing)
      }
      return 0
    }
  }

  /// Lets every sync go, now and from now on.
  func release() {
    for _ in 0..<1_000 {
      proceed.signal()
    }
  }
}

/// The log file's descriptor: its background syncs, and a close while one is under way.
@Suite("Open log file", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct OpenFileTests {
  /// A descriptor of a new file in the temporary folder.
  private func openTemporaryFile() throws -> Int32 {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("open-file-\(UUID().uuidString).log").path
    let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    try #require(descriptor >= 0, "cannot open \(path)")
    unlink(path)
    return descriptor
  }

  @Test func syncsAskedForDuringASyncAreMadeAsOneMoreAfterIt() throws {
    let file = OpenFile(descriptor: try openTemporaryFile())
    #expect(file.isSyncIdle)
    #expect(file.requestSync(), "the first request starts a sync")
    #expect(!file.requestSync(), "a request during it is left to it")
    #expect(!file.requestSync())
    #expect(file.syncAgain(), "the sync under way makes one more")
    #expect(!file.isSyncIdle)
    #expect(!file.syncAgain(), "and then stops")
    #expect(file.isSyncIdle)
    #expect(file.requestSync(), "a request after that starts a new sync")
    #expect(!file.syncAgain())
  }

  @Test func aCloseDuringASyncLeavesTheDescriptorToTheSync() async throws {
    let held = HeldSync()
    let file = OpenFile(descriptor: try openTemporaryFile(), syncFile: held.function)
    let synced = Latch()
    // On a thread of its own: the sync blocks its thread until the test lets it go.
    Thread {
      _ = file.sync()
      synced.open()
    }.start()
    await held.began.wait(for: "the sync to begin")
    file.close()
    #expect(!file.isClosed, "the close waited for nothing and left the descriptor to the sync")
    #expect(file.append("after the close\n") == EBADF)
    held.release()
    await synced.wait(for: "the sync to end")
    #expect(file.isClosed, "the sync closed the descriptor")
    #expect(!held.anyTimedOut)
  }

  @Test func aCloseWithoutASyncClosesAtOnceAndASyncAfterItDoesNothing() throws {
    let held = HeldSync()
    let file = OpenFile(descriptor: try openTemporaryFile(), syncFile: held.function)
    file.close()
    #expect(file.isClosed)
    #expect(file.sync() == nil)
    #expect(held.syncs == 0)
  }
}
