// libFuzzer harness for the log file's line encoder; built by Scripts/fuzz.sh, not by SwiftPM.
//
// The input is read as the fields of a line: a time, a phase, a fraction, counts, a unit (items
// with any name), a rate, an estimate, an elapsed time, a message, a label and an error
// description. The encoder must never trap, and its output must be one line of JSON that decodes
// back to the same label, message and error.

import Foundation

private struct Reader {
  var bytes: ArraySlice<UInt8>

  mutating func integer() -> Int64 {
    var value: UInt64 = 0
    for _ in 0..<8 {
      value = value << 8 | UInt64(bytes.popFirst() ?? 0)
    }
    return Int64(bitPattern: value)
  }

  mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

  /// The text up to the next NUL byte, as lossy UTF-8.
  mutating func text() -> String {
    let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
    defer { bytes = end < bytes.endIndex ? bytes[(end + 1)...] : [] }
    return String(decoding: bytes[..<end], as: UTF8.self)
  }
}

/// The entry point libFuzzer calls with each input: encode it as a line, check the output.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  var reader = Reader(bytes: ArraySlice(UnsafeBufferPointer(start: data, count: size)))
  let time = Duration(
    secondsComponent: reader.integer(),
    attosecondsComponent: reader.integer() % 1_000_000_000_000_000_000)
  let flags = reader.byte()
  let phase = RunPhase.allCases[Int(flags) % RunPhase.allCases.count]
  let fraction = flags & 0x08 != 0 ? nil : Double(bitPattern: UInt64(bitPattern: reader.integer()))
  let completed = flags & 0x10 != 0 ? Int(reader.integer()) : nil
  let total = flags & 0x20 != 0 ? Int(reader.integer()) : nil
  let elapsed = flags & 0x40 != 0 ? Duration.nanoseconds(reader.integer()) : nil
  let more = reader.byte()
  let units: [ProgressUnit?] = [nil, .items, .bytes, .binaryBytes]
  let unit = more & 0x04 != 0 ? ProgressUnit.items(named: reader.text()) : units[Int(more & 0x03)]
  let throughput =
    more & 0x08 != 0 ? Double(bitPattern: UInt64(bitPattern: reader.integer())) : nil
  let eta = more & 0x10 != 0 ? Duration.nanoseconds(reader.integer()) : nil
  let message = more & 0x20 != 0 ? reader.text() : nil
  let label = reader.text()
  let error = flags & 0x80 != 0 ? reader.text() : nil

  let line = LogLine(
    time: time, label: label, phase: phase, fraction: fraction, completed: completed, total: total,
    unit: unit, throughput: throughput, eta: eta, elapsed: elapsed, message: message, error: error
  ).encoded()

  guard line.hasSuffix("\n"), line.dropLast().allSatisfy({ $0 != "\n" && $0 != "\r" }) else {
    fatalError("not one line: \(line.debugDescription)")
  }
  guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
  else {
    fatalError("not a JSON object: \(line.debugDescription)")
  }
  guard object["phase"] as? String == "\(phase)", object["time"] is String else {
    fatalError("missing fields: \(line.debugDescription)")
  }
  if !label.isEmpty, object["label"] as? String != label {
    fatalError("label did not survive: \(label.debugDescription) -> \(line.debugDescription)")
  }
  if let message, object["message"] as? String != message {
    fatalError("message did not survive: \(message.debugDescription) -> \(line.debugDescription)")
  }
  if let error, object["error"] as? String != error {
    fatalError("error did not survive: \(error.debugDescription) -> \(line.debugDescription)")
  }
  return 0
}
