// A program that draws a TerminalRenderer bar where it draws by default, standard error, and leaves SIGINT, SIGTERM and
// SIGHUP at their default disposition, so that the renderer's own guard is what restores the
// cursor when a signal ends it. HeavyTaskTests runs it on a pseudo-terminal.
//
// With an argument, it ends the bar in the middle of the run in one of these ways, then prints
// "probe: over" and exits with status 0:
// - `detach`: cancels the renderer's token;
// - `release`: lets go of the runner;
// - `exit`: calls `exit(0)` while the bar is drawn.
//
// Or it hands the signals to a TerminalConsole, as a program that handles them itself:
// - `console-exit`: listens to the console's events and calls `exit(130)` on `.interrupt`;
// - `console-raise`: on `.interrupt`, restores the console and sends itself SIGINT again;
// - `console-raw`: puts the terminal in raw mode with the console, listens to nothing, and
//   waits for a signal to end it.
import TaskProgress
import TaskProgressAdapters

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(WASILibc)
import WASILibc
#elseif os(Windows)
import ucrt
#else
#error("Unsupported platform")
#endif

/// Reports step after step, until cancelled.
@concurrent
func work(_ reporter: TaskRunner.Reporter) async throws {
  for step in 1...6_000 {
    try await Task.sleep(for: .milliseconds(10))
    reporter.report(completed: step, of: 6_000)
  }
}

/// Waits until `runner` has shown some progress.
@MainActor
func waitForProgress(of runner: TaskRunner) async {
  while (runner.state.progress?.completedCount ?? 0) < 20 {
    try? await Task.sleep(for: .milliseconds(10))
  }
}

/// Draws a bar with the signals handed to a console, and ends as `mode` says.
@MainActor
func mainWithConsole(_ mode: String) async {
  let runner = TaskRunner(animation: .instant)
  runner.attach(TerminalRenderer(label: "probe"))
  let console = TerminalConsole()
  if mode == "console-raw" {
    console.begin()
    await runner.run(work)  // about a minute: the test's signal ends it first
    exit(1)
  }
  let events = console.events
  runner.start(work)
  for await event in events where event == .interrupt {
    if mode == "console-exit" {
      exit(130)  // nothing restored by hand: the exit handler shows the cursor
    }
    console.restore()
    kill(getpid(), SIGINT)
    // Under ThreadSanitizer the signal waits for a safe point, such as a blocking call: wait for
    // it here rather than return from main first. It never takes the 10 s.
    sleep(10)
    exit(3)
  }
}

@MainActor
func main() async {
  let mode = CommandLine.arguments.dropFirst().first
  if let mode, mode.hasPrefix("console-") {
    await mainWithConsole(mode)
    return
  }
  var runner: TaskRunner? = TaskRunner(animation: .instant)
  let token = runner?.attach(TerminalRenderer(label: "probe"))
  switch mode {
  case "detach":
    runner?.start(work)
    await waitForProgress(of: runner!)
    token?.cancel()
  case "release":
    runner?.start(work)
    await waitForProgress(of: runner!)
    runner = nil
  case "exit":
    runner?.start(work)
    await waitForProgress(of: runner!)
    exit(0)
  default:
    await runner?.run(work)
    return
  }
  try? await Task.sleep(for: .milliseconds(100))
  print("probe: over")
  withExtendedLifetime(runner) {}
}

await main()
