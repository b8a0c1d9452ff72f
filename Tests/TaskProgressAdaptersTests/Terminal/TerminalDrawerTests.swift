import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@MainActor
@Suite("Terminal drawer")
struct TerminalDrawerTests {
  private func drawer(on terminal: MemoryTerminal) -> TerminalDrawer {
    TerminalDrawer(output: terminal, restoresOnSignals: false)
  }

  @Test func linesAboveAndTheAreaGoOutInOneWriteAndAnUnchangedAreaInNone() {
    let terminal = MemoryTerminal(columns: 40, rows: 10, emulatesScreen: true)
    let drawer = drawer(on: terminal)
    drawer.draw { _ in TerminalDrawer.Lines(area: ["a.bin 10%", "b.bin 20%", "Total 15%"]) }
    #expect(terminal.writeCount == 1)
    drawer.draw { _ in TerminalDrawer.Lines(area: ["a.bin 10%", "b.bin 20%", "Total 15%"]) }
    #expect(terminal.writeCount == 1)
    drawer.draw { _ in TerminalDrawer.Lines(above: ["a.bin done"], area: ["b.bin 30%"]) }
    #expect(terminal.writeCount == 2)
    #expect(terminal.screen?.trimmedScreen == ["a.bin done", "b.bin 30%"])
    #expect(terminal.screen?.isCursorVisible == false)
    #expect(terminal.screen?.wraps == 0 && terminal.screen?.unknownSequences.isEmpty == true)
  }

  @Test func printedTextThatWrapsClearsTheAreaBelowItFirst() {
    let terminal = MemoryTerminal(columns: 20, rows: 10, emulatesScreen: true)
    let drawer = drawer(on: terminal)
    drawer.draw { _ in TerminalDrawer.Lines(area: ["aaaa", "bbbb", "cccc"]) }
    let long = String(repeating: "x", count: 50)
    drawer.draw { _ in TerminalDrawer.Lines(printed: [long, "y"], area: ["bbbb"]) }
    #expect(
      terminal.screen?.trimmedScreen == [
        String(repeating: "x", count: 20), String(repeating: "x", count: 20),
        String(repeating: "x", count: 10), "y", "bbbb",
      ])
  }

  @Test func closingLeavesTheRowsAndShowsTheCursorOnce() {
    let terminal = MemoryTerminal(columns: 40, rows: 10, emulatesScreen: true)
    let drawer = drawer(on: terminal)
    drawer.draw { _ in TerminalDrawer.Lines(area: ["a", "b"]) }
    drawer.close()
    #expect(terminal.screen?.trimmedScreen == ["a", "b"])
    #expect(terminal.screen?.isCursorVisible == true)
    #expect(terminal.screen?.cursorRow == 2 && terminal.screen?.cursorColumn == 0)
    let output = terminal.output
    drawer.close()
    #expect(terminal.output == output)
  }

  @Test func withoutEscapeSequencesOneRowIsRedrawnWithSpacesOverWhatALongerOneLeft() {
    let terminal = MemoryTerminal(columns: 40, capabilities: .dumb)
    let drawer = drawer(on: terminal)
    drawer.draw { _ in TerminalDrawer.Lines(area: ["日本語 long"]) }
    drawer.draw { _ in TerminalDrawer.Lines(area: ["ab"]) }
    drawer.draw { _ in TerminalDrawer.Lines(above: ["ab done"], printed: ["status"], closes: true) }
    #expect(
      terminal.output == "\r日本語 long\rab" + String(repeating: " ", count: 9) + "\rab done\nstatus\n"
    )
  }

  @Test func framesWaitForTheRedrawIntervalUnlessForcedOrResized() {
    let terminal = MemoryTerminal(columns: 40)
    let drawer = drawer(on: terminal)
    var frames = 0
    func frame(_ milliseconds: Int, force: Bool = false) {
      drawer.draw(at: .milliseconds(milliseconds), force: force) { _ in
        frames += 1
        return TerminalDrawer.Lines(area: ["\(frames)"])
      }
    }
    frame(0)
    frame(20)
    #expect(frames == 1)
    frame(30, force: true)
    #expect(frames == 2)
    terminal.columns = 50
    frame(40)
    #expect(frames == 3)
    frame(60)
    #expect(frames == 3)
    frame(90)
    #expect(frames == 4)
  }
}
