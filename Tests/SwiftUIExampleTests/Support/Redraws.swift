#if !canImport(SwiftUI)
import TaskProgress

/// Draws a view at every state of a runner, as SwiftUI redraws a view that reads the runner.
@MainActor
final class Redraws {
  /// What the view showed, the first as observing began.
  private(set) var screens: [Screen] = []
  /// Keeps the redraws coming while this object lives.
  private var token: ObservationToken?

  init(_ view: some View, following runner: TaskRunner) {
    token = runner.observe { [weak self] _ in self?.screens.append(Screen(view)) }
  }
}
#endif
