// The stand-in's view modifiers. Those that change what a test can see (whether a button is
// enabled) act on the `Screen`; the others only have to compile.
#if !canImport(SwiftUI)

/// A view with a modifier applied.
struct ModifiedView<Content: View>: PrimitiveView {
  /// What a modifier does, as far as a `Screen` shows it.
  enum Modifier {
    /// Enables or disables the controls inside.
    case disabled(Bool)
    /// Changes only the looks (digits, colours) or adds an alert the stand-in never presents.
    case appearance
  }

  let content: Content
  let modifier: Modifier

  func draw(on screen: inout Screen) {
    switch modifier {
    case .disabled(let disabled):
      let wasEnabled = screen.isEnabled
      screen.isEnabled = wasEnabled && !disabled
      screen.draw(content)
      screen.isEnabled = wasEnabled
    case .appearance:
      screen.draw(content)
    }
  }
}

/// A colour or pattern for drawing, as SwiftUI's `ShapeStyle`.
protocol ShapeStyle {}

/// A level of emphasis of the foreground colour.
struct HierarchicalShapeStyle: ShapeStyle {}

extension ShapeStyle where Self == HierarchicalShapeStyle {
  /// The foreground colour a level below the primary one.
  static var secondary: HierarchicalShapeStyle { HierarchicalShapeStyle() }
}

extension View {
  /// Disables the controls inside when `disabled` is true.
  func disabled(_ disabled: Bool) -> some View {
    ModifiedView(content: self, modifier: .disabled(disabled))
  }

  /// Draws digits with a fixed width.
  func monospacedDigit() -> some View {
    ModifiedView(content: self, modifier: .appearance)
  }

  /// Draws the foreground in `style`.
  func foregroundStyle<S: ShapeStyle>(_ style: S) -> some View {
    ModifiedView(content: self, modifier: .appearance)
  }

  /// Presents an alert with `actions` and `message` while `isPresented` is true.
  func alert<S: StringProtocol, A: View, M: View>(
    _ title: S,
    isPresented: Binding<Bool>,
    @ViewBuilder actions: () -> A,
    @ViewBuilder message: () -> M
  ) -> some View {
    ModifiedView(content: self, modifier: .appearance)
  }
}
#endif
