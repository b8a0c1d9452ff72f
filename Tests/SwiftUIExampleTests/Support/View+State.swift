#if !canImport(SwiftUI)
extension View {
  /// The value of the view's `@State` property `name`, which the view keeps private; `nil` if it
  /// has no such property of type `Value`.
  func state<Value>(_ name: String, as type: Value.Type) -> Value? {
    // A property wrapper's storage is the property's name with a leading underscore.
    let storage = Mirror(reflecting: self).descendant("_" + name) as? State<Value>
    return storage?.wrappedValue
  }
}
#endif
