/// A front end that draws a runner's progress: a terminal, a log file, a test recorder, or yours.
///
/// Implement ``render(_:)`` and attach the renderer to any runner; it receives every state change,
/// and a frame on every update interval while a run is active or the displayed progress moves, in
/// order, on the main actor, starting with the current state at once. Nothing arrives while the
/// runner is idle and its display still.
///
/// ```swift
/// final class TitleRenderer: ProgressRenderer {
///   private(set) var title = ""
///   func render(_ update: ProgressUpdate) {
///     // Rounded, not truncated: 0.29 * 100 is 28.999999999999996 in `Double`.
///     title = "\(Int((update.displayedProgress * 100).rounded()))%"
///   }
/// }
/// runner.attach(TitleRenderer())
/// ```
///
/// The runner keeps the renderer until the runner goes away or the token that
/// ``TaskRunner/attach(_:)`` returns is cancelled; then it calls ``didDetach()`` once.
@MainActor
public protocol ProgressRenderer {
  /// Draws one update.
  func render(_ update: ProgressUpdate)

  /// Tells the renderer that it gets no more updates: its token was cancelled or its runner went
  /// away.
  ///
  /// A renderer that holds something open, such as a terminal line with the cursor hidden,
  /// closes it here. The default implementation does nothing.
  func didDetach()
}

extension ProgressRenderer {
  /// Does nothing.
  public func didDetach() {}
}
