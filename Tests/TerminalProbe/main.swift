// A program that draws a TerminalRenderer bar on standard output and leaves SIGINT, SIGTERM and
// SIGHUP at their default disposition, so that the renderer's own guard is what restores the
// cursor when a signal ends it. HeavyTaskTests runs it on a pseudo-terminal.
import TaskProgress
import TaskProgressAdapters

@MainActor
func main() async {
  let runner = TaskRunner(animation: .instant)
  let token = runner.attach(TerminalRenderer(label: "probe"))
  await runner.run { reporter in
    for step in 1...6_000 {
      try await Task.sleep(for: .milliseconds(10))
      reporter.report(completed: step, of: 6_000)
    }
  }
  token.cancel()
}

await main()
