// The few SwiftUI names that the views of Examples/SwiftUI use, for compiling them where SwiftUI
// does not exist. Each keeps the shape of SwiftUI's own declaration wherever the examples could
// tell the difference (main-actor isolation, generic constraints, argument labels, closure
// types), so that what compiles against the stand-in compiles against SwiftUI. Instead of
// drawing pixels, a view draws a `Screen` that tests read.
//
// Add a name here when an example starts using it; where SwiftUI exists, the examples and this
// target use SwiftUI itself.
#if !canImport(SwiftUI)

/// A piece of user interface, as SwiftUI's `View`: main-actor isolated, its content in `body`.
@MainActor @preconcurrency
protocol View {
  /// The type of the view's content.
  associatedtype Body: View

  /// The view's content.
  @ViewBuilder var body: Body { get }
}

/// Builds a view out of the views listed in a closure, as SwiftUI's `ViewBuilder`.
///
/// SwiftUI keeps every child's type; the stand-in keeps the children in a list, which is all that
/// drawing them needs.
@MainActor
@resultBuilder
enum ViewBuilder {
  static func buildBlock(_ views: any View...) -> TupleView {
    TupleView(views: views)
  }
}

/// A view that the stand-in draws itself, where SwiftUI's primitive views have a body of type
/// `Never`.
protocol PrimitiveView: View {
  /// Adds what the view shows to `screen`.
  func draw(on screen: inout Screen)
}

extension PrimitiveView {
  var body: EmptyView {
    // An explicit `return`: the body is a value here, not a list for `ViewBuilder`.
    return EmptyView()
  }
}

/// A view that shows nothing.
struct EmptyView: PrimitiveView {
  func draw(on screen: inout Screen) {}
}

/// The views of a `ViewBuilder` closure, one after the other.
struct TupleView: PrimitiveView {
  let views: [any View]

  func draw(on screen: inout Screen) {
    for view in views {
      screen.draw(view)
    }
  }
}
#endif
