import Foundation
import TaskProgressTestSupport
import Testing

@testable import TaskProgress
@testable import TaskProgressFoundation

/// A runner published as a `Foundation.Progress`: its counts and fraction after each frame, the
/// run's end, and cancel, pause and resume both ways.
@MainActor
@Suite("Published progress", .timeLimit(TestScale.timeLimit(minutes: 1)))
struct PublishedProgressTests {
  let harness = Harness()
  var runner: TaskRunner { harness.runner }

  /// The progress's counts and fraction.
  private func shown(_ progress: Progress) -> (completed: Int64, total: Int64, fraction: Double) {
    (progress.completedUnitCount, progress.totalUnitCount, progress.fractionCompleted)
  }

  /// Waits, for at most ``waitLimit``, until `count` calls of the progress's handlers have
  /// reached the main actor.
  private func waitForHandlers(
    of publisher: ProgressPublisher, count: Int, sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    await waitUntil(
      "\(count) calls of the progress's handlers (\(publisher.handledCalls) so far)",
      sourceLocation: sourceLocation
    ) { publisher.handledCalls >= count }
  }

  /// Calls the handler Foundation calls for `action`, as Foundation would, and waits for it.
  ///
  /// swift-corelibs-foundation calls the handlers from `DispatchQueue.global()`, which tests
  /// that keep every pool thread busy hold up for many seconds. Calling the handler here as
  /// well tests the same path without that wait; Foundation's own call comes later and finds
  /// the run as it is.
  private func callHandler(
    _ handler: (@Sendable () -> Void)?, of publisher: ProgressPublisher
  ) async {
    let count = publisher.handledCalls + 1
    handler?()
    await waitForHandlers(of: publisher, count: count)
  }

  @Test func aProgressMadeBeforeTheRunIsIndeterminateAndUnfinished() {
    let progress = runner.makeProgress()
    #expect(progress.totalUnitCount == -1)
    #expect(progress.isIndeterminate)
    #expect(!progress.isFinished)
    #expect(progress.fractionCompleted == 0)
    #expect(progress.isCancellable)
    #expect(progress.isPausable)
  }

  @Test func countsAndFractionFollowEachFrame() async {
    let progress = runner.makeProgress()
    let run = await HeldRun.start(on: runner)
    // A run begins at 0, a bare fraction: ten-thousandths.
    #expect(shown(progress) == (0, 10_000, 0))
    var seen: [(Int64, Int64, Double)] = []
    for (completed, total) in [(3, 10), (7, 10), (7, 20), (5, 8), (8, 8)] {
      run.reporter.report(completed: completed, of: total)
      harness.clock.advance(by: frame)
      seen.append(shown(progress))
    }
    // Complete counts stay one ten-thousandth short while the run is active.
    #expect(seen.map(\.0) == [3, 7, 7, 5, 9_999])
    #expect(seen.map(\.1) == [10, 10, 20, 8, 10_000])
    #expect(seen.map(\.2) == [0.3, 0.7, 0.35, 0.625, 0.9999])
    #expect(!progress.isFinished)
    run.proceed.open()
    await runner.lastRunTask?.value
    #expect(shown(progress) == (8, 8, 1))
    #expect(progress.isFinished)
  }

  @Test func aBareFractionIsPublishedInTenThousandths() async {
    let progress = runner.makeProgress()
    let run = await HeldRun.start(on: runner)
    run.reporter.report(fractionCompleted: 0.425)
    harness.clock.advance(by: frame)
    #expect(shown(progress) == (4_250, 10_000, 0.425))
    run.reporter.report(fractionCompleted: 0.29)
    harness.clock.advance(by: frame)
    #expect(shown(progress) == (2_900, 10_000, 0.29))
    run.proceed.open()
  }

  @Test func childrenUnderWayArePublishedInAWholeFractionOfTheRunsUnits() async {
    let progress = runner.makeProgress()
    let run = await HeldRun.start(on: runner)
    run.reporter.report(totalCount: 4)
    run.reporter.complete(count: 1)
    let child = run.reporter.subprogress(assigningCount: 2).start(totalCount: 2)
    child.complete(count: 1)
    harness.clock.advance(by: frame)
    #expect(runner.state == .running(RunProgress(fractionCompleted: 0.5, completed: 1, of: 4)))
    #expect(shown(progress) == (5_000, 10_000, 0.5))
    child.complete(count: 1)  // finished: the fraction is the counts' own again
    harness.clock.advance(by: frame)
    #expect(shown(progress) == (3, 4, 0.75))
    run.proceed.open()
  }

  @Test func aLargeTotalWithChildrenUnderWayKeepsItsUnits() async {
    let progress = runner.makeProgress()
    let run = await HeldRun.start(on: runner)
    run.reporter.report(totalCount: 1_000_000)
    run.reporter.complete(count: 250_000)
    let child = run.reporter.subprogress(assigningCount: 500_000).start(totalCount: 10)
    child.complete(count: 5)
    harness.clock.advance(by: frame)
    #expect(shown(progress) == (500_000, 1_000_000, 0.5))
    run.proceed.open()
  }

  @Test func indeterminateProgressHasATotalOfMinusOne() async {
    let progress = runner.makeProgress()
    let run = await HeldRun.start(on: runner)
    run.reporter.report(completed: 2, of: 10)
    harness.clock.advance(by: frame)
    run.reporter.reportIndeterminate(completed: 5)
    harness.clock.advance(by: frame)
    #expect(progress.totalUnitCount == -1)
    #expect(progress.completedUnitCount == 5)
    #expect(progress.isIndeterminate)
    run.reporter.report(completed: 6, of: 10)
    harness.clock.advance(by: frame)
    #expect(shown(progress) == (6, 10, 0.6))
    run.proceed.open()
  }

  @Test func aRunThatEndsOnABareFractionFinishesAtOneOfOne() async {
    let progress = runner.makeProgress()
    let run = await HeldRun.start(on: runner)
    run.reporter.report(completed: 3, of: 7)
    harness.clock.advance(by: frame)
    run.reporter.report(fractionCompleted: 0.29)
    harness.clock.advance(by: frame)
    run.proceed.open()
    await runner.lastRunTask?.value
    #expect(shown(progress) == (1, 1, 1))
  }

  @Test func aFinishedRunFinishesTheProgressAtExactlyOne() async {
    let progress = runner.makeProgress()
    let run = await HeldRun.start(on: runner)
    run.reporter.report(fractionCompleted: 0.555)
    harness.clock.advance(by: frame)
    run.proceed.open()
    await runner.lastRunTask?.value
    #expect(runner.state == .finished)
    #expect(progress.isFinished)
    #expect(progress.completedUnitCount == progress.totalUnitCount)
    #expect(progress.fractionCompleted == 1)
    #expect(!progress.isCancelled)
  }

  @Test func aCancelledRunCancelsTheProgress() async {
    let progress = runner.makeProgress()
    let run = await HeldRun.start(on: runner)
    run.reporter.report(completed: 3, of: 10)
    harness.clock.advance(by: frame)
    runner.cancel()
    #expect(progress.isCancelled)
    #expect(!progress.isFinished)
    run.proceed.open()
  }

  @Test func aFailedRunLeavesTheProgressWhereItStopped() async {
    let progress = runner.makeProgress()
    let run = await HeldRun.start(on: runner)
    run.reporter.report(completed: 3, of: 10)
    harness.clock.advance(by: frame)
    run.fail()
    await runner.lastRunTask?.value
    #expect(runner.state.phase == .failed)
    #expect(shown(progress) == (3, 10, 0.3))
    #expect(!progress.isCancelled)
    #expect(!progress.isFinished)
  }

  @Test func cancellingTheProgressCancelsTheRun() async {
    let publisher = runner.makeProgressPublisher()
    let run = await HeldRun.start(on: runner)
    publisher.progress.cancel()
    await callHandler(publisher.progress.cancellationHandler, of: publisher)
    #expect(runner.state == .cancelled)
    run.proceed.open()
  }

  @Test func cancellingAParentOfTheProgressCancelsTheRun() async {
    let parent = rootProgress(total: 1)
    let publisher = runner.makeProgressPublisher()
    parent.addChild(publisher.progress, withPendingUnitCount: 1)
    let run = await HeldRun.start(on: runner)
    parent.cancel()
    await callHandler(publisher.progress.cancellationHandler, of: publisher)
    #expect(runner.state == .cancelled)
    run.proceed.open()
  }

  @Test func pausingAndResumingTheProgressPauseAndResumeTheRun() async {
    let publisher = runner.makeProgressPublisher()
    let progress = publisher.progress
    let run = await HeldRun.start(on: runner)
    progress.pause()
    await callHandler(progress.pausingHandler, of: publisher)
    #expect(runner.state == .paused(0))
    progress.resume()
    await callHandler(progress.resumingHandler, of: publisher)
    #expect(runner.state == .running(0))
    run.proceed.open()
  }

  @Test func pausingAndResumingTheRunPauseAndResumeTheProgress() async {
    let publisher = runner.makeProgressPublisher()
    let progress = publisher.progress
    let run = await HeldRun.start(on: runner)
    runner.pause()
    #expect(progress.isPaused)
    runner.resume()
    #expect(!progress.isPaused)
    // The handlers' calls that follow find the run as it is and change nothing.
    await callHandler(progress.pausingHandler, of: publisher)
    await callHandler(progress.resumingHandler, of: publisher)
    #expect(runner.phase == .running)
    #expect(!progress.isPaused)
    run.proceed.open()
  }

  @Test func theProgressStandsForOneRun() async {
    let progress = runner.makeProgress()
    _ = await runner.run { reporter in reporter.report(completed: 2, of: 2) }
    #expect(shown(progress) == (2, 2, 1))
    let run = await HeldRun.start(on: runner)
    run.reporter.report(completed: 1, of: 5)
    harness.clock.advance(by: frame)
    runner.cancel()
    #expect(shown(progress) == (2, 2, 1))
    #expect(!progress.isCancelled)
    run.proceed.open()
  }

  @Test func aProgressMadeAfterARunEndedStandsForTheNextRun() async {
    _ = await runner.run { reporter in reporter.report(completed: 2, of: 2) }
    let progress = runner.makeProgress()
    #expect(progress.totalUnitCount == -1)  // not the ended run's
    let run = await HeldRun.start(on: runner)
    run.reporter.report(completed: 1, of: 4)
    harness.clock.advance(by: frame)
    #expect(shown(progress) == (1, 4, 0.25))
    run.proceed.open()
  }

  @Test func aProgressMadeDuringARunShowsItAtOnce() async {
    let run = await HeldRun.start(on: runner)
    run.reporter.report(completed: 1, of: 4)
    harness.clock.advance(by: frame)
    let progress = runner.makeProgress()
    #expect(shown(progress) == (1, 4, 0.25))
    run.proceed.open()
  }

  /// Stages handed out one at a time, `reporter.subprogress(assigningCount: 1)`, read 1 of 1
  /// between two stages: the published progress stays short of finished, so its parent
  /// neither reaches 1 early nor keeps its pending units before the second stage shows.
  @Test func completeCountsBetweenStagesDoNotFinishTheProgress() async {
    let parent = rootProgress(total: 10)
    let progress = runner.makeProgress()
    parent.addChild(progress, withPendingUnitCount: 10)
    let run = await HeldRun.start(on: runner)
    let first = run.reporter.subprogress(assigningCount: 1).start(totalCount: 2)
    first.complete(count: 2)
    harness.clock.advance(by: frame)
    #expect(runner.state == .running(RunProgress(completed: 1, of: 1)))
    #expect(!progress.isFinished)
    #expect(parent.fractionCompleted < 1)
    let second = run.reporter.subprogress(assigningCount: 1).start(totalCount: 2)
    second.complete(count: 1)
    harness.clock.advance(by: frame)
    #expect(shown(progress) == (7_500, 10_000, 0.75))
    #expect(abs(parent.fractionCompleted - 0.75) < 1e-12)
    second.complete(count: 1)
    run.proceed.open()
    await runner.lastRunTask?.value
    #expect(shown(progress) == (2, 2, 1))
    #expect(parent.completedUnitCount == 10)
    #expect(parent.fractionCompleted == 1)
  }

  @Test func aProgressMadeWhenTheRunsCountsAreCompleteStaysShortOfFinished() async {
    let run = await HeldRun.start(on: runner)
    run.reporter.report(completed: 4, of: 4)
    harness.clock.advance(by: frame)
    let progress = runner.makeProgress()
    #expect(shown(progress) == (9_999, 10_000, 0.9999))
    run.reporter.report(completed: 4, of: 8)  // the run grows, and the progress with it
    harness.clock.advance(by: frame)
    #expect(shown(progress) == (4, 8, 0.5))
    run.proceed.open()
  }

  @Test func aProgressCancelledBeforeItsRunStandsForNone() async {
    let publisher = runner.makeProgressPublisher()
    publisher.progress.cancel()
    // The run starts before the cancellation handler's call reaches the main actor.
    let run = await HeldRun.start(on: runner)
    run.reporter.report(completed: 1, of: 4)
    harness.clock.advance(by: frame)
    #expect(runner.phase == .running)
    #expect(publisher.progress.totalUnitCount == -1)
    #expect(publisher.phase == .ended)
    // And once it has come, still.
    await callHandler(publisher.progress.cancellationHandler, of: publisher)
    #expect(runner.phase == .running)
    run.proceed.open()
  }

  /// A pause made on the progress whose handler has not reached the runner yet is not undone
  /// by the frames before it does.
  @Test func aPauseOfTheProgressSurvivesTheFramesBeforeItReachesTheRun() async {
    let publisher = runner.makeProgressPublisher()
    let run = await HeldRun.start(on: runner)
    publisher.progress.pause()
    harness.clock.advance(by: frame)
    harness.clock.advance(by: frame)
    #expect(publisher.progress.isPaused)
    await callHandler(publisher.progress.pausingHandler, of: publisher)
    #expect(runner.isPaused)
    #expect(publisher.progress.isPaused)
    run.proceed.open()
  }

  @Test func releasingTheRunnerBeforeItsRunCancelsTheProgress() async {
    var runner: TaskRunner? = TaskRunner(clock: harness.clock)
    let progress = runner!.makeProgress()
    runner = nil
    #expect(progress.isCancelled)
    _ = runner
  }

  /// Every property set, as a parent reads it: between one frame's values and the next, the
  /// parent's fraction is never above both, and the progress never finishes before the run does.
  @Test func underAParentTheParentsFractionNeverSpikes() async {
    let parent = rootProgress(total: 10)
    let publisher = runner.makeProgressPublisher()
    parent.addChild(publisher.progress, withPendingUnitCount: 10)
    var between: [Double] = []
    var finishedEarly = false
    publisher.writer.didSet = { _ in
      between.append(parent.fractionCompleted)
      if publisher.progress.isFinished && runner.state != .finished { finishedEarly = true }
    }
    let run = await HeldRun.start(on: runner)
    let reporter = run.reporter
    var child: TaskRunner.Reporter?
    let script: [() -> Void] = [
      { reporter.report(completed: 50, of: 100) },
      { reporter.report(completed: 150, of: 300) },  // the total grows: total first
      { reporter.report(completed: 10, of: 20) },  // the total shrinks: count first
      { reporter.report(completed: 19, of: 20) },
      { reporter.report(completed: 99, of: 100) },
      { reporter.reportIndeterminate(completed: 3) },
      { reporter.report(completed: 3, of: 4) },
      { reporter.report(fractionCompleted: 0.2) },
      { reporter.report(completed: 1, of: 2) },
      {
        reporter.report(totalCount: 10)
        child = reporter.subprogress(assigningCount: 9).start(totalCount: 4)
        child?.complete(count: 3)
      },
      { reporter.report(completed: 2, of: 3) },  // hides the child: counts again
      { reporter.report(completed: 1, of: 1_000_000) },
    ]
    var frames = 0
    for step in script {
      let before = parent.fractionCompleted
      between.removeAll()
      step()
      harness.clock.advance(by: frame)
      frames += 1
      let after = parent.fractionCompleted
      let ceiling = max(before, after) + 1e-12
      #expect(between.allSatisfy { $0 <= ceiling }, "frame \(frames): \(before) → \(between)")
      // The parent shows the run's fraction, to the 1/10,000 a fraction is published in.
      let expected = runner.state.fractionCompleted ?? 0
      #expect(abs(after - expected) <= 1e-4, "frame \(frames): \(after) is not \(expected)")
    }
    #expect(!finishedEarly)
    run.proceed.open()
    await runner.lastRunTask?.value
    #expect(parent.fractionCompleted == 1)
    #expect(parent.completedUnitCount == 10)
    _ = child
  }

  /// swift-corelibs-foundation scales a progress's record of its children by every change of
  /// its total from one positive value to another, until the record overflows and traps; the
  /// publisher changes totals by way of -1, so a run whose total changes on every frame is safe.
  @Test func aTotalThatChangesOnEveryFrameNeitherTrapsNorSticks() async {
    let parent = rootProgress(total: 4)
    let progress = runner.makeProgress()
    parent.addChild(progress, withPendingUnitCount: 2)
    let run = await HeldRun.start(on: runner)
    let totals = [100, 300, 20, 7, 1000, 3, 2048, 4096, 99_999, 64]
    for index in 0..<300 {
      let total = totals[index % totals.count]
      if index % 7 == 3 {
        run.reporter.reportIndeterminate(completed: index)
      } else {
        run.reporter.report(completed: total / 2, of: total)
      }
      harness.clock.advance(by: frame)
      let expected = (runner.state.fractionCompleted ?? 0)
      #expect(abs(progress.fractionCompleted - expected) < 1e-9, "frame \(index)")
      #expect(abs(parent.fractionCompleted - expected / 2) < 1e-9, "frame \(index)")
    }
    run.proceed.open()
    await runner.lastRunTask?.value
    #expect(parent.completedUnitCount == 2)
  }
}
