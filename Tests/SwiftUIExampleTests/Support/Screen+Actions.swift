#if !canImport(SwiftUI)
import Testing

extension Screen {
  /// Presses the button titled `title`, as a user would: it must be there and enabled.
  func press(_ title: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let button = try #require(
      buttons.first { $0.title == title }, "no button \(title) in \(buttons.map(\.title))",
      sourceLocation: sourceLocation)
    try #require(button.isEnabled, "\(title) is disabled", sourceLocation: sourceLocation)
    button.action()
  }
}
#endif
