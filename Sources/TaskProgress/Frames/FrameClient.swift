/// Something that draws on frames: a runner that reads its reports and moves its display, a group that sums up its members.
@MainActor
protocol FrameClient: AnyObject {
  /// Runs one frame at `now`, a time on the ticker's clock, and returns whether it needs another.
  func frame(at now: Duration) -> Bool
}
