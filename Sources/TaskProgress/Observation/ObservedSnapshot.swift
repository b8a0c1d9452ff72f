/// An `@Observable` class whose properties show the fields of a snapshot it replaces as a whole,
/// such as a group's summary or a runner's estimate.
///
/// The `@Observable` macro gives the class the `withMutation(keyPath:_:)` this requires.
protocol ObservedSnapshot: AnyObject {
  /// Tells Observation that the property at `keyPath` changes during `mutation`.
  nonisolated func withMutation<Member, MutationResult>(
    keyPath: KeyPath<Self, Member>, _ mutation: () throws -> MutationResult
  ) rethrows -> MutationResult
}

extension ObservedSnapshot {
  /// Tells Observation that `property` changed, when the snapshot's `field` differs from `old`
  /// to `new`: a view that reads one property is not redrawn when only another changed.
  func notifyChange<Snapshot, Value: Equatable>(
    of property: KeyPath<Self, Value>, showing field: KeyPath<Snapshot, Value>,
    from old: Snapshot, to new: Snapshot
  ) {
    if old[keyPath: field] != new[keyPath: field] {
      withMutation(keyPath: property) {}
    }
  }
}
