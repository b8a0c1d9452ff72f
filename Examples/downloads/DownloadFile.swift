import TaskProgress

/// One file of the queue: its name, its size, and how fast its server sends it.
///
/// Nothing goes over a network: ``transfer(speed:reporter:)`` waits a tick at a time and counts
/// the bytes a connection of ``bytesPerSecond`` would have brought, give or take a quarter.
struct DownloadFile: Equatable, Sendable {
  /// The file's place in the queue, from 1.
  let number: Int
  /// The file's name, the label of its bar.
  let name: String
  /// The size in bytes, from 1 MB to 200 MB.
  let size: Int
  /// The speed of the file's connection, from 25 MB/s to 75 MB/s.
  let bytesPerSecond: Double
  /// The count of bytes after which the connection breaks off, for `--fail-at`.
  let failsAfter: Int?
  /// Where the random ups and downs of the file's speed start from: the same ones for the same
  /// number.
  let jitterSeed: UInt64

  /// How many chunks arrive per second.
  static let ticksPerSecond = 40
  /// The time between two chunks.
  static let tick = Duration.seconds(1) / ticksPerSecond
  static let sizeRange = 1_000_000...200_000_000
  static let speedRange = 25_000_000...75_000_000

  /// The queue of `count` files that `seed` picks; file `failAt`, if any, breaks off partway.
  static func queue(count: Int, seed: UInt64, failAt: Int? = nil) -> [DownloadFile] {
    var random = WyRand(seed: seed)
    return (0..<count).map { index in
      let number = index + 1
      let (stem, fileExtension) = names[random.next(below: names.count)]
      let size = sizeRange.lowerBound + random.next(below: sizeRange.count)
      let speed = speedRange.lowerBound + random.next(below: speedRange.count)
      let breakPoint = size / 100 * (30 + random.next(below: 41))  // 30% to 70% of the size
      return DownloadFile(
        number: number, name: "\(stem)-\(number).\(fileExtension)", size: size,
        bytesPerSecond: Double(speed), failsAfter: number == failAt ? breakPoint : nil,
        jitterSeed: random.next())
    }
  }

  /// The stems and extensions of the files' names.
  private static let names = [
    ("ubuntu-desktop", "iso"), ("holiday-photos", "zip"), ("dataset", "csv.gz"),
    ("podcast", "mp3"), ("backup", "tar"), ("firmware", "bin"), ("lecture", "mp4"),
    ("fonts", "zip"), ("manual", "pdf"), ("sdk", "pkg"),
  ]

  /// Downloads the file, as far as a simulation does: reports the bytes received after every
  /// tick, as many as ``bytesPerSecond`` says, until all have come, the connection breaks off
  /// (``DownloadError``), or the run is cancelled (`CancellationError`).
  ///
  /// At `speed` times the speed, a tick is `speed` times as short, so that the file comes in as
  /// many chunks.
  @concurrent
  func transfer(speed: Double, reporter: TaskRunner.Reporter) async throws {
    var random = WyRand(seed: jitterSeed)
    let perTick = bytesPerSecond / Double(DownloadFile.ticksPerSecond)
    let tick = DownloadFile.tick / speed
    var received = 0
    reporter.report(completed: 0, of: size)
    while received < size {
      try await Task.sleep(for: tick)
      let jitter = 0.75 + Double(random.next(below: 501)) / 1_000  // 0.75 to 1.25
      received = min(size, received + max(1, Int(perTick * jitter)))
      if let failsAfter, received >= failsAfter {
        reporter.report(completed: failsAfter, of: size)
        throw DownloadError.connectionReset(after: failsAfter)
      }
      reporter.report(completed: received, of: size)
    }
  }
}

/// Why a download failed.
enum DownloadError: Error, Equatable, CustomStringConvertible {
  /// The connection broke off after the bytes received.
  case connectionReset(after: Int)

  var description: String {
    switch self {
    case .connectionReset: "the connection was reset (as --fail-at asked)"
    }
  }
}

/// A small, fast, seedable generator (wyrand): the same seed gives the same queue.
struct WyRand: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0xA076_1D64_78BD_642F
    let product = state.multipliedFullWidth(by: state ^ 0xE703_7ED1_A0B4_28DB)
    return product.high ^ product.low
  }

  /// A number in `0..<bound`.
  mutating func next(below bound: Int) -> Int {
    Int(next() % UInt64(bound))
  }
}
