import Dispatch
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif os(Windows) || os(WASI)
// Signals are delivered through sigaction and a pipe, which these platforms do not have.
#error("TaskProgressAdapters needs POSIX signals (sigaction): not on this platform")
#else
#error("Unsupported platform: TaskProgressAdapters needs a POSIX C library")
#endif

/// The process's handlers of `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGWINCH`, shared by the
/// terminal's two users: the consoles that turn signals into events, and the holders of a
/// terminal state a signal must not leave behind (a hidden cursor, raw modes).
///
/// One C handler serves every signal and decides, from atomics alone, what a signal does:
/// - while a console listens, it writes the signal's number into a pipe (the self-pipe trick),
///   and a read source on the main queue hands it to the listening consoles;
/// - otherwise it restores the terminal (``TerminalRestoration``), puts back the default
///   disposition and raises the signal again, so that the process ends as it would have.
///
/// Listening takes a signal over whatever its disposition, and gives back the one it found
/// when the last console stops. Holding takes over a terminating signal only where its
/// disposition is the default one: a program's own handler is never replaced for that.
@MainActor
enum SignalRouter {
  /// The signals routed: the three that end a process by default, and the resize.
  nonisolated static let signals = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]

  /// The consoles listening, by key, each with what it does with a signal.
  private static var listeners: [ObjectIdentifier: @MainActor (Int32) -> Void] = [:]
  /// How many hold the terminal in a state to restore.
  private static var holders = 0
  /// The disposition each signal had before the router's handler took it, for the signals the
  /// handler holds now.
  private static var replaced: [Int32: sigaction] = [:]
  /// The read end of the self-pipe and its source, once a console has listened.
  private static var pipeSource: (any DispatchSourceRead)?

  /// Hands every routed signal to `deliver` on the main actor, until ``stopListening(_:)``.
  ///
  /// Returns `false` when the self-pipe cannot be made (no descriptor left), and then routes
  /// nothing.
  @discardableResult
  static func listen(
    _ listener: ObjectIdentifier, _ deliver: @escaping @MainActor (Int32) -> Void
  ) -> Bool {
    guard makePipe() else { return false }
    listeners[listener] = deliver
    update()
    return true
  }

  /// Stops handing signals to `listener`; once none listens, each signal has the disposition
  /// it had before, or the restoring handler where someone still holds the terminal.
  static func stopListening(_ listener: ObjectIdentifier) {
    guard listeners.removeValue(forKey: listener) != nil else { return }
    update()
  }

  /// Marks the terminal as held in a state that a terminating signal must restore.
  static func hold() {
    holders += 1
    if holders == 1 { update() }
  }

  /// Ends one ``hold()``; one call too many does nothing.
  static func release() {
    guard holders > 0 else { return }
    holders -= 1
    if holders == 0 { update() }
  }

  /// Installs or takes away the handler of each signal, as the listeners and holders need.
  private static func update() {
    let isListening = !listeners.isEmpty
    // On the way in, the handler delivers before it is installed; on the way out, it delivers
    // until the disposition it replaced is back, so that no signal is restored-and-raised in
    // between.
    if isListening { listenedSignals.store(signalMask, ordering: .releasing) }
    for signal in signals {
      let current = currentAction(of: signal)
      if replaced[signal] != nil && !isRouterHandler(current) {
        replaced[signal] = nil  // the program took the signal back meanwhile: it keeps it
      }
      let terminates = signal != SIGWINCH
      if var previous = replaced[signal] {
        let keeps = isListening || (terminates && holders > 0 && isDefault(previous))
        if !keeps {
          sigaction(signal, &previous, nil)
          replaced[signal] = nil
        }
      } else if isListening || (terminates && holders > 0 && isDefault(current)) {
        var action = sigaction()
        setHandler(routeSignal, in: &action)
        sigaction(signal, &action, nil)
        replaced[signal] = current
      }
    }
    if !isListening { listenedSignals.store(0, ordering: .releasing) }
  }

  /// Creates the self-pipe and its read source, once.
  private static func makePipe() -> Bool {
    guard pipeSource == nil else { return true }
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { return false }
    for descriptor in descriptors {
      _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)  // not inherited by the programs we start
    }
    // A full pipe drops a signal rather than blocking the handler.
    _ = fcntl(descriptors[1], F_SETFL, fcntl(descriptors[1], F_GETFL) | O_NONBLOCK)
    pipeWriteEnd.store(descriptors[1], ordering: .releasing)
    let reader = descriptors[0]
    let source = DispatchSource.makeReadSource(fileDescriptor: reader, queue: .main)
    source.setEventHandler {
      MainActor.assumeIsolated {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(reader, &bytes, bytes.count)
        guard count > 0 else { return }
        for byte in bytes[..<count] {
          for deliver in listeners.values {
            deliver(Int32(byte))
          }
        }
      }
    }
    source.resume()
    pipeSource = source
    return true
  }
}

/// The routed signals as bits, `1 << signal`: every routed signal number is below 32.
private let signalMask: UInt32 = SignalRouter.signals.reduce(0) { $0 | 1 << UInt32($1) }

/// The signals the handler writes into the pipe, `1 << signal` each; 0 while no console listens.
private let listenedSignals = Atomic<UInt32>(0)

/// The write end of the self-pipe; -1 until it exists.
private let pipeWriteEnd = Atomic<Int32>(-1)

/// The handler of every routed signal: only async-signal-safe calls (`write`, `tcsetattr`,
/// `sigaction`, `raise`) and lock-free atomics.
private func routeSignal(_ signal: Int32) {
  let savedErrno = errno
  defer { errno = savedErrno }
  if listenedSignals.load(ordering: .acquiring) & (1 << UInt32(signal)) != 0 {
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(pipeWriteEnd.load(ordering: .acquiring), &byte, 1)
    return
  }
  // A resize that arrives while the router gives the signal back ends nothing.
  guard signal != SIGWINCH else { return }
  TerminalRestoration.restoreNow()
  var action = sigaction()
  setHandler(nil, in: &action)
  sigaction(signal, &action, nil)
  raise(signal)
}

private typealias SignalHandler = @convention(c) (Int32) -> Void

/// Sets a plain handler in `action`, with an empty mask and `SA_RESTART`; `nil` is the default
/// disposition.
private func setHandler(_ handler: SignalHandler?, in action: inout sigaction) {
  #if canImport(Darwin)
  action.__sigaction_u.__sa_handler = handler
  #else
  action.__sigaction_handler.sa_handler = handler
  #endif
  sigemptyset(&action.sa_mask)
  action.sa_flags = SA_RESTART
}

/// The plain handler of `action`, `nil` for the default disposition.
private func plainHandler(of action: sigaction) -> SignalHandler? {
  #if canImport(Darwin)
  action.__sigaction_u.__sa_handler
  #else
  action.__sigaction_handler.sa_handler
  #endif
}

private func currentAction(of signal: Int32) -> sigaction {
  var action = sigaction()
  sigaction(signal, nil, &action)
  return action
}

/// Whether `action` is the default disposition.
private func isDefault(_ action: sigaction) -> Bool {
  plainHandler(of: action) == nil && action.sa_flags & SA_SIGINFO == 0
}

/// Whether `action` is the router's own handler.
private func isRouterHandler(_ action: sigaction) -> Bool {
  guard action.sa_flags & SA_SIGINFO == 0, let handler = plainHandler(of: action) else {
    return false
  }
  let ours = unsafeBitCast(routeSignal as SignalHandler, to: UnsafeRawPointer.self)
  return unsafeBitCast(handler, to: UnsafeRawPointer.self) == ours
}
