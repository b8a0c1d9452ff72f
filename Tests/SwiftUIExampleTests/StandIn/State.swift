// The stand-in's state and bindings.
#if !canImport(SwiftUI)

/// A value a view owns, as SwiftUI's `State`: every copy of the view reads and writes the same
/// storage, so that a method of the (immutable) view can change it.
@propertyWrapper
struct State<Value> {
  private final class Storage {
    var value: Value

    init(_ value: Value) {
      self.value = value
    }
  }

  private let storage: Storage

  init(wrappedValue: Value) {
    storage = Storage(wrappedValue)
  }

  var wrappedValue: Value {
    get { storage.value }
    nonmutating set { storage.value = newValue }
  }
}

/// A value read and written elsewhere, as SwiftUI's `Binding`.
///
/// Only its initializer is here, with the closure types of SwiftUI's: `@isolated(any)`, so that a
/// closure written in a view's body is isolated to the main actor, as the view is. The stand-in
/// never presents what a binding controls.
struct Binding<Value> {
  init(get: @escaping @isolated(any) () -> Value, set: @escaping @isolated(any) (Value) -> Void) {}
}
#endif
