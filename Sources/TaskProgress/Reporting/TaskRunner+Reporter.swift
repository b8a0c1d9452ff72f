extension TaskRunner {
  /// The handle an operation uses to report its progress: the analogue of the
  /// `AsyncStream.Continuation` in the hand-written pattern.
  ///
  /// Call it from any thread or task, as often as you like. A report is a single atomic store
  /// into the run's latest-value mailbox: no lock, no allocation, no actor hop, no buffer that
  /// grows. The runner reads the latest value at most once per update interval, so a loop that
  /// reports a million times a second costs the main actor no more than one that reports sixty
  /// times.
  ///
  /// ```swift
  /// runner.start { reporter in
  ///   for (index, file) in files.enumerated() {
  ///     try await upload(file)
  ///     reporter.report(completed: index + 1, of: files.count)
  ///   }
  /// }
  /// ```
  ///
  /// Bad input never traps and never poisons the state: NaN and the infinities are ignored,
  /// fractions are clamped to `0...1`, counts to `0...total`, and a `total` of zero or less
  /// means complete. Reports made after the run ended, or by a cancelled run, are ignored.
  public struct Reporter: Sendable {
    @usableFromInline let mailbox: ProgressMailbox

    init(mailbox: ProgressMailbox) {
      self.mailbox = mailbox
    }

    /// Reports the fraction of the work that is done.
    ///
    /// - Parameter fractionCompleted: A value in `0...1`; values outside are clamped, and NaN
    ///   or an infinity is ignored.
    @inlinable
    public func report(fractionCompleted: Double) {
      guard fractionCompleted.isFinite else { return }
      // Adding 0 turns -0.0 into +0.0, whose top bits are the fraction tag.
      let fraction = min(max(fractionCompleted, 0), 1) + 0
      mailbox.store(ProgressMailbox.fractionTag | fraction.bitPattern)
    }

    /// Reports that `completed` of `total` units of work are done.
    ///
    /// `completed` is clamped to `0...total`; a `total` of zero or less means the work is
    /// complete.
    @inlinable
    public func report(completed: Int, of total: Int) {
      let total = max(total, 0)
      let completed = min(max(completed, 0), total)
      if total < ProgressMailbox.countLimit {
        mailbox.store(ProgressMailbox.countsTag | UInt64(completed) << 31 | UInt64(total))
      } else {
        mailbox.storeWide(RunProgress(completed: completed, of: total))
      }
    }

    /// Reports that the work is under way but its size is unknown.
    ///
    /// A view shows indeterminate progress as a busy indicator rather than a bar; the state's
    /// ``RunState/fractionCompleted`` is `nil` until the next determinate report.
    ///
    /// - Parameter completed: The units done so far, if the work counts them; negative counts
    ///   become 0.
    @inlinable
    public func reportIndeterminate(completed: Int? = nil) {
      guard let completed else {
        mailbox.store(ProgressMailbox.indeterminateTag)
        return
      }
      let count = max(completed, 0)
      if count < ProgressMailbox.indeterminateCountLimit {
        mailbox.store(
          ProgressMailbox.indeterminateTag | ProgressMailbox.indeterminateHasCount | UInt64(count))
      } else {
        mailbox.storeWide(.indeterminate(completed: count))
      }
    }

    /// Whether the run this reporter belongs to was cancelled or replaced.
    ///
    /// Check it in synchronous loops that have no `await` to notice cancellation; async code
    /// can equally use `Task.isCancelled` or `try Task.checkCancellation()`.
    @inlinable
    public var isCancelled: Bool {
      mailbox.isCancelled
    }

    /// Throws `CancellationError` if the run this reporter belongs to was cancelled.
    @inlinable
    public func checkCancellation() throws(CancellationError) {
      if isCancelled { throw CancellationError() }
    }

    /// Throws `CancellationError` if the run was cancelled, and gives other tasks a turn when
    /// they need one.
    ///
    /// Call it between steps of work that does not suspend by itself, instead of sprinkling
    /// `try Task.checkCancellation()` and `await Task.yield()` through the loop. Work that keeps
    /// every thread of Swift's cooperative pool busy without suspending holds up every other
    /// task, the runner's frames among them, since waking from a sleep needs a pool thread. A
    /// checkpoint yields while the runner's frame is overdue, so that observers keep hearing
    /// from the run, and otherwise once every 10 ms across the run, so that other tasks get a
    /// turn. ``TaskRunner/start(priority:over:perform:)`` checks cancellation and yields between
    /// items for you.
    ///
    /// ```swift
    /// runner.start { reporter in
    ///   for (index, row) in rows.enumerated() {
    ///     try await reporter.checkpoint()
    ///     crunch(row)  // synchronous, CPU-bound
    ///     reporter.report(completed: index + 1, of: rows.count)
    ///   }
    /// }
    /// ```
    ///
    /// A checkpoint costs a clock read and an atomic load when it does not yield.
    public func checkpoint() async throws(CancellationError) {
      try checkCancellation()
      if mailbox.shouldYield() {
        await Task.yield()
        try checkCancellation()
      }
    }
  }
}
