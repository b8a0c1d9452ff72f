// The stand-in's controls and containers: SwiftUI's names and initializers, drawn on a `Screen`.
#if !canImport(SwiftUI)

/// A line of text.
struct Text: PrimitiveView {
  let content: String

  init<S: StringProtocol>(_ content: S) {
    self.content = String(content)
  }

  func draw(on screen: inout Screen) {
    screen.texts.append(content)
  }
}

/// A button with a title.
struct Button: PrimitiveView {
  let title: String
  let action: @MainActor () -> Void

  init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) {
    self.title = String(title)
    self.action = action
  }

  func draw(on screen: inout Screen) {
    screen.buttons.append(Screen.Control(title: title, isEnabled: screen.isEnabled, action: action))
  }
}

/// A progress bar.
struct ProgressView: PrimitiveView {
  /// The fraction the bar shows; `nil` for an indeterminate bar.
  let fractionCompleted: Double?

  init<V: BinaryFloatingPoint>(value: V?, total: V = 1.0) {
    fractionCompleted = value.map { Double($0) / Double(total) }
  }

  func draw(on screen: inout Screen) {
    screen.progressBars.append(fractionCompleted)
  }
}

/// Where the views of a vertical stack line up.
enum HorizontalAlignment {
  case leading, center, trailing
}

/// Where the views of a horizontal stack line up.
enum VerticalAlignment {
  case top, center, bottom
}

/// Views one above the other.
struct VStack<Content: View>: PrimitiveView {
  let content: Content

  init(alignment: HorizontalAlignment = .center, @ViewBuilder content: () -> Content) {
    self.content = content()
  }

  func draw(on screen: inout Screen) {
    screen.draw(content)
  }
}

/// Views side by side.
struct HStack<Content: View>: PrimitiveView {
  let content: Content

  init(alignment: VerticalAlignment = .center, @ViewBuilder content: () -> Content) {
    self.content = content()
  }

  func draw(on screen: inout Screen) {
    screen.draw(content)
  }
}

/// A row for each element of a collection of identifiable elements.
struct List<Data: RandomAccessCollection, RowContent: View>: PrimitiveView
where Data.Element: Identifiable {
  let data: Data
  let rowContent: (Data.Element) -> RowContent

  init(_ data: Data, @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent) {
    self.data = data
    self.rowContent = rowContent
  }

  func draw(on screen: inout Screen) {
    for element in data {
      screen.draw(rowContent(element))
    }
  }
}
#endif
