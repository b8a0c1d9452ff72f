/// A front end that draws a runner's progress: a terminal, a log file, a test recorder, or yours.
///
/// Implement one method and attach the renderer to any runner; it receives every state change, and
/// a frame on every update interval while a run is active or the displayed progress moves, in
/// order, on the main actor, starting with the current state at once. Nothing arrives while the
/// runner is idle and its display still.
///
/// ```swift
/// final class StatusBarRenderer: ProgressRenderer {
///   func render(_ update: ProgressUpdate) {
///     statusItem.title = "\(Int(update.displayedProgress * 100))%"
///   }
/// }
/// let token = runner.attach(StatusBarRenderer())
/// ```
///
/// The runner keeps the renderer until the token is cancelled or released.
@MainActor
public protocol ProgressRenderer {
  /// Draws one update.
  func render(_ update: ProgressUpdate)
}
