import ExampleSupport
import TaskProgress
import TaskProgressAdapters

/// `heavy-task`: the SwiftUI view of the hand-written AsyncStream pattern (a "Perform a Heavy
/// Task" button above a progress view; see the article "Migrating from the AsyncStream Pattern")
/// on one ``TaskRunner``, drawn in a terminal by ``TerminalRenderer``.
@main
struct HeavyTask {
  static func main() async {
    await ExampleMain.run { arguments in await run(arguments) }
  }

  @MainActor
  static func run(_ arguments: [String]) async -> ExitStatus {
    let options: Options
    do {
      options = try Options.parse(arguments)
    } catch {
      printError("\(error) (see 'heavy-task --help')")
      return .usage
    }
    if options.showsHelp {
      TerminalStream.standardOutput.write(Options.usage + "\n")
      return .finished
    }
    var log: LogFileRenderer?
    if let path = options.logPath {
      do {
        log = try LogFileRenderer(path: path, label: "heavy-task")
      } catch {
        printError(error.description)
        return .cannotWriteLog
      }
    }
    let work = HeavyTaskWork(options: options)
    let console = TerminalConsole()
    if console.isInteractive {
      return await InteractiveSession(work: work, console: console).run(log: log)
    }
    return await PipedSession(work: work).run(log: log)
  }
}
