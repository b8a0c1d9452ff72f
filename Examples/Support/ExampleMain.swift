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

/// What every example's `main` does around its run.
public enum ExampleMain {
  /// Runs `body` with the arguments that follow the program's name, and exits with the status
  /// it returns.
  ///
  /// ```swift
  /// @main
  /// struct Downloads {
  ///   static func main() async {
  ///     await ExampleMain.run { arguments in await run(arguments) }
  ///   }
  /// }
  /// ```
  ///
  /// Before `body`, as any command-line tool should:
  /// - a closed standard stream gets `/dev/null` (``TerminalConsole/reserveStandardStreams()``),
  ///   so that no file the tool opens takes its number;
  /// - `SIGPIPE` is ignored, so that a reader that goes away (`downloads | head -1`) ends the
  ///   tool's writes, which ``TerminalStream/isBroken`` then reports, and not the process.
  ///
  /// It runs on the main actor, as `main` does, before any other thread may open a file: run
  /// from the pool, the set-up raced the runtime's own threads, and a closed standard output
  /// got the number of a descriptor of Dispatch's instead of `/dev/null`.
  @MainActor
  public static func run(_ body: @MainActor ([String]) async -> ExitStatus) async -> Never {
    TerminalConsole.reserveStandardStreams()
    signal(SIGPIPE, SIG_IGN)
    let status = await body(Array(CommandLine.arguments.dropFirst()))
    exit(status.rawValue)
  }
}
