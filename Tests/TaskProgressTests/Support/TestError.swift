/// An error thrown by test operations.
struct TestError: Error, Equatable, CustomStringConvertible {
  var message = "boom"
  var description: String { message }
}
