#if !canImport(SwiftUI)
import TaskProgress
import Testing

/// `MyView`, the "Perform a Heavy Task" view, drawn by the stand-in and pressed as a user would.
@MainActor
@Suite("SwiftUI example: the heavy task view", .timeLimit(.minutes(2)))
struct MyViewTests {
  let view = MyView(objects: (1...3).map { HeavyObject(number: $0) })

  @Test func anIdleViewOffersTheTaskAndNoPause() {
    let screen = Screen(view)
    #expect(screen.buttons.map(\.title) == ["Perform a Heavy Task", "Pause"])
    #expect(screen.buttons.map(\.isEnabled) == [true, false])
    #expect(screen.progressBars == [0])
    #expect(screen.texts == ["", ""])  // no status, no speed yet
  }

  @Test func theButtonProcessesEveryObjectAndSaysWhichOne() async throws {
    let runner = try #require(view.state("runner", as: TaskRunner.self))
    let recorder = StateRecorder(observing: runner)
    let redraws = Redraws(view, following: runner)

    try Screen(view).press("Perform a Heavy Task")
    let running = Screen(view)
    #expect(running.buttons.map(\.isEnabled) == [false, true])  // pressed once; pause instead

    #expect(await recorder.waitForTerminalState() == .finished)
    // Each redraw shows the status of the state the runner was in. How many redraws came while
    // an object was under way depends on the machine: on a busy one the main actor may draw no
    // frame before the run ends, and the last object's status then reaches observers only with
    // the end, when the view already shows the end.
    for (screen, state) in zip(redraws.screens, redraws.shownStates) {
      #expect(screen.texts.first == (state.progress?.message ?? ""), "drawn at \(state)")
    }
    let statuses = redraws.screens.map { $0.texts.first ?? "" }.filter { !$0.isEmpty }
    #expect(statuses.allSatisfy { $0.hasPrefix("Processing object ") && $0.hasSuffix(" of 3") })
    #expect(statuses == statuses.sorted(), "the view never goes back to an earlier object")
    // The last report of a run reaches observers before the run ends. A redraw shows the state
    // as it is when it runs, as SwiftUI's does: one that comes after the end shows the end, so
    // the view's own screens need not show the last object on a busy machine.
    let states = recorder.states
    #expect(states.last == .finished)
    #expect(states.dropLast().last?.progress?.message == "Processing object 3 of 3")
    let done = Screen(view)
    #expect(done.buttons.map(\.isEnabled) == [true, false])
    #expect(done.texts.first == "")
  }

  @Test func pauseHoldsTheRunUntilResumed() async throws {
    let runner = try #require(view.state("runner", as: TaskRunner.self))
    let recorder = StateRecorder(observing: runner)

    try Screen(view).press("Perform a Heavy Task")
    try Screen(view).press("Pause")
    #expect(runner.state.phase == .paused)
    let paused = Screen(view)
    #expect(paused.buttons.map(\.title) == ["Perform a Heavy Task", "Resume"])
    #expect(paused.buttons.map(\.isEnabled) == [false, true])
    #expect(paused.texts.first?.hasPrefix("Paused.") == true)

    try paused.press("Resume")
    #expect(runner.state.phase == .running)
    #expect(Screen(view).buttons.map(\.title) == ["Perform a Heavy Task", "Pause"])
    #expect(await recorder.waitForTerminalState() == .finished)
  }
}
#endif
