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

  @Test func appearingListsEveryFileAsWaiting() {
    Screen(view).appear()
    let screen = Screen(view)
    #expect(
      rows(of: screen) == [
        "a.zip", "Waiting, " + bytes(2_000_000), "b.zip", "Waiting, " + bytes(3_000_000),
        "c.zip", "Waiting, " + bytes(1_500_000),
      ])
    #expect(screen.progressBars == [0, 0, 0, 0])  // a bar per file, then the total
    #expect(screen.buttons.map(\.title) == ["Start"])
  }

  @Test func appearingAgainAddsNoFile() {
    Screen(view).appear()
    Screen(view).appear()
    #expect(view.state("group", as: TaskRunnerGroup.self)?.members.count == 3)
  }

  @Test func startDownloadsEveryFile() async throws {
    Screen(view).appear()
    try Screen(view).press("Start")
    #expect(Screen(view).buttons.map(\.title) == ["Cancel"])

    let queue = try #require(view.state("queue", as: Task<Void, Never>?.self) ?? nil)
    await queue.value
    let done = Screen(view)
    #expect(
      rows(of: done) == [
        "a.zip", bytes(2_000_000), "b.zip", bytes(3_000_000), "c.zip", bytes(1_500_000),
      ])
    #expect(done.texts.last == "3 finished")
    #expect(done.buttons.map(\.title) == ["Start"])
  }

  @Test func cancelStopsTheDownloadsAndTheQueue() async throws {
    // Long downloads, so that the first is still under way when Cancel is pressed.
    let view = DownloadsView(
      files: [
        RemoteFile(name: "a.iso", size: 400_000_000), RemoteFile(name: "b.iso", size: 400_000_000),
        RemoteFile(name: "c.iso", size: 400_000_000),
      ],
      jobs: 2)
    Screen(view).appear()
    let group = try #require(view.state("group", as: TaskRunnerGroup.self))
    let first = StateRecorder(observing: group.runners[0])
    try Screen(view).press("Start")
    #expect(await first.wait(forStateCount: 2))  // idle, then running

    try Screen(view).press("Cancel")
    let queue = try #require(view.state("queue", as: Task<Void, Never>?.self) ?? nil)
    await queue.value
    let screen = Screen(view)
    // The two under way are cancelled; the third never starts.
    #expect(
      rows(of: screen) == [
        "a.iso", "Cancelled", "b.iso", "Cancelled", "c.iso", "Waiting, " + bytes(400_000_000),
      ])
    #expect(screen.buttons.map(\.title) == ["Start"])
  }
}
#endif
