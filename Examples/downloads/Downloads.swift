import ExampleSupport
import TaskProgress
import TaskProgressAdapters

/// `downloads`: a queue of simulated downloads, `--jobs` at a time, each a ``TaskRunner`` in one
/// ``TaskRunnerGroup``, drawn in a terminal by ``TerminalGroupRenderer``: a bar per download
/// under way and the total below them.
@main
struct Downloads {
  static func main() async {
    await ExampleMain.run { arguments in await run(arguments) }
  }

  @MainActor
  static func run(_ arguments: [String]) async -> ExitStatus {
    let options: Options
    do {
      options = try Options.parse(arguments)
    } catch {
      printError("\(error) (see 'downloads --help')")
      return .usage
    }
    if options.showsHelp {
      TerminalStream.standardOutput.write(Options.usage + "\n")
      return .finished
    }
    let queue = DownloadQueue(options: options)
    let console = TerminalConsole()
    if console.isInteractive {
      return await InteractiveSession(queue: queue, console: console).run()
    }
    // The session's signal handlers hold it weakly: they act while it runs and not after. Its
    // lifetime, spelled out, keeps the optimizer from warning that those references end up nil.
    let session = PipedSession(queue: queue)
    defer { withExtendedLifetime(session) {} }
    return await session.run()
  }
}
