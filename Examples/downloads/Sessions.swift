import ExampleSupport
import TaskProgress
import TaskProgressAdapters

/// Standard error, for the one-line messages of a failure.
@MainActor
func printError(_ message: String) {
  TerminalStream.standardError.write("downloads: \(message)\n")
}

extension DownloadQueue {
  /// `8 files, 468.2 MB, 3 at a time`: what a run of the queue downloads.
  var plan: String {
    let files = options.count == 1 ? "1 file" : "\(options.count) files"
    let jobs = min(options.jobs, options.count)
    return "\(files), \(ProgressUnit.bytes.format(totalSize)), \(jobs) at a time"
  }
}

/// Piped or in CI: the downloads start at once and the progress goes out as plain lines.
@MainActor
final class PipedSession {
  private let queue: DownloadQueue
  private var status: ExitStatus?

  init(queue: DownloadQueue) {
    self.queue = queue
  }

  func run() async -> ExitStatus {
    let output = TerminalStream.standardOutput
    let renderer = TerminalGroupRenderer(unit: .bytes, output: output)
    renderer.print("Downloading \(queue.plan)")
    let token = queue.group.attach(renderer)
    // Signals only: standard input may be the terminal, but the piped session reads no keys.
    let console = TerminalConsole(input: nil, output: output)
    defer { console.restore() }
    let listener = console.listenForSignals { [weak self] status in self?.stop(status) }
    defer { listener.cancel() }
    queue.start()
    // A reader that went away (`downloads | head -1`) wants no more: stop the downloads too.
    let readerWatch = queue.group.observe { [weak self] _ in
      if output.isBroken { self?.stop(.readerGone) }
    }
    defer { readerWatch.cancel() }
    let outcome = await queue.waitForEnd()
    token.cancel()
    if let status {
      return status
    }
    // The plain lines say so too, but standard output may be a file or a pipe nobody watches:
    // the failure also goes where every other error goes.
    if !outcome.wasCancelled, let message = queue.failureMessage() {
      printError(message)
    }
    return outcome.status
  }

  private func stop(_ status: ExitStatus) {
    guard self.status == nil else { return }
    self.status = status
    queue.cancelAll()
  }
}

/// On a terminal: the bars below the lines the session prints, driven by the keyboard.
///
/// ```
/// downloads  8 files, 693 MB, 3 at a time
/// Enter start · q quit
/// c cancel all · q quit
/// dataset-1.csv.gz ▕██████████▏ 100%  17.5 MB / 17.5 MB  done in 0.3s
/// dataset-2.csv.gz ▕██        ▏  28%  31.4 MB / 111 MB  41.9 MB/s  ETA 0:02
/// dataset-3.csv.gz ▕█████▍    ▏  71%  34.0 MB / 47.4 MB  45.3 MB/s  ETA 0:01
/// lecture-4.mp4    ▕████▊     ▏  85%  15.1 MB / 17.6 MB  36.9 MB/s  ETA 0:01
/// Total            ▕██▌         ▏  14%  98.0 MB / 693 MB  3 running, 4 waiting, 1 finished
/// ```
///
/// The session writes on the normal screen, not the alternate one, so that what it leaves stays
/// in the scrollback. Each line it prints says what the keys do now (the renderer turns escape
/// sequences in printed text into spaces, so the hints are plain); the renderer keeps the bars of
/// the downloads under way and the total at the bottom, and writes each ended download's last
/// line above them. Once a run has ended, the total stays where it was and the session prints how
/// the run ended below it.
@MainActor
final class InteractiveSession {
  private let queue: DownloadQueue
  private let output = TerminalStream.standardOutput
  private let console: TerminalConsole
  private let renderer: TerminalGroupRenderer
  /// The status of the last run that ended.
  private var status: ExitStatus = .finished
  /// A status that ends the session whatever the run does meanwhile (a signal, Ctrl-C).
  private var forcedStatus: ExitStatus?
  /// Why the last run failed, if it did: printed once the terminal is restored, when that
  /// failure is what the exit status reports.
  private var lastFailure: String?
  private var quit: CheckedContinuation<Void, Never>?
  private var tokens: [ObservationToken] = []

  /// The keys and what each does, while the queue waits and while it runs.
  private static let idleKeys = [("Enter", "start"), ("q", "quit")]
  private static let runningKeys = [("c", "cancel all"), ("q", "quit")]
  private static let endedKeys = [("Enter", "start again"), ("q", "quit")]

  init(queue: DownloadQueue, console: TerminalConsole) {
    self.queue = queue
    self.console = console
    self.renderer = TerminalGroupRenderer(unit: .bytes, output: output)
  }

  func run() async -> ExitStatus {
    console.begin(onAlternateScreen: false)
    printLine("downloads  " + queue.plan)
    printHint(Self.idleKeys)
    tokens.append(queue.group.attach(renderer))
    queue.onEnd = { [weak self] outcome in self?.runEnded(outcome) }
    let events = console.events
    let listener = Task { [weak self] in
      for await event in events { self?.handle(event) }
    }
    await withCheckedContinuation { quit = $0 }
    listener.cancel()
    // The cancelled downloads' last lines and the total are drawn before the terminal is
    // restored: the run ends once the group has settled and its renderers have drawn that.
    _ = await queue.waitForEnd()
    tokens.forEach { $0.cancel() }
    renderer.restoreTerminal()
    console.restore()
    if forcedStatus == nil, status == .failed, let lastFailure {
      printError(lastFailure)
    }
    return forcedStatus ?? status
  }

  private func handle(_ event: ConsoleEvent) {
    switch event {
    case .key(.enter):
      if !queue.isActive {
        printHint(Self.runningKeys)
        queue.start()
      }
    case .key("c"), .key("C"):
      queue.cancelAll()
    case .key("q"), .key("Q"), .endOfInput:
      end(nil)
    case .interrupt:
      end(.interrupted)
    case .terminate, .hangUp:
      end(.terminated)
    case .key, .resize:
      break  // a queue of downloads is cancelled, not paused; the renderer follows the width
    }
  }

  private func runEnded(_ outcome: DownloadQueue.Outcome) {
    status = outcome.status
    lastFailure = queue.failureMessage()
    guard quit != nil else { return }  // quitting: the terminal is restored next
    let summary =
      outcome.wasCancelled
      ? "Cancelled: \(outcome.description)."
      : outcome.failed == 0 ? "All downloads finished." : outcome.description.capitalizedFirst + "."
    printHint(Self.endedKeys, after: summary)
  }

  /// Cancels the downloads and ends the session with `status`, or, if `nil`, with the status of
  /// the last run (the one cancelled now, if one was under way).
  private func end(_ status: ExitStatus?) {
    guard let quit else { return }
    self.quit = nil
    forcedStatus = status
    queue.cancelAll()  // the renderer draws the cancelled downloads before the terminal closes
    quit.resume()
  }

  /// Prints the keys that act now and what each does (`c cancel all · q quit`), after `text`.
  private func printHint(_ keys: [(key: String, action: String)], after text: String? = nil) {
    let dot = output.capabilities.supportsUnicode ? "·" : "-"
    let hint = keys.map { "\($0.key) \($0.action)" }.joined(separator: " \(dot) ")
    guard let text else {
      printLine(hint)
      return
    }
    // On one line where it fits, else the hint on a line of its own, so that it is never cut.
    let line = text + "  " + hint
    if line.count < output.columns {
      printLine(line)
    } else {
      printLine(text)
      printLine(hint)
    }
  }

  /// Prints a line above the bars, cut to the terminal's width so that it never wraps.
  private func printLine(_ line: String) {
    renderer.print(String(line.prefix(max(output.columns - 1, 1))))
  }
}

extension String {
  /// The text with its first letter in upper case: `6 finished` stays, `cancelled` becomes
  /// `Cancelled`.
  fileprivate var capitalizedFirst: String {
    prefix(1).uppercased() + dropFirst()
  }
}
