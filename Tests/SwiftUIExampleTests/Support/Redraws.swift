#if !canImport(SwiftUI)
import TaskProgress

/// Draws a view at every state of a runner, as SwiftUI redraws a view that reads the runner.
@MainActor
final class Redraws {
  /// What the view showed, the first as observing began.
  private(set) var screens: [Screen] = []
  /// The runner's state when each screen was drawn: the state the view read, which may be
  /// later than the one observers were being told of.
  private(set) var shownStates: [RunState] = []
  /// Keeps the redraws coming while this object lives.
  private var token: ObservationToken?

  init(_ view: some View, following runner: TaskRunner) {
    token = runner.observe { [weak self, unowned runner] _ in
      self?.screens.append(Screen(view))
      self?.shownStates.append(runner.state)
    }
  }
}
#endif
