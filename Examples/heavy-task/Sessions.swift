import ExampleSupport
import TaskProgress
import TaskProgressAdapters

/// What the two sessions share: the runner, its work, and the log.
@MainActor
struct HeavyTaskWork {
  let options: Options
  let runner: TaskRunner
  /// Set when the log could not be written; the session stops with status 73.
  var logFailure: (@MainActor (LogFileError) -> Void)?

  init(options: Options) {
    self.options = options
    let animation: ProgressAnimation =
      switch options.curve {
      case .linear: ProgressAnimation(curve: .linear)
      case .easeIn: ProgressAnimation(curve: .easeIn)
      case .easeOut: ProgressAnimation(curve: .easeOut)
      case .easeInOut: ProgressAnimation(curve: .easeInOut)
      case .spring: .default
      case .none: .instant
      }
    runner = TaskRunner(animation: animation)
  }

  /// Presses the button: performs every object's `someTask()`, as the AsyncStream pattern's
  /// `performTask()` does, and says which object is under way (`Processing object 12 of 50`).
  ///
  /// `--jobs` objects at a time, started in order; 1 performs them one after another. Only an
  /// object whose task returned counts as done, so a run that fails at object 30 ends at 29.
  func performTask() {
    let (duration, failAt) = (Duration.milliseconds(options.delayMilliseconds), options.failAt)
    let (count, jobs) = (options.items, options.jobs)
    @Sendable func object(at index: Int) -> HeavyObject {
      HeavyObject(number: index + 1, duration: duration, fails: index + 1 == failAt)
    }
    runner.start { reporter in
      reporter.report(completed: 0, of: count)
      guard jobs > 1 else {
        // `0..<count`, not `1...count`: an empty run is fine, where a `1...count` loop traps.
        for object in (0..<count).lazy.map(object(at:)) {
          // Stops here once the run is cancelled, and waits here while it is paused.
          try await reporter.checkpoint()
          reporter.report(message: "Processing object \(object.number) of \(count)")
          try await object.someTask()
          reporter.complete(count: 1)
        }
        return
      }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for object in (0..<count).lazy.map(object(at:)) {
          if object.number > jobs {
            try await group.next()  // the first error fails the run and cancels the others
          }
          group.addTask {
            // As above, in the object's own task, so that the loop goes on collecting the
            // objects under way while paused, and their first error ends the run at once.
            try await reporter.checkpoint()
            reporter.report(message: "Processing object \(object.number) of \(count)")
            try await object.someTask()
            reporter.complete(count: 1)
          }
        }
        try await group.waitForAll()
      }
    }
  }
}

extension HeavyTaskWork {
  /// The line standard error gets when a run fails: what went wrong, and at which item.
  ///
  /// ```
  /// the heavy task failed at item 3 of 5: item 3 threw an error (as --fail-at asked)
  /// ```
  func failureMessage(for error: any Error) -> String {
    let reason = String(describing: error).map { $0.isNewline ? " " : $0 }
    guard case .itemFailed(let number) = error as? HeavyTaskError else {
      return "the heavy task failed: " + String(reason)
    }
    return "the heavy task failed at item \(number) of \(options.items): " + String(reason)
  }
}

/// Standard error, for the one-line messages of a failure.
@MainActor
func printError(_ message: String) {
  TerminalStream.standardError.write("heavy-task: \(message)\n")
}

/// Piped or in CI: the button presses itself once and the progress goes out as plain lines.
@MainActor
final class PipedSession {
  private let work: HeavyTaskWork
  private var status: ExitStatus?

  init(work: HeavyTaskWork) {
    self.work = work
  }

  func run(log: LogFileRenderer?) async -> ExitStatus {
    let output = TerminalStream.standardOutput
    let renderer = TerminalRenderer(label: "Heavy task", output: output)
    let tokens = [work.runner.attach(renderer)] + (log.map { [work.runner.attach($0)] } ?? [])
    defer { tokens.forEach { $0.cancel() } }
    log?.onError = { [weak self] error in self?.stop(.cannotWriteLog, because: error.description) }
    // Signals only: standard input may be the terminal, but the piped session reads no keys.
    let console = TerminalConsole(input: nil, output: output)
    defer { console.restore() }
    let listener = console.listenForSignals { [weak self] status in self?.stop(status) }
    defer { listener.cancel() }
    output.write("[ \(Screen.buttonTitle) ] pressed\n")
    work.performTask()
    // A reader that went away (`heavy-task | head -1`) wants no more: stop the work too.
    let readerWatch = work.runner.observe { [weak self] _ in
      if output.isBroken { self?.stop(.readerGone) }
    }
    defer { readerWatch.cancel() }
    let recorder = StateRecorder(observing: work.runner)
    let final = await recorder.waitForTerminalState() ?? work.runner.state
    if let status {
      return status  // its reason, if it has one, is already on standard error
    }
    // The plain lines say so too, but standard output may be a file or a pipe nobody watches:
    // the failure also goes where every other error goes.
    if let error = final.error {
      printError(work.failureMessage(for: error))
    }
    return ExitStatus(final)
  }

  private func stop(_ status: ExitStatus, because message: String? = nil) {
    guard self.status == nil else { return }
    self.status = status
    if let message { printError(message) }
    work.runner.cancel()
  }
}

/// On a terminal: the screen with the button and the progress view, driven by the keyboard.
@MainActor
final class InteractiveSession {
  private let work: HeavyTaskWork
  private let output = TerminalStream.standardOutput
  private let console: TerminalConsole
  private let screen: Screen
  /// The last run's final line, as a plain renderer writes it, to print after the screen closes.
  private let summary = SummaryOutput()
  /// The status of the last run that ended.
  private var status: ExitStatus = .finished
  /// A status that ends the session whatever the run does meanwhile (a log that cannot be
  /// written, a signal): the run's cancellation, delivered later, does not overwrite it.
  private var forcedStatus: ExitStatus?
  /// Why the session ended early, printed once the screen is restored.
  private var exitMessage: String?
  /// Why the last run failed, if it did: printed once the screen is restored, when that failure
  /// is what the exit status reports.
  private var lastFailure: String?
  private var quit: CheckedContinuation<Void, Never>?
  private var tokens: [ObservationToken] = []

  init(work: HeavyTaskWork, console: TerminalConsole) {
    self.work = work
    self.console = console
    self.screen = Screen(output: output)
  }

  func run(log: LogFileRenderer?) async -> ExitStatus {
    console.begin(onAlternateScreen: true)
    screen.redraw()
    tokens.append(work.runner.observe { [weak self] state in self?.stateChanged(state) })
    tokens.append(
      work.runner.attach(TerminalRenderer(label: "Heavy task", output: screen.progressView)))
    tokens.append(work.runner.attach(TerminalRenderer(label: "Heavy task", output: summary)))
    if let log {
      tokens.append(work.runner.attach(log))
      log.onError = { [weak self] error in self?.end(.cannotWriteLog, because: error.description) }
    }
    let events = console.events
    let listener = Task { [weak self] in
      for await event in events { self?.handle(event) }
    }
    await withCheckedContinuation { quit = $0 }
    listener.cancel()
    tokens.forEach { $0.cancel() }
    console.restore()
    if let line = summary.lastLine {
      output.write(line + "\n")
    }
    if let exitMessage {
      printError(exitMessage)
    } else if forcedStatus == nil, status == .failed, let lastFailure {
      printError(lastFailure)
    }
    return forcedStatus ?? status
  }

  private func handle(_ event: ConsoleEvent) {
    switch event {
    case .key(.enter):
      if !work.runner.isActive {
        screen.progressView.beginRun()
        work.performTask()
      }
    case .key("p"), .key("P"):
      // Pausing does nothing unless a run is running, resuming unless one is paused.
      if work.runner.isPaused {
        work.runner.resume()
      } else {
        work.runner.pause()
      }
    case .key("c"), .key("C"):
      work.runner.cancel()
    case .key("q"), .key("Q"), .endOfInput:
      end(nil)
    case .interrupt:
      end(.interrupted)
    case .terminate, .hangUp:
      end(.terminated)
    case .resize:
      screen.redraw()
    case .key:
      break
    }
  }

  private func stateChanged(_ state: RunState) {
    screen.phase = state.phase
    if state.phase.isTerminal {
      status = ExitStatus(state)
      lastFailure = state.error.map(work.failureMessage(for:))
    }
  }

  /// Cancels any run and ends the session with `status`, or, if `nil`, with the status of the
  /// last run (the one cancelled now, if one was running).
  private func end(_ status: ExitStatus?, because message: String? = nil) {
    guard let quit else { return }
    self.quit = nil
    forcedStatus = status
    exitMessage = message
    work.runner.cancel()  // the renderers draw `cancelled` before the screen closes
    quit.resume()
  }
}

/// A plain terminal output that keeps only the last line written: the run's final line.
@MainActor
final class SummaryOutput: TerminalOutput {
  private(set) var lastLine: String?
  private var pending = ""

  var capabilities: TerminalCapabilities { .plain }
  var columns: Int { 80 }

  func write(_ text: String) {
    pending += text
    while let newline = pending.firstIndex(of: "\n") {
      let line = String(pending[..<newline])
      pending = String(pending[pending.index(after: newline)...])
      if !line.isEmpty { lastLine = line }
    }
  }
}
