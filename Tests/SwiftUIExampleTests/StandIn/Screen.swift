// What the stand-in draws, for the tests to read and press.
#if !canImport(SwiftUI)

/// What a view shows at one moment: its texts, buttons and progress bars, each in the order it
/// appears.
@MainActor
struct Screen {
  /// A button as drawn.
  struct Control {
    let title: String
    /// Whether no `disabled(true)` around the button disables it.
    let isEnabled: Bool
    let action: @MainActor () -> Void
  }

  var texts: [String] = []
  var buttons: [Control] = []
  /// The fraction each progress bar shows; `nil` for an indeterminate one.
  var progressBars: [Double?] = []
  /// Whether the controls being drawn are enabled.
  var isEnabled = true

  /// Draws `view` as it is now.
  init(_ view: some View) {
    draw(view)
  }

  /// Adds what `view` shows: a primitive view draws itself, any other view its body.
  mutating func draw(_ view: some View) {
    if let primitive = view as? any PrimitiveView {
      primitive.draw(on: &self)
    } else {
      draw(view.body)
    }
  }
}
#endif
