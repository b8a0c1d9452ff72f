// The names that the documentation's snippets use without declaring them, so that a snippet can
// stay a fragment of a program, as a reader sees it. Keep the list short and the names obvious: a
// snippet that needs anything else declares it.
import TaskProgress

/// The runner that fragments such as `runner.start { ... }` talk about.
@MainActor public let runner = TaskRunner()

/// The recorder that fragments such as `try recorder.expectPhases(...)` talk about.
@MainActor public let recorder = StateRecorder(observing: runner)

/// One of the `objects` of the heavy task: something whose `someTask()` takes a while.
public struct HeavyObject: Sendable {
  /// Creates an object.
  public init() {}

  /// The heavy task: a millisecond here.
  public func someTask() async throws {
    try await Task.sleep(for: .milliseconds(1))
  }
}

/// The objects of the heavy task.
public let objects = Array(repeating: HeavyObject(), count: 3)

/// A file that the import examples import.
public struct ImportFile: Sendable {
  /// The file's name.
  public let name: String

  /// The file's size in bytes.
  public var size: Int { 4_000 }

  /// The file's contents, in the pieces a hash reads it in.
  public var chunks: [FileChunk] { [FileChunk(count: 3_000), FileChunk(count: 1_000)] }
}

/// A piece of a file, as a hash reads it.
public struct FileChunk: Sendable {
  /// The piece's size in bytes.
  public let count: Int
}

/// Hashes one piece of a file.
public func hash(_ chunk: FileChunk) async throws {
  try await Task.sleep(for: .microseconds(10))
}

/// Hashes one file, reporting its bytes.
public func hash(_ file: ImportFile, reporter: TaskRunner.Reporter) async throws {
  reporter.report(completed: 0, of: file.size)
  for chunk in file.chunks {
    try await hash(chunk)
    reporter.complete(count: chunk.count)
    reporter.complete(bytes: chunk.count)
  }
}

/// Hashes every file, reporting on one reporter.
public func hashAll(_ files: [ImportFile], reporter: TaskRunner.Reporter) async throws {
  try await reporter.forEach(files, weight: \.size) { file, reporter in
    try await hash(file, reporter: reporter)
  }
}

/// Counts the lines of the files, reporting as it goes.
public func countLines(_ reporter: TaskRunner.Reporter) async throws -> Int {
  reporter.report(completed: 1, of: 1)
  return 42
}

/// The files that the import examples import.
public let files = [ImportFile(name: "a.txt"), ImportFile(name: "b.txt")]

/// Imports one file: a millisecond here.
public func importFile(_ file: ImportFile) async throws {
  try await Task.sleep(for: .milliseconds(1))
}

/// Finds the files to import.
public func scanFolder() async throws -> [ImportFile] {
  files
}

/// One step of an upload, 20 ms here; the README's quick start runs ten of them.
public func upload(_ index: Int) async throws {
  try await Task.sleep(for: .milliseconds(20))
}

/// Uploads one file in four parts, reporting each to its subprogress when given one.
public func upload(
  _ file: ImportFile, subprogress: consuming TaskRunner.Subprogress? = nil
) async throws {
  try await fourParts(subprogress: subprogress)
}

/// Four parts of a millisecond, each reported to the subprogress when given one.
private func fourParts(subprogress: consuming TaskRunner.Subprogress?) async throws {
  let reporter = subprogress?.start(totalCount: 4)
  for _ in 0..<4 {
    try await Task.sleep(for: .milliseconds(1))
    reporter?.complete(count: 1)
  }
}

/// The rows that a synchronous loop processes.
public let rows = Array(1...100)

/// Processes one row, synchronously: nothing here.
public func process(_ row: Int) {}

/// The chunks of a file that the result example counts the lines of.
public let chunks: [[UInt8]] = [Array("one\ntwo\n".utf8), Array("three\n".utf8)]

/// Downloads one file, reporting its bytes: four parts of a millisecond here.
public func download(_ file: ImportFile, reporter: TaskRunner.Reporter) async throws {
  for part in 1...4 {
    try await Task.sleep(for: .milliseconds(1))
    reporter.report(completed: part * 1_000, of: file.size)
  }
}

/// The number of steps of a loop: ten.
public let total = 10

/// One step of a loop of `total`: a millisecond here.
public func work(_ index: Int) async throws {
  try await Task.sleep(for: .milliseconds(1))
}

/// Crunches one row, synchronously and CPU-bound: nothing here.
public func crunch(_ row: Int) {}

/// Hashes one file: a millisecond here.
public func hash(_ file: ImportFile) async throws {
  try await Task.sleep(for: .milliseconds(1))
}

/// Hashes files, one unit of the subprogress each, when given one.
public func hashFiles(
  _ files: [ImportFile], subprogress: consuming TaskRunner.Subprogress? = nil
) async throws {
  let reporter = subprogress?.start(totalCount: files.count)
  for file in files {
    try await hash(file)
    reporter?.complete(count: 1)
  }
}

/// The address of a download, a plain string here; never fetched.
public let url = "https://example.com/archive.zip"

/// The addresses that the download examples download; never fetched.
public let urls = [url, "https://example.com/photos.zip"]

/// Downloads `url` in four parts, reporting each to its subprogress when given one.
public func download(
  _ url: String, subprogress: consuming TaskRunner.Subprogress? = nil
) async throws {
  try await fourParts(subprogress: subprogress)
}

/// The first stage of a run in stages: a download of four parts.
public func download(subprogress: consuming TaskRunner.Subprogress? = nil) async throws {
  try await download(url, subprogress: subprogress)
}

/// The second stage of a run in stages: parsing what was downloaded, in two parts.
public func parse(subprogress: consuming TaskRunner.Subprogress? = nil) async throws {
  let reporter = subprogress?.start(totalCount: 2)
  reporter?.complete(count: 2)
}
