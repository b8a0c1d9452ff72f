#if !canImport(SwiftUI)
import TaskProgress
import Testing

/// `DownloadsView`, the queue of downloads, drawn by the stand-in and pressed as a user would.
@MainActor
@Suite("SwiftUI example: the downloads view", .timeLimit(.minutes(2)))
struct DownloadsViewTests {
  /// Files that download in 50 to 75 ms, two at a time.
  let view = DownloadsView(
    files: [
      RemoteFile(name: "a.zip", size: 2_000_000), RemoteFile(name: "b.zip", size: 3_000_000),
      RemoteFile(name: "c.zip", size: 1_500_000),
    ],
    jobs: 2)

  /// The label and the text below it, for each file.
  private func rows(of screen: Screen) -> [String] {
    Array(screen.texts.dropLast())  // the last text is the group's counts
  }

  private func bytes(_ count: Int) -> String {
    ProgressUnit.bytes.format(count)
  }

  /// The view's queue, once Start was pressed.
  private func queue(of view: DownloadsView) throws -> TaskRunnerGroup.Queue<RemoteFile> {
    try #require(view.state("queue", as: TaskRunnerGroup.Queue<RemoteFile>?.self) ?? nil)
  }

  @Test func everyFileIsListedAsWaitingBeforeTheStart() {
    let screen = Screen(view)
    #expect(
      rows(of: screen) == [
        "a.zip", "Waiting, " + bytes(2_000_000), "b.zip", "Waiting, " + bytes(3_000_000),
        "c.zip", "Waiting, " + bytes(1_500_000),
      ])
    #expect(screen.progressBars == [0, 0, 0, 0])  // a bar per file, then the total
    #expect(screen.buttons.map(\.title) == ["Start"])
  }

  @Test func startDownloadsEveryFile() async throws {
    try Screen(view).press("Start")
    let started = Screen(view)
    #expect(started.texts.last == "2 running, 1 waiting")
    #expect(started.buttons.map(\.title) == ["Cancel"])

    let outcomes = try await queue(of: view).wait()
    #expect(outcomes == [.finished, .finished, .finished])
    let done = Screen(view)
    #expect(
      rows(of: done) == [
        "a.zip", bytes(2_000_000), "b.zip", bytes(3_000_000), "c.zip", bytes(1_500_000),
      ])
    #expect(done.texts.last == "3 finished")
    #expect(done.buttons.map(\.title) == ["Start"])
  }

  @Test func startingAgainDownloadsEveryFileOnceMore() async throws {
    try Screen(view).press("Start")
    _ = try await queue(of: view).wait()
    try Screen(view).press("Start")
    // The last run's downloads left the group: each file is in it once.
    let group = try #require(view.state("group", as: TaskRunnerGroup.self))
    #expect(group.members.map(\.label) == ["a.zip", "b.zip", "c.zip"])
    #expect(Screen(view).texts.last == "2 running, 1 waiting")

    #expect(try await queue(of: view).wait() == [.finished, .finished, .finished])
    #expect(Screen(view).texts.last == "3 finished")
  }

  @Test func cancelStopsTheDownloadsAndTheQueue() async throws {
    // Long downloads, so that the first two are still under way when Cancel is pressed.
    let view = DownloadsView(
      files: [
        RemoteFile(name: "a.iso", size: 400_000_000), RemoteFile(name: "b.iso", size: 400_000_000),
        RemoteFile(name: "c.iso", size: 400_000_000),
      ],
      jobs: 2)
    try Screen(view).press("Start")
    let queue = try queue(of: view)
    #expect(queue.runners.map(\.state.phase) == [.running, .running, .idle])

    try Screen(view).press("Cancel")
    #expect(await queue.wait() == [.cancelled, .cancelled, .cancelled])
    let screen = Screen(view)
    // The two under way are cancelled; the third never starts.
    #expect(
      rows(of: screen) == [
        "a.iso", "Cancelled", "b.iso", "Cancelled", "c.iso", "Not started, " + bytes(400_000_000),
      ])
    #expect(screen.texts.last == "3 cancelled")
    #expect(screen.buttons.map(\.title) == ["Start"])
  }
}
#endif
