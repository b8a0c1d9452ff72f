/// Ends a started child when the last copy of its reporter goes away.
final class ChildLifetime: Sendable {
  let node: ProgressNode

  init(_ node: ProgressNode) {
    self.node = node
  }

  deinit {
    node.finish()  // released before it finished: its share counts as done
  }
}
