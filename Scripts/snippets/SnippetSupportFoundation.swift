// The names that the snippets of documents importing TaskProgressFoundation use without declaring
// them. They are Foundation's types, so they live apart from SnippetSupport, which imports no
// Foundation: only these documents see Foundation through a support module.
import Foundation

/// The address of the archive that the download examples download; never fetched here.
public let archiveURL = URL(string: "https://example.com/photos.zip")!

/// Where the download examples put the archive.
public let archiveFile = URL.temporaryDirectory.appending(path: "photos.zip")

/// Unpacks a downloaded archive: a millisecond here.
public func unpack(_ archive: URL) async throws {
  try await Task.sleep(for: .milliseconds(1))
}

/// An import written before Swift concurrency, which counts its work on `progress`: it counts
/// up to the progress's total, a millisecond per unit here.
public func legacyImport(progress: Progress) async throws {
  while progress.completedUnitCount < progress.totalUnitCount {
    try await Task.sleep(for: .milliseconds(1))
    progress.completedUnitCount += 1
  }
}

/// Unpacks an archive the way code written before Swift concurrency does, counting its work on
/// `progress`: up to the progress's total, a millisecond per unit here.
public func legacyUnpack(_ archive: URL, progress: Progress) async throws {
  try await legacyImport(progress: progress)
}
