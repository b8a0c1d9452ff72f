/// An error thrown by test operations.
package struct TestError: Error, Equatable, CustomStringConvertible {
  package var message = "boom"
  package var description: String { message }

  /// Creates an error with a message.
  package init(message: String = "boom") {
    self.message = message
  }
}
