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
