import ExampleSupport
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

/// `heavy-task`: the SwiftUI view of the hand-written AsyncStream pattern (a "Perform a Heavy
/// Task" button above a progress view; see the article "Migrating from the AsyncStream Pattern")
/// on one ``TaskRunner``, drawn in a terminal by ``TerminalRenderer``.
@main
struct HeavyTask {
  static func main() async {
    // A closed standard stream gets /dev/null, so that no file we open takes its number.
    TerminalConsole.reserveStandardStreams()
    // A reader that goes away (`heavy-task | head -1`) ends our writes, not the process.
    signal(SIGPIPE, SIG_IGN)
    let status = await run(Array(CommandLine.arguments.dropFirst()))
    exit(status.rawValue)
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
