extension TaskRunnerGroup {
  /// A group's members at one frame, in the order they joined: each with its latest update and
  /// whether that changed since the frame before.
  ///
  /// A ``GroupRenderer`` reads it in ``Event/frame(_:members:time:)`` instead of keeping a list
  /// of its own:
  ///
  /// ```swift
  /// @MainActor
  /// final class PhaseByLabel: GroupRenderer {
  ///   private(set) var phases: [String: RunPhase] = [:]
  ///
  ///   func render(_ event: TaskRunnerGroup.Event) {
  ///     guard case .frame(_, let members, _) = event else { return }
  ///     for (member, latest, isChanged) in members where isChanged {
  ///       phases[member.label] = latest.state.phase
  ///     }
  ///   }
  /// }
  /// ```
  ///
  /// Making one costs nothing: it shares the group's own storage until the group next changes.
  /// Read it in the call that hands it to you and keep what you need of it, not the snapshot:
  /// a snapshot kept while the group changes makes the group copy its members.
  public struct Members: Sequence, Sendable {
    /// The group's members, those with a run under way marked.
    let entries: SlotList<GroupStateMachine.Entry>
    /// The number of sums the group had made: its frames.
    let sumCount: Int
    /// The number of times a runner joined or left the group: two snapshots with the same
    /// number have the same members.
    package let membership: Int

    /// Every member, in the order it joined: the member, its latest update (the state it
    /// joined in, until its runner delivers another), and whether that update came since the
    /// frame before.
    public func makeIterator()
      -> some IteratorProtocol<(member: Member, latest: ProgressUpdate, isChanged: Bool)>
    {
      let sumCount = self.sumCount
      return entries.slots.lazy.compactMap { slot in
        slot.map { ($0.member, $0.latest, $0.changedBeforeSum >= sumCount - 1) }
      }.makeIterator()
    }

    /// How many members the group has.
    package var count: Int { entries.count }

    /// Whether the group has no members.
    package var isEmpty: Bool { entries.isEmpty }

    /// The members with a run under way, running or paused, in the order they joined; it
    /// goes over them alone, not over the members waiting or done.
    package var active: some Sequence<Member> {
      entries.marked.lazy.map(\.member)
    }

    /// How many members have a run under way.
    package var activeCount: Int { entries.markedCount }

    /// Whether `id` is a member.
    package func contains(_ id: Member.ID) -> Bool {
      entries.contains(id)
    }
  }
}
