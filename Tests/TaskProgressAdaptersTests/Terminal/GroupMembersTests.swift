import TaskProgress
import TaskProgressTestSupport
import Testing

@testable import TaskProgressAdapters

/// Something for a member's ID to name.
private final class Token {}

@Suite("Group members")
struct GroupMembersTests {
  private let update = ProgressUpdate(
    reason: .stateChanged, state: .idle, displayedProgress: 0, time: .zero)

  private func member(_ token: Token, _ label: String, running: Bool) -> GroupMembers.Member {
    GroupMembers.Member(
      id: ObjectIdentifier(token), label: label, latest: update,
      run: running ? RunLines(label: label, start: .zero) : nil)
  }

  @Test func membersWithARunComeInTheOrderTheyJoinedWhateverTheOrderTheirRunsBegan() {
    let tokens = (0..<5).map { _ in Token() }
    var members = GroupMembers()
    for (index, token) in tokens.enumerated() {
      let joined = members.append(member(token, "m\(index)", running: false))
      #expect(joined)
    }
    for index in [3, 0, 4, 1] {
      members[ObjectIdentifier(tokens[index])]?.setRun(
        RunLines(label: "m\(index)", start: .zero), latest: update)
    }
    #expect(members.runCount == 4)
    #expect(members.withRuns(prefix: 3).map(\.label) == ["m0", "m1", "m3"])
    members[ObjectIdentifier(tokens[1])]?.endRun()
    #expect(members.withRuns(prefix: 10).map(\.label) == ["m0", "m3", "m4"])
  }

  @Test func aMemberJoinsOnceAndLeavesOnce() {
    let token = Token()
    var members = GroupMembers()
    let joined = members.append(member(token, "a", running: true))
    let joinedAgain = members.append(member(token, "b", running: false))
    #expect(joined && !joinedAgain)
    #expect(members[ObjectIdentifier(token)]?.label == "a")
    let left = members.remove(ObjectIdentifier(token))
    let leftAgain = members.remove(ObjectIdentifier(token))
    #expect(left && !leftAgain)
    #expect(members.isEmpty && members.runCount == 0)
    // Setting a member that is not in the group adds nothing.
    members[ObjectIdentifier(token)] = member(token, "c", running: true)
    #expect(members[ObjectIdentifier(token)] == nil && members.runCount == 0)
  }

  // Seconds of work under ThreadSanitizer: on a thread of its own, it holds none of the pool.
  @Test func randomJoinsRunsAndLeavesMatchAnArrayInJoinOrder() async {
    await onThreadsOfItsOwn { _ in playRandomJoinsRunsAndLeaves() }
  }

  private func playRandomJoinsRunsAndLeaves() {
    var random = SplitMix64(seed: 42)
    let tokens = (0..<300).map { _ in Token() }
    // What the members should be: (token, label, has a run), in the order they joined.
    var model: [(token: Int, label: String, running: Bool)] = []
    var members = GroupMembers()
    var joins = 0
    for _ in 0..<20_000 {
      let token = Int.random(in: 0..<tokens.count, using: &random)
      let id = ObjectIdentifier(tokens[token])
      let present = model.firstIndex { $0.token == token }
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<3:
        joins += 1
        let running = Bool.random(using: &random)
        let joined = members.append(member(tokens[token], "m\(joins)", running: running))
        #expect(joined == (present == nil))
        if present == nil {
          model.append((token, "m\(joins)", running))
        }
      case 3..<6:
        let left = members.remove(id)
        #expect(left == (present != nil))
        if let present {
          model.remove(at: present)
        }
      default:
        let running = Bool.random(using: &random)
        let change = { (member: inout GroupMembers.Member) in
          if running {
            member.setRun(RunLines(label: "", start: .zero), latest: update)
          } else {
            member.endRun()
          }
        }
        // Through the subscript, or `modify`, which says whether the member is one.
        if Bool.random(using: &random) {
          if members[id] != nil {
            change(&members[id]!)
          }
        } else {
          let found = members.modify(id, change)
          #expect(found == (present != nil))
        }
        if let present {
          model[present].running = running
        }
      }
      #expect(members[id]?.label == model.first { $0.token == token }?.label)
      #expect(members.isEmpty == model.isEmpty)
      let running = model.filter(\.running).map(\.label)
      #expect(members.runCount == running.count)
      #expect(members.withRuns(prefix: 5).map(\.label) == Array(running.prefix(5)))
    }
  }
}
