public import TaskProgress

/// How an example program ends.
public enum ExitStatus: Int32, Sendable {
  /// Everything finished, or nothing ran.
  case finished = 0
  /// A run failed.
  case failed = 1
  /// A command line that cannot be run.
  case usage = 64
  /// A log file that cannot be created or written.
  case cannotWriteLog = 73
  /// Cancelled, by Ctrl-C (`SIGINT`) or a key.
  case interrupted = 130
  /// Standard output was closed by its reader: the status a process killed by SIGPIPE has.
  case readerGone = 141
  /// Ended by `SIGTERM` or `SIGHUP`.
  case terminated = 143

  /// The status a run's terminal state stands for.
  public init(_ state: RunState) {
    switch state.phase {
    case .failed: self = .failed
    case .cancelled: self = .interrupted
    case .idle, .running, .paused, .finished: self = .finished
    }
  }
}
