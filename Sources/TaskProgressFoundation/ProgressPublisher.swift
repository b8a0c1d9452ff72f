public import Foundation
public import TaskProgress

extension TaskRunner {
  /// Makes a `Foundation.Progress` that stands for this runner's active run, or for its next
  /// run while none is active, kept in step with it on every frame.
  ///
  /// Hand it to code that takes a `Progress`: add it to a parent with
  /// `addChild(_:withPendingUnitCount:)`, show it in an `NSProgressIndicator` or a
  /// `ProgressView(_:)`, or return it from a `ProgressReporting` type.
  ///
  /// - Returns: A new progress, with no parent.
  public func makeProgress() -> Progress {
    makeProgressPublisher().progress
  }

  /// Makes and attaches the publisher of a new progress.
  func makeProgressPublisher() -> ProgressPublisher {
    let publisher = ProgressPublisher(runner: self)
    let token = attach(publisher)
    // The current state, delivered during `attach`, may have ended the progress already.
    if publisher.phase == .ended {
      token.cancel()
    } else {
      publisher.token = token
    }
    return publisher
  }
}

/// Keeps a `Progress` in step with the runner's run, as a renderer of the runner.
@MainActor
final class ProgressPublisher: ProgressRenderer {
  /// The progress handed out.
  let progress: Progress
  /// The runner, to cancel, pause and resume.
  private weak var runner: TaskRunner?
  /// The attachment, to end when the run does.
  var token: ObservationToken?
  /// Where the publisher is in the run it stands for.
  private(set) var phase = Phase.waiting
  /// Sets the progress's properties.
  let writer: PublishedProgressWriter
  /// Whether the run was paused when the publisher last saw it.
  private var runWasPaused = false
  /// The run's total count as of its last progress: what a finished progress counts to.
  private var runTotal: Int64?
  /// How many calls of the progress's handlers reached the main actor: what tests wait for.
  private(set) var handledCalls = 0
  /// Called after each call of the progress's handlers reached the main actor: what tests
  /// wait with.
  var didHandle: (() -> Void)?

  enum Phase: Equatable {
    /// Before the run it stands for began.
    case waiting
    /// The run is active.
    case bound
    /// The run ended.
    case ended
  }

  init(runner: TaskRunner) {
    self.runner = runner
    progress = Progress(parent: nil, userInfo: nil)
    writer = PublishedProgressWriter(progress)
    progress.isCancellable = true
    progress.isPausable = true
    // Foundation may call the handlers on any thread, at once or later; they hop to the main
    // actor and act on what the progress says then, so that a late call does nothing.
    progress.cancellationHandler = { @Sendable [weak self] in
      Task { @MainActor in self?.progressCancelled() }
    }
    progress.pausingHandler = { @Sendable [weak self] in
      Task { @MainActor in self?.progressPausedOrResumed() }
    }
    progress.resumingHandler = { @Sendable [weak self] in
      Task { @MainActor in self?.progressPausedOrResumed() }
    }
  }

  func render(_ update: ProgressUpdate) {
    let state = update.state
    switch phase {
    case .ended:
      return
    case .waiting:
      // The state of an earlier run is not this progress's.
      guard state.phase.isActive else { return }
      guard !progress.isCancelled else {
        end()  // cancelled before its run began: it stands for none
        return
      }
      phase = .bound
    case .bound:
      break
    }
    switch state {
    case .running(let progress), .paused(let progress):
      runTotal = progress.totalCount.map(Int64.init)
      writer.show(PublishedValues(progress))
      syncPause(paused: state.phase == .paused)
    case .finished:
      writer.show(PublishedValues.finished(total: runTotal))
      end()
    case .cancelled:
      end()
      progress.cancel()
    case .failed, .idle:
      end()
    }
  }

  func didDetach() {
    token = nil
    guard phase != .ended else { return }
    // The runner went away: no run will come, or the one under way was cancelled with it.
    phase = .ended
    progress.cancel()
  }

  private func end() {
    phase = .ended
    token?.cancel()
    token = nil
  }

  /// Pauses or resumes the progress when the run pauses or resumes.
  ///
  /// Its handlers then find the run as it is. Only a change of the run's phase does: a pause
  /// made on the progress, whose handler has not reached the runner yet, is left alone.
  private func syncPause(paused: Bool) {
    guard paused != runWasPaused else { return }
    runWasPaused = paused
    if paused, !progress.isPaused {
      progress.pause()
    } else if !paused, progress.isPaused {
      progress.resume()
    }
  }

  private func progressCancelled() {
    handledCalls += 1
    defer { didHandle?() }
    guard phase != .ended, progress.isCancelled else { return }
    if phase == .bound {
      runner?.cancel()
    } else {
      end()  // cancelled before its run began: it stands for none
    }
  }

  private func progressPausedOrResumed() {
    handledCalls += 1
    defer { didHandle?() }
    guard phase == .bound, let runner else { return }
    if progress.isPaused {
      runner.pause()
    } else {
      runner.resume()
    }
  }
}

/// Sets a published progress's properties, one step at a time.
final class PublishedProgressWriter {
  /// The progress written.
  let progress: Progress
  /// What the progress shows.
  private(set) var values = PublishedValues.notStarted
  /// Called after each property set, with the values the progress shows then: what tests
  /// watch.
  var didSet: ((PublishedValues) -> Void)?

  /// Takes over `progress`, and makes it show a progress that has not begun.
  init(_ progress: Progress) {
    self.progress = progress
    progress.totalUnitCount = values.total
    progress.completedUnitCount = values.completed
  }

  /// Sets the progress's properties to `target`, in an order that never spikes a parent.
  func show(_ target: PublishedValues) {
    for step in values.steps(to: target) {
      switch step {
      case .total(let total):
        progress.totalUnitCount = total
      case .completed(let completed):
        progress.completedUnitCount = completed
      }
      values = values.applying(step)
      didSet?(values)
    }
  }
}
