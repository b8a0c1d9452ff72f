import Foundation

/// What a child process does: measure one case, then print it as one JSON line.
enum ChildMeasurement {
  /// The size of the untimed warm-up run: a tenth of the measured size, and at least 10,000.
  ///
  /// It pages in the code, starts the thread pool and lets the allocators reach the memory the
  /// measured run will reuse, for every case alike, so that the measurement is the steady state
  /// (a first run of 1M no-op items in a fresh process is about a third slower than the next).
  static func warmUpSize(for n: Int) -> Int {
    max(10_000, n / 10)
  }

  /// Measures `options.benchCase` `options.repetitions` times after a warm-up; returns the
  /// repetition with the median wall time and the process's peak memory.
  @MainActor
  static func run(_ options: ChildOptions) async -> Sample {
    if options.benchCase.scalesWithN {
      _ = await Cases.measure(
        options.benchCase, n: min(options.n, warmUpSize(for: options.n)),
        idleSeconds: options.idleSeconds)
    }
    var samples: [Sample] = []
    for _ in 0..<options.repetitions {
      samples.append(
        await Cases.measure(options.benchCase, n: options.n, idleSeconds: options.idleSeconds))
    }
    samples.sort { $0.wallNanoseconds < $1.wallNanoseconds }
    var sample = samples[samples.count / 2]
    sample.peakRSSBytes = ProcessMemory.peakResidentBytes() ?? 0
    return sample
  }

  /// The line a child prints: the sample as compact JSON.
  static func jsonLine(_ sample: Sample) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(sample), as: UTF8.self)
  }
}

/// This process's memory, as Linux reports it in `/proc/self/status`.
enum ProcessMemory {
  /// The peak resident set size (`VmHWM`), in bytes.
  static func peakResidentBytes() -> Int? {
    statusField("VmHWM")
  }

  /// A `kB` field of `/proc/self/status`, in bytes.
  private static func statusField(_ name: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return nil
    }
    for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
      let fields = line.split { $0 == " " || $0 == "\t" }
      guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
      return kilobytes * 1024
    }
    return nil
  }
}

/// Why a child process gave no sample.
struct ChildFailure: Error, CustomStringConvertible {
  var description: String
}

/// Starts fresh copies of this executable, one per measurement, so that each case's peak
/// memory is its own and no case inherits another's heap, threads or caches.
struct ChildLauncher {
  /// The executable to start: this one.
  let executable: URL
  /// How long a child may run before it is stopped.
  var timeout: Duration = .seconds(30 * 60)

  /// Finds this executable through `/proc/self/exe`, or the path it was started with.
  init() {
    let path =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    executable = URL(fileURLWithPath: path)
  }

  /// Runs `--case NAME --n N --repeat R --idle-seconds S` in a child and decodes the JSON line
  /// it prints.
  func measure(
    _ benchCase: BenchCase, n: Int, idleSeconds: Double
  ) -> Result<Sample, ChildFailure> {
    let process = Process()
    process.executableURL = executable
    process.arguments =
      [
        "--case", benchCase.rawValue, "--repeat", String(benchCase.repetitionsPerChild),
        "--idle-seconds", String(idleSeconds),
      ] + (benchCase.scalesWithN ? ["--n", String(n)] : [])
    let output = Pipe()
    process.standardOutput = output
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    do {
      try process.run()
    } catch {
      return .failure(ChildFailure(description: "cannot start \(executable.path): \(error)"))
    }
    let seconds = Double(timeout.components.seconds)
    if exited.wait(timeout: .now() + seconds) == .timedOut {
      process.terminate()
      exited.wait()
      return .failure(ChildFailure(description: "\(benchCase.rawValue) N=\(n) timed out"))
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
      return .failure(
        ChildFailure(
          description:
            "\(benchCase.rawValue) N=\(n) exited with status \(process.terminationStatus)"))
    }
    let text = String(decoding: data, as: UTF8.self)
    guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
      return .failure(ChildFailure(description: "\(benchCase.rawValue) N=\(n) printed no result"))
    }
    do {
      return .success(try JSONDecoder().decode(Sample.self, from: Data(line.utf8)))
    } catch {
      return .failure(
        ChildFailure(description: "\(benchCase.rawValue) N=\(n) printed bad JSON: \(error)"))
    }
  }
}

/// The samples of one case at one size, over all runs.
struct CaseResult {
  /// The case.
  let benchCase: BenchCase
  /// The size.
  let n: Int
  /// One sample per successful run.
  var samples: [Sample] = []
  /// The runs whose child failed, with why.
  var failures: [String] = []

  /// The median of a measurement over the runs, or `nil` without samples.
  func median(_ value: (Sample) -> Double?) -> Double? {
    Statistics.median(samples.compactMap(value))
  }

  /// The largest value of a measurement over the runs.
  func worst(_ value: (Sample) -> Double?) -> Double? {
    samples.compactMap(value).max()
  }

  /// How far the wall times spread: (max - min) / median.
  var wallSpread: Double? {
    let walls = samples.map(\.wallNanoseconds)
    guard let median = Statistics.median(walls), median > 0, let low = walls.min(),
      let high = walls.max()
    else { return nil }
    return (high - low) / median
  }
}

/// Small statistics over runs.
enum Statistics {
  /// The median: the middle value, or the mean of the two middle values.
  static func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2)
      ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
  }
}
