// libFuzzer harness for heavy-task's argument parser; built by Scripts/fuzz.sh, not by SwiftPM.
//
// The input is split at NUL bytes into arguments. The parser must never trap, every option it
// accepts must be within its documented range, and every error must be one printable line.

/// The entry point libFuzzer calls with each input: parse it as arguments, check the result.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOptions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
    String(decoding: $0, as: UTF8.self)
  }
  do {
    let options = try Options.parse(arguments)
    guard Options.itemsRange.contains(options.items),
      Options.delayRange.contains(options.delayMilliseconds)
    else { fatalError("accepted out-of-range options: \(options)") }
    if let failAt = options.failAt, !options.showsHelp,
      !(1...max(options.items, 1)).contains(failAt)
    {
      fatalError("accepted --fail-at \(failAt) with --items \(options.items)")
    }
    if let path = options.logPath, path.isEmpty {
      fatalError("accepted an empty --log path")
    }
  } catch {
    let message = error.description
    let unprintable = message.unicodeScalars.contains {
      $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}"
    }
    if message.isEmpty || unprintable || message.count > 400 {
      fatalError(
        "an error message that is not one short printable line: \(message.debugDescription)")
    }
  }
  return 0
}
