import TaskProgress

@main
struct HeavyTask {
  static func main() async {
    let runner = TaskRunner()
    let token = runner.observe { state in print(state) }
    let items = Array(1...10)
    _ = await runner.run(over: items) { _ in try await Task.sleep(for: .milliseconds(20)) }
    token.cancel()
  }
}
