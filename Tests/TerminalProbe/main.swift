// A program that draws a TerminalRenderer bar where it draws by default, standard error, and leaves SIGINT, SIGTERM and
// SIGHUP at their default disposition, so that the renderer's own guard is what restores the
// cursor when a signal ends it. HeavyTaskTests runs it on a pseudo-terminal.
//
// With an argument, it ends the bar in the middle of the run in one of these ways, then prints
// "probe: over" and exits with status 0:
// - `detach`: cancels the renderer's token;
// - `release`: lets go of the runner;
// - `exit`: calls `exit(0)` while the bar is drawn.
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

@MainActor
func main() async {
  let mode = CommandLine.arguments.dropFirst().first
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
