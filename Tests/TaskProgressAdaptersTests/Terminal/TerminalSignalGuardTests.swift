import Foundation
import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

extension SignalDispositionSuites {
  /// The cursor guard installs its handlers only where a signal has its default disposition and
  /// takes away only its own. (Raising the signals would end the test process, so the handler's
  /// own work is checked in a process of its own: HeavyTaskTests' TerminalRendererProcessTests.)
  @MainActor
  @Suite("Terminal signal guard")
  struct TerminalSignalGuardTests {
    @Test func itGuardsSignalsLeftAtTheirDefaultAndLeavesThemAsItFoundThem() {
      let previous = signal(SIGHUP, SIG_DFL)
      defer { signal(SIGHUP, previous) }
      #expect(handler(of: SIGHUP) == nil)
      TerminalSignalGuard.acquire(fileDescriptor: STDOUT_FILENO)
      #expect(handler(of: SIGHUP) != nil)
      TerminalSignalGuard.acquire(fileDescriptor: STDOUT_FILENO)  // a second renderer
      TerminalSignalGuard.release()
      #expect(handler(of: SIGHUP) != nil)  // still held by the first
      TerminalSignalGuard.release()
      #expect(handler(of: SIGHUP) == nil)
      TerminalSignalGuard.release()  // one release too many does nothing
      #expect(handler(of: SIGHUP) == nil)
    }

    @Test func aProgramsOwnHandlerIsNeverReplaced() {
      let ignore = signal(SIGHUP, SIG_IGN)
      defer { signal(SIGHUP, ignore) }
      let before = handler(of: SIGHUP)
      TerminalSignalGuard.acquire(fileDescriptor: STDOUT_FILENO)
      #expect(handler(of: SIGHUP) == before)
      TerminalSignalGuard.release()
      #expect(handler(of: SIGHUP) == before)
    }

    @Test func aHandlerInstalledWhileGuardedIsKeptOnRelease() {
      let previous = signal(SIGHUP, SIG_DFL)
      defer { signal(SIGHUP, previous) }
      TerminalSignalGuard.acquire(fileDescriptor: STDOUT_FILENO)
      signal(SIGHUP, SIG_IGN)  // the program takes over the signal meanwhile
      let programs = handler(of: SIGHUP)
      TerminalSignalGuard.release()
      #expect(handler(of: SIGHUP) == programs)
    }
  }
}
