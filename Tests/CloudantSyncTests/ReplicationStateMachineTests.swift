import CloudantCore
import CloudantSync
import Testing

@Suite("Replication state machine (no network)")
struct ReplicationStateMachineTests {
    static func machine(continuous: Bool = false, checkpoints: Bool = true, batchSize: Int = 2) -> ReplicationStateMachine {
        ReplicationStateMachine(
            .init(batchSize: batchSize, continuous: continuous, sessionID: "session-b", useCheckpoints: checkpoints, clock: { "now" }))
    }

    static func page(_ changes: [(Int, String, [String])], last: Int, pending: Int? = nil) -> ChangesPage {
        ChangesPage(
            changes: changes.map { PeerChange(seq: .number(JSONNumber($0.0)), id: $0.1, revs: $0.2) },
            lastSeq: .number(JSONNumber(last)), pending: pending)
    }

    /// A machine past its first steps with no checkpoints on either side, asked for its first changes page.
    static func freshMachineReadingChanges(continuous: Bool = false) -> ReplicationStateMachine {
        var machine = Self.machine(continuous: continuous)
        _ = machine.event(.start)
        _ = machine.event(.peersRead(sourceIdentity: "a", targetIdentity: "b"))
        _ = machine.event(.checkpointsRead(source: nil, target: nil))
        return machine
    }

    @Test func aFreshReplicationWalksTheProtocolStepsInOrder() throws {
        var machine = Self.machine()
        guard case .readPeers = machine.event(.start) else { Issue.record("expected readPeers"); return }
        guard case .readCheckpoints(let id) = machine.event(.peersRead(sourceIdentity: "local:a", targetIdentity: "local:b"))
        else { Issue.record("expected readCheckpoints"); return }
        #expect(id.count == 32 && id == machine.replicationID)
        guard case .readChanges(let first) = machine.event(.checkpointsRead(source: nil, target: nil)) else {
            Issue.record("expected readChanges"); return
        }
        #expect(first.since == 0 && first.limit == 2 && first.longpoll == nil)  // no logs, start at 0
        guard case .revsDiff(let asked) = machine.event(.changesRead(Self.page([(1, "a", ["1-a"]), (2, "b", ["2-b", "2-c"])], last: 2, pending: 1)))
        else { Issue.record("expected revsDiff"); return }
        #expect(asked == ["a": ["1-a"], "b": ["2-b", "2-c"]])  // every leaf
        guard case .fetch(let requests) = machine.event(.diffed(["b": MissingRevisions(missing: ["2-c"], possibleAncestors: ["1-x"])]))
        else { Issue.record("expected fetch"); return }
        #expect(requests == [RevisionRequest(id: "b", rev: "2-c", attachmentsSince: ["1-x"])])
        guard case .write(let documents) = machine.event(.fetched([.document(["_id": "b", "_rev": "2-c"])])) else {
            Issue.record("expected write"); return
        }
        #expect(documents.count == 1)
        guard case .writeCheckpoint(let checkpointID, let log) = machine.event(.written([])) else {
            Issue.record("expected writeCheckpoint"); return
        }
        #expect(checkpointID == id)
        #expect(log.sourceLastSeq == 2 && log.json["session_id"] == "session-b")
        #expect(log.history.first?.stats.docsWritten == 1 && log.history.first?.stats.missingFound == 1)
        guard case .readChanges(let second) = machine.event(.checkpointWritten) else { Issue.record("expected readChanges"); return }
        #expect(second.since == 2)
        guard case .finish(let stats) = machine.event(.changesRead(Self.page([], last: 2))) else {
            Issue.record("expected finish"); return
        }
        #expect(stats.docsWritten == 1 && stats.missingChecked == 3 && stats.changesRead == 2)
        #expect(machine.isFinished)
    }

    @Test func aReplicationResumesFromTheCheckpointBothSidesAgreeOn() {
        var machine = Self.machine()
        _ = machine.event(.start)
        _ = machine.event(.peersRead(sourceIdentity: "a", targetIdentity: "b"))
        let log: JSONObject = ["session_id": "old", "source_last_seq": 42, "history": [["session_id": "old", "recorded_seq": 42]]]
        guard case .readChanges(let request) = machine.event(.checkpointsRead(source: log, target: log)) else {
            Issue.record("expected readChanges"); return
        }
        #expect(request.since == 42)
    }

    @Test func sinceSequenceStartsOnlyAReplicationWithoutACheckpointAndIsPartOfItsID() {
        func started(since: JSONValue?, checkpoint: JSONObject?) -> (id: String, since: JSONValue?) {
            var configuration = ReplicationStateMachine.Configuration(batchSize: 2, sessionID: "s", clock: { "now" })
            configuration.sinceSequence = since
            var machine = ReplicationStateMachine(configuration)
            _ = machine.event(.start)
            _ = machine.event(.peersRead(sourceIdentity: "a", targetIdentity: "b"))
            guard case .readChanges(let request) = machine.event(.checkpointsRead(source: checkpoint, target: checkpoint)) else {
                return (machine.replicationID ?? "", nil)
            }
            return (machine.replicationID ?? "", request.since)
        }
        let log: JSONObject = ["session_id": "old", "source_last_seq": 42, "history": [["session_id": "old", "recorded_seq": 42]]]
        #expect(started(since: 7, checkpoint: nil).since == 7)
        #expect(started(since: 7, checkpoint: log).since == 42, "the checkpoint, written by a run that started from 7")
        #expect(started(since: nil, checkpoint: log).since == 42)
        #expect(started(since: nil, checkpoint: nil).since == 0)
        let ids = Set([started(since: 7, checkpoint: nil).id, started(since: 8, checkpoint: nil).id, started(since: nil, checkpoint: nil).id])
        #expect(ids.count == 3)
    }

    @Test func divergedLogsResumeFromTheNewestSharedSession() {
        let source: JSONObject = [
            "session_id": "s3", "source_last_seq": 30,
            "history": [["session_id": "s3", "recorded_seq": 30], ["session_id": "s2", "recorded_seq": 20], ["session_id": "s1", "recorded_seq": 10]],
        ]
        let target: JSONObject = [
            "session_id": "t9", "source_last_seq": 25,
            "history": [["session_id": "t9", "recorded_seq": 25], ["session_id": "s2", "recorded_seq": 20]],
        ]
        #expect(ReplicationLog.startSequence(source: source, target: target) == 20)
        #expect(ReplicationLog.startSequence(source: source, target: nil) == 0)
        let stranger: JSONObject = ["session_id": "x", "history": [["session_id": "x", "recorded_seq": 5]]]
        #expect(ReplicationLog.startSequence(source: source, target: stranger) == 0)
        // `compare_rep_history/2` resumes the entries after the shared one; the same session resumes all.
        #expect(ReplicationLog.resumedHistory(source: source, target: target).compactMap { $0["session_id"]?.stringValue } == ["s1"])
        #expect(ReplicationLog.resumedHistory(source: source, target: source).count == 3)
        #expect(ReplicationLog.resumedHistory(source: source, target: stranger).isEmpty)
    }

    @Test func nothingMissingStillMovesTheCheckpoint() {
        var machine = Self.freshMachineReadingChanges()
        _ = machine.event(.changesRead(Self.page([(5, "a", ["1-a"])], last: 5, pending: 0)))
        guard case .writeCheckpoint(_, let log) = machine.event(.diffed([:])) else { Issue.record("expected checkpoint"); return }
        #expect(log.sourceLastSeq == 5)
        guard case .finish = machine.event(.checkpointWritten) else { Issue.record("expected finish (pending 0)"); return }
    }

    @Test func continuousReplicationWaitsWithLongpollAfterDrainingAndNeverFinishes() {
        var machine = Self.freshMachineReadingChanges(continuous: true)
        guard case .readChanges(let idle) = machine.event(.changesRead(Self.page([], last: 0))) else {
            Issue.record("expected another read"); return
        }
        #expect(idle.longpoll != nil)
        #expect(!machine.isFinished)
    }

    @Test func aRevisionGoneFromTheSourceIsReadOnceMoreThenNamedAsAFailure() {
        var machine = Self.freshMachineReadingChanges()
        _ = machine.event(.changesRead(Self.page([(1, "a", ["1-a"])], last: 1, pending: 0)))
        _ = machine.event(.diffed(["a": MissingRevisions(missing: ["1-a"])]))
        guard case .fetch(let again) = machine.event(.fetched([.missing(id: "a", rev: "1-a")])) else {
            Issue.record("expected a second fetch"); return
        }
        #expect(again == [RevisionRequest(id: "a", rev: "1-a")])
        // Still gone: named, and the checkpoint stays where it was (at 0, so nothing is written).
        guard case .finish(let stats) = machine.event(.fetched([.missing(id: "a", rev: "1-a")])) else {
            Issue.record("expected finish"); return
        }
        #expect(stats.docWriteFailures == 1 && stats.docsWritten == 0)
        #expect(stats.failures == [WriteFailure(id: "a", rev: "1-a", error: "not_found", reason: "The source no longer has this revision.")])
    }

    @Test func withoutCheckpointsNothingIsReadOrWritten() {
        var machine = Self.machine(checkpoints: false)
        _ = machine.event(.start)
        guard case .readChanges = machine.event(.peersRead(sourceIdentity: "a", targetIdentity: "b")) else {
            Issue.record("expected readChanges"); return
        }
        _ = machine.event(.changesRead(Self.page([(1, "a", ["1-a"])], last: 1, pending: 0)))
        guard case .finish = machine.event(.diffed([:])) else { Issue.record("expected finish"); return }
    }

    @Test func theReplicationIDDependsOnPeersAndFilterButNotOnTheSession() {
        func id(_ source: String, _ filter: ReplicationFilter, session: String = "s") -> String? {
            var machine = ReplicationStateMachine(.init(filter: filter, sessionID: session, clock: { "" }))
            _ = machine.event(.start)
            _ = machine.event(.peersRead(sourceIdentity: source, targetIdentity: "t"))
            return machine.replicationID
        }
        #expect(id("a", .none) == id("a", .none, session: "other"))
        #expect(id("a", .none) != id("b", .none))
        #expect(id("a", .none) != id("a", .documentIDs(["x"])))
        #expect(id("a", .documentIDs(["x", "y"])) == id("a", .documentIDs(["y", "x"])))
    }
}
