import Foundation

// progress-bench: what progress reporting costs, TaskProgress side by side with the blog's
// AsyncStream pipeline, Foundation.Progress and a raw atomic store. See Benchmarks/README.md.

let options: Options
do {
  options = try Options(CommandLine.arguments.dropFirst())
} catch {
  printError("progress-bench: \(error)")
  exit(64)
}

if options.help {
  print(Options.usage)
} else if case (let benchCase, let n)? = options.child {
  var metrics = await benchCase.measureInThisProcess(n: n, quick: options.quick)
  metrics["peakRSS"] = peakResidentBytes()
  // A failure to encode ends the child with an error, which the parent reports.
  print(String(decoding: try JSONEncoder().encode(metrics), as: UTF8.self))
} else {
  exit(runBenchmark(options))
}

/// The command line: a full benchmark, or one measurement in a child process.
struct Options {
  /// Child processes per case and size.
  var runs = 5
  /// The smoke test: 2 runs, smaller sizes, shorter windows.
  var quick = false
  /// Whether (a) also runs at the larger size, which takes minutes and gigabytes.
  var streamAtLargeSize = false
  /// The cases to run, in the order of ``BenchCase/allCases``.
  var cases = BenchCase.allCases
  /// Where `latest.txt` and `latest.json` go: `Benchmarks/results`, wherever this runs from.
  var outputDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("results").path
  /// Whether to print the usage and exit.
  var help = false
  /// The one measurement a child process makes.
  var child: (BenchCase, Int)?

  /// The two sizes of the cases that scale with N; the targets compare the smaller with the larger.
  var sizes: [Int] { quick ? [100_000, 1_000_000] : [1_000_000, 10_000_000] }

  /// The text `--help` prints.
  static let usage = """
    USAGE: swift run -c release --package-path Benchmarks progress-bench [OPTIONS]

    Measures the cost of progress reporting, each measurement in a fresh child process, and
    writes the report and every measurement to latest.txt and latest.json.

      --cases LIST  Comma-separated case names or tags (default: all); a name also selects its
                    variants: 'reporter' runs reporter-x2 and -x8 too, 'many' runs many-bare,
                    'atomic' runs atomic-add, 'complete' runs complete-x8.
      --runs K      Child processes per case and size (default 5; at most 3 for many, many-bare).
      --quick       Smoke test: 2 runs, N = 100k and 1M, shorter idle and many-runner windows.
      --stream-10m  Also run (a) at the larger size (minutes and several GB).
      --out DIR     Where the results go (default: Benchmarks/results).
      -h, --help    Show this help.

    CASES:
    """
    + BenchCase.allCases.map { "\n  (\($0.tag)) \($0.rawValue): \($0.tagAndTitle.title)" }.joined()

  /// Parses the arguments, without the program name.
  init(_ arguments: ArraySlice<String>) throws(BenchError) {
    var rest = arguments
    func value(_ flag: String) throws(BenchError) -> String {
      guard let value = rest.popFirst() else { throw BenchError("\(flag) needs a value") }
      return value
    }
    var runs: Int?
    while let flag = rest.popFirst() {
      switch flag {
      case "-h", "--help": help = true
      case "--quick": quick = true
      case "--stream-10m": streamAtLargeSize = true
      case "--out": outputDirectory = try value(flag)
      case "--runs":
        runs = Int(try value(flag))
        guard (runs ?? 0) > 0 else { throw BenchError("--runs needs a positive whole number") }
      case "--cases":
        let names = try value(flag).split(separator: ",").map(String.init)
        if let unknown = names.first(where: { name in
          !BenchCase.allCases.contains { $0.isSelected(by: name) }
        }) {
          throw BenchError("unknown case '\(unknown)'; see --help")
        }
        cases = BenchCase.allCases.filter { benchCase in
          names.contains { benchCase.isSelected(by: $0) }
        }
      case "--child":
        // What the parent runs: `--child NAME N [--quick]`.
        guard let benchCase = BenchCase(rawValue: try value(flag)), let n = Int(try value(flag))
        else { throw BenchError("--child needs a case name and a size") }
        child = (benchCase, n)
      default:
        throw BenchError("unknown argument '\(flag)'; see --help")
      }
    }
    self.runs = runs ?? (quick ? 2 : 5)
  }
}

/// Measures every case in fresh child processes, round by round, prints the report and writes
/// it with every measurement; returns the exit status: 0 when every child process succeeded
/// (whatever the targets say), 1 when one failed, 73 when the results cannot be written.
///
/// Each round runs every case at every size once, in the same order, so that a slow spell on the
/// shared machine hits all cases alike and the ratios of one run stay comparable.
func runBenchmark(_ options: Options) -> Int32 {
  var machine = describeMachine()
  var jobs = options.cases.flatMap { benchCase in
    benchCase.sizes(options).map { Job(benchCase: benchCase, n: $0) }
  }
  let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
  for round in 1...options.runs {
    for index in jobs.indices where round <= jobs[index].benchCase.runs(options) {
      let (job, label) = (jobs[index], "[\(round)/\(options.runs)] \(jobs[index].label)")
      do {
        let output = try runProcess(
          executable,
          ["--child", job.benchCase.rawValue, "\(job.n)"] + (options.quick ? ["--quick"] : []))
        guard let metrics = try? JSONDecoder().decode(Metrics.self, from: Data(output.utf8)) else {
          throw BenchError("printed no measurement")
        }
        jobs[index].runs.append(metrics)
        // The cases measured per frame have no wall time: their median frame stands for it.
        let time = metrics["wall"] ?? metrics["frame"] ?? metrics["draw"]
        printError("\(label) \(job.benchCase.rawValue): \(Format.duration(time))")
      } catch {
        jobs[index].failures.append("\(error)")
        printError("\(label) \(job.benchCase.rawValue): FAILED, \(error)")
      }
    }
  }
  machine["load"] = "\(machine["load", default: "?"]) at start, \(loadAverage()) at end"

  let report = Report(options: options, machine: machine, jobs: jobs)
  print(report.text)
  do {
    let directory = URL(fileURLWithPath: options.outputDirectory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data((report.text + "\n").utf8).write(to: directory.appendingPathComponent("latest.txt"))
    try report.json().write(to: directory.appendingPathComponent("latest.json"))
    print("\nWritten: \(directory.path)/latest.txt and latest.json")
  } catch {
    printError("progress-bench: cannot write the results to \(options.outputDirectory): \(error)")
    return 73
  }
  return jobs.contains { !$0.failures.isEmpty } ? 1 : 0
}

/// Runs a program, stopping it after `timeout` seconds, and returns what it printed.
func runProcess(
  _ path: String, _ arguments: [String], timeout: Double = 1800
) throws(BenchError)
  -> String
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  let output = Pipe()
  process.standardOutput = output
  let exited = DispatchSemaphore(value: 0)
  process.terminationHandler = { _ in exited.signal() }
  do {
    try process.run()
  } catch {
    throw BenchError("cannot start \(path): \(error)")
  }
  // The output is a line or two, so the pipe never fills while the process runs.
  if exited.wait(timeout: .now() + timeout) == .timedOut {
    process.terminate()
    exited.wait()
    throw BenchError("timed out after \(Int(timeout)) s")
  }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  guard process.terminationReason == .exit, process.terminationStatus == 0 else {
    throw BenchError("ended with status \(process.terminationStatus)")
  }
  return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The machine the numbers were measured on, and how busy it was.
func describeMachine() -> [String: String] {
  let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
  let cpu = cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
  let swift = try? runProcess("/usr/bin/env", ["swift", "--version"], timeout: 60)
  return [
    "system": (try? runProcess("/usr/bin/env", ["uname", "-srm"], timeout: 60)) ?? "?",
    "cpu": cpu?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "?",
    "cores": "\(ProcessInfo.processInfo.activeProcessorCount)",
    "swift": swift?.split(separator: "\n").first.map(String.init) ?? "?",
    "date": Date().ISO8601Format(),
    "load": loadAverage(),
  ]
}

/// The load averages over 1, 5 and 15 minutes, from `/proc/loadavg`.
func loadAverage() -> String {
  let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
  return text.split(separator: " ").prefix(3).joined(separator: " ")
}

/// A command line that cannot run, or a child process that gave no measurement.
struct BenchError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}

/// Writes a line to standard error, so that standard output carries the report alone.
func printError(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}
