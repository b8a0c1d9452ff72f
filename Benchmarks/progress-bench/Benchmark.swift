import Foundation

/// The parent process: runs every case in fresh child processes, round by round, and reports.
///
/// Each round runs every case at every size once, in the same order, so that a slow spell on
/// the shared machine hits all cases alike and the ratios of one run stay comparable.
struct Benchmark {
  /// What to run.
  let options: BenchmarkOptions

  /// One child process to start: a case at a size.
  private struct Job {
    let benchCase: BenchCase
    let n: Int
  }

  /// The jobs of one round, in order: the baseline first, the idle case last.
  private var plan: [Job] {
    options.cases.flatMap { benchCase -> [Job] in
      let sizes =
        benchCase == .seed ? options.seedSizes : benchCase.scalesWithN ? options.sizes : [0]
      return sizes.map { Job(benchCase: benchCase, n: $0) }
    }
  }

  /// Runs the benchmark, prints the report and writes the JSON; returns the exit status.
  func run() -> Int32 {
    var machine = Machine.current()
    let launcher = ChildLauncher()
    let jobs = plan
    var results = jobs.map { CaseResult(benchCase: $0.benchCase, n: $0.n) }
    printError(
      "progress-bench: \(jobs.count) measurements x \(options.runs) runs, each in a child process")

    for round in 1...options.runs {
      for (index, job) in jobs.enumerated() {
        let label =
          "[\(round)/\(options.runs)] (\(job.benchCase.tag)) \(job.benchCase.rawValue)"
          + (job.benchCase.scalesWithN ? " N=\(Format.count(job.n))" : "")
        switch launcher.measure(job.benchCase, n: job.n, idleSeconds: options.idleSeconds) {
        case .success(let sample):
          results[index].samples.append(sample)
          printError("\(label): \(Format.duration(sample.wallNanoseconds))")
        case .failure(let failure):
          results[index].failures.append(failure.description)
          printError("\(label): FAILED, \(failure)")
        }
      }
    }

    machine.loadAverageAtEnd = Machine.loadAverage()
    let report = Report(options: options, machine: machine, results: results)
    print(report.text)
    do {
      try report.writeJSON(to: options.jsonPath)
      print("\nJSON: \(options.jsonPath)")
    } catch {
      printError("progress-bench: cannot write \(options.jsonPath): \(error)")
      return 73
    }
    return results.contains { !$0.failures.isEmpty } ? 1 : 0
  }
}

/// Writes one line to standard error.
func printError(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}
