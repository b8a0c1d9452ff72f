import Foundation
import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

@MainActor
@Suite("Terminal stream")
struct TerminalStreamTests {
  @Test func aPipeIsNotATerminalAndGetsEveryByte() throws {
    var descriptors: [Int32] = [0, 0]
    #expect(pipe(&descriptors) == 0)
    defer { close(descriptors[0]) }
    let stream = TerminalStream(fileDescriptor: descriptors[1], environment: ["LANG": "C.UTF-8"])
    #expect(stream.capabilities == .plain.withUnicode)
    #expect(stream.columns == 80)
    stream.write("héllo\n")
    close(descriptors[1])
    let data = FileHandle(fileDescriptor: descriptors[0]).readDataToEndOfFile()
    #expect(String(decoding: data, as: UTF8.self) == "héllo\n")
  }

  @Test func theStandardStreamsAreSpelledWithALeadingDot() {
    _ = TerminalRenderer(output: .standardError, restoresTerminalOnSignals: false)
    _ = TerminalRenderer(label: "Task", output: .standardOutput, restoresTerminalOnSignals: false)
    _ = TerminalGroupRenderer(output: .standardError, restoresTerminalOnSignals: false)
    _ = TerminalGroupRenderer(output: .standardOutput, restoresTerminalOnSignals: false)
    #expect(TerminalStream.standardError.fileDescriptor == STDERR_FILENO)
    #expect(TerminalStream.standardOutput.fileDescriptor == STDOUT_FILENO)
  }

  @Test func anOutputOfOnesOwnWorksAsAConcreteTypeAndAsAnExistential() {
    let concrete = MemoryTerminal(columns: 40, capabilities: .plain)
    let existential: any TerminalOutput = MemoryTerminal(columns: 40, capabilities: .plain)
    for output in [concrete, existential] as [any TerminalOutput] {
      let renderer = TerminalRenderer(label: "Task", output: output)
      renderer.render(
        ProgressUpdate(
          reason: .stateChanged, state: .running(0), displayedProgress: 0, time: .zero))
    }
    let group = TerminalGroupRenderer(output: concrete, restoresTerminalOnSignals: false)
    group.didDetach()
    #expect(concrete.lines == ["Task: started", ""])
    #expect((existential as? MemoryTerminal)?.lines == ["Task: started", ""])
  }

  @Test func columnsFallBackToTheEnvironmentThenTo80() {
    #expect(TerminalStream(fileDescriptor: -1, environment: ["COLUMNS": "132"]).columns == 132)
    #expect(TerminalStream(fileDescriptor: -1, environment: ["COLUMNS": "wide"]).columns == 80)
    #expect(TerminalStream(fileDescriptor: -1, environment: ["COLUMNS": "-4"]).columns == 80)
  }

  @Test func aClosedPipeBreaksTheStreamInsteadOfCrashing() {
    signal(SIGPIPE, SIG_IGN)  // as a program that writes to pipes does; the default kills it
    var descriptors: [Int32] = [0, 0]
    #expect(pipe(&descriptors) == 0)
    close(descriptors[0])
    let stream = TerminalStream(fileDescriptor: descriptors[1], environment: [:])
    stream.write("nobody reads this\n")
    #expect(stream.isBroken)
    stream.write("or this\n")  // dropped quietly
    close(descriptors[1])
  }
}

extension TerminalCapabilities {
  /// These capabilities with Unicode.
  var withUnicode: TerminalCapabilities {
    var copy = self
    copy.supportsUnicode = true
    return copy
  }
}
