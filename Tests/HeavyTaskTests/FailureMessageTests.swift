import Testing

@testable import heavy_task

/// The line standard error gets when a run fails.
@MainActor
@Suite("heavy-task failure messages")
struct FailureMessageTests {
  private struct Unexpected: Error, CustomStringConvertible {
    var description: String { "the disk went away\nwhile writing" }
  }

  @Test func anItemsFailureNamesTheItemAndHowManyThereAre() throws {
    let work = HeavyTaskWork(options: try Options.parse(["--items", "5", "--fail-at", "3"]))
    #expect(
      work.failureMessage(for: HeavyTaskError.itemFailed(3))
        == "the heavy task failed at item 3 of 5: item 3 threw an error (as --fail-at asked)")
  }

  @Test func anyOtherErrorIsNamedOnOneLine() throws {
    let work = HeavyTaskWork(options: try Options.parse([String]()))
    #expect(
      work.failureMessage(for: Unexpected())
        == "the heavy task failed: the disk went away while writing")
  }
}
