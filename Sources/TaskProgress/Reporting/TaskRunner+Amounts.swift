extension TaskRunner.Reporter {
  // MARK: - Bytes

  /// Adds `bytes` to the bytes this reporter's work went through: safe from many tasks at once.
  ///
  /// Bytes are counted apart from the units that weight the fraction, and summed over every
  /// reporter of the run into ``RunProgress/completedByteCount``, which the terminal bar, the
  /// log and the rate show. So a run whose stages are weighted by their share of the work can
  /// still show bytes:
  ///
  /// ```swift
  /// runner.start { reporter in
  ///   reporter.report(totalCount: 100)
  ///   let scan = reporter.subprogress(assigningCount: 10).start(totalCount: 1)
  ///   let sizes = files.map(\.size)
  ///   reporter.expect(bytes: sizes.reduce(0, +))  // the whole run's total, 1.05 GB
  ///   scan.complete(count: 1)
  ///   let hashing = reporter.subprogress(assigningCount: 90).start(totalCount: files.count)
  ///   for file in files {
  ///     for chunk in file.chunks {
  ///       try await hash(chunk)
  ///       hashing.complete(bytes: chunk.count)  // "117 MB / 1.05 GB  52 MB/s"
  ///     }
  ///     hashing.complete(count: 1)
  ///   }
  /// }
  /// ```
  ///
  /// The bytes a reporter counts reach the run's sums also after the reporter's child finished:
  /// they are the bytes the work went through. Negative counts count as 0. Each call is a few
  /// atomic adds, one per level of the tree, with no lock: count bytes per chunk or per file,
  /// not per byte.
  public func complete(bytes: Int) {
    node.count(.completedBytes, adding: max(bytes, 0))
  }

  /// Adds `bytes` to the bytes this reporter's work will go through in all: what a scan that
  /// finds the files calls for each, or a download when it learns its size.
  ///
  /// The totals of every reporter of the run are summed into ``RunProgress/totalByteCount``.
  /// Negative counts count as 0.
  public func expect(bytes: Int) {
    node.count(.totalBytes, adding: max(bytes, 0))
  }

  /// Sets the bytes this reporter's work went through, replacing what it counted with
  /// ``complete(bytes:)``, and, when `totalBytes` is given, its total of bytes, replacing what it
  /// gave with ``expect(bytes:)``.
  ///
  /// ```swift
  /// runner.start { reporter in
  ///   // A download that reports its own position, 1 kB at a time:
  ///   for received in stride(from: 0, through: 4_000, by: 1_000) {
  ///     reporter.report(completedBytes: received, of: 4_000)
  ///   }
  /// }
  /// ```
  ///
  /// Only this reporter's own counts are replaced; the run's sums move by the change. Negative
  /// counts count as 0.
  public func report(completedBytes: Int, of totalBytes: Int? = nil) {
    if let totalBytes {
      node.count(.totalBytes, setting: max(totalBytes, 0))
    }
    node.count(.completedBytes, setting: max(completedBytes, 0))
  }

  // MARK: - Files

  /// Adds `files` to the files this reporter's work is done with: safe from many tasks at once.
  ///
  /// Files are summed over every reporter of the run into ``RunProgress/completedFileCount``,
  /// as bytes are (see ``complete(bytes:)``). Negative counts count as 0.
  public func complete(files: Int) {
    node.count(.completedFiles, adding: max(files, 0))
  }

  /// Adds `files` to the files this reporter's work will go through in all.
  ///
  /// Negative counts count as 0.
  public func expect(files: Int) {
    node.count(.totalFiles, adding: max(files, 0))
  }

  /// Sets the files this reporter's work is done with and, when `totalFiles` is given, its total.
  ///
  /// Both replace what the reporter counted before, as ``report(completedBytes:of:)`` does for
  /// bytes. Negative counts count as 0.
  public func report(completedFiles: Int, of totalFiles: Int? = nil) {
    if let totalFiles {
      node.count(.totalFiles, setting: max(totalFiles, 0))
    }
    node.count(.completedFiles, setting: max(completedFiles, 0))
  }
}
