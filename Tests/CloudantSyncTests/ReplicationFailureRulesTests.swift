import CloudantCore
import CloudantSync
import Testing

/// The state machine's rule that no revision is skipped silently: what fails is tried once more with all
/// its attachments, what still fails is named, and the checkpoint never moves past the first such change.
@Suite("Replication failures: named, retried, never checkpointed past (no network)")
struct ReplicationFailureRulesTests {
    typealias Machine = ReplicationStateMachine

    /// A machine past its checkpoint read, at the first changes request.
    static func started(batchSize: Int = 3, continuous: Bool = false) -> Machine {
        var machine = ReplicationStateMachineTests.machine(continuous: continuous, batchSize: batchSize)
        _ = machine.event(.start)
        _ = machine.event(.peersRead(sourceIdentity: "a", targetIdentity: "b"))
        _ = machine.event(.checkpointsRead(source: nil, target: nil))
        return machine
    }

    static func document(_ id: String, _ rev: String, attachments: JSONObject? = nil, history: [String]? = nil) -> JSONObject {
        let generation = Int(rev.prefix { $0 != "-" }) ?? 1
        let hashes = history ?? [String(rev.drop { $0 != "-" }.dropFirst())]
        var document: JSONObject = [
            "_id": .string(id), "_rev": .string(rev),
            "_revisions": ["start": .number(JSONNumber(generation)), "ids": .array(hashes.map { .string($0) })],
        ]
        if let attachments { document["_attachments"] = .object(attachments) }
        return document
    }

    static func stub(revpos: Int?) -> JSONValue {
        var stub: JSONObject = ["stub": true, "content_type": "application/octet-stream", "digest": "md5-x", "length": 5]
        if let revpos { stub["revpos"] = .number(JSONNumber(revpos)) }
        return .object(stub)
    }

    @Test func aDocumentTheTargetRefusesIsFetchedAgainWithAllAttachmentsAndWrittenAgain() {
        var machine = Self.started()
        _ = machine.event(.changesRead(ReplicationStateMachineTests.page([(1, "a", ["2-b"]), (2, "c", ["1-c"])], last: 2, pending: 0)))
        _ = machine.event(.diffed(["a": MissingRevisions(missing: ["2-b"], possibleAncestors: ["1-a"]), "c": MissingRevisions(missing: ["1-c"])]))
        let a = Self.document("a", "2-b", attachments: ["x": Self.stub(revpos: 1)], history: ["b", "a"])
        guard case .write = machine.event(.fetched([.document(a), .document(Self.document("c", "1-c"))])) else {
            Issue.record("expected write"); return
        }
        let refusal = WriteFailure(id: "a", rev: "2-b", error: "missing_stub", reason: "Invalid attachment stub in a for x")
        guard case .fetch(let again) = machine.event(.written([refusal])) else { Issue.record("expected a second fetch"); return }
        #expect(again == [RevisionRequest(id: "a", rev: "2-b", attachmentsSince: [])])
        let full = Self.document("a", "2-b", attachments: ["x": ["data": "aGVsbG8=", "revpos": 1]], history: ["b", "a"])
        guard case .write(let retried) = machine.event(.fetched([.document(full)])) else { Issue.record("expected write"); return }
        #expect(retried == [full])
        guard case .writeCheckpoint(_, let log) = machine.event(.written([])) else { Issue.record("expected checkpoint"); return }
        #expect(log.sourceLastSeq == 2)
        #expect(machine.stats.docsWritten == 2 && machine.stats.docWriteFailures == 0 && machine.stats.failures.isEmpty)
    }

    @Test func aFailureThatPersistsIsNamedAndHoldsTheCheckpointBeforeItsChangeForTheRestOfTheRun() {
        var machine = Self.started(batchSize: 3)
        let page = ReplicationStateMachineTests.page([(10, "a", ["1-a"]), (11, "b", ["1-b"]), (12, "c", ["1-c"])], last: 12, pending: 3)
        _ = machine.event(.changesRead(page))
        _ = machine.event(.diffed(["a": MissingRevisions(missing: ["1-a"]), "b": MissingRevisions(missing: ["1-b"]), "c": MissingRevisions(missing: ["1-c"])]))
        _ = machine.event(.fetched(["a", "b", "c"].map { .document(Self.document($0, "1-\($0)")) }))
        let forbidden = WriteFailure(id: "b", rev: "1-b", error: "forbidden", reason: "Only admins may write b.")
        // Validation answers the same every time: the refusal is named at once, not read again.
        guard case .writeCheckpoint(_, let held) = machine.event(.written([forbidden])) else { Issue.record("expected checkpoint"); return }
        // The change before b's: a's, at 10; the next run reads b again.
        #expect(held.sourceLastSeq == 10 && held.history.first?.recordedSeq == 10)
        #expect(machine.stats.failures == [forbidden])
        guard case .readChanges(let next) = machine.event(.checkpointWritten) else { Issue.record("expected readChanges"); return }
        #expect(next.since == 12)  // the feed itself goes on
        // Later batches are written, but checkpoints stay at 10 (so none is written again).
        _ = machine.event(.changesRead(ReplicationStateMachineTests.page([(13, "d", ["1-d"])], last: 13, pending: 0)))
        _ = machine.event(.diffed(["d": MissingRevisions(missing: ["1-d"])]))
        _ = machine.event(.fetched([.document(Self.document("d", "1-d"))]))
        guard case .finish(let stats) = machine.event(.written([])) else { Issue.record("expected finish"); return }
        #expect(stats.docsWritten == 3 && stats.docWriteFailures == 1)
        #expect(machine.checkpointedSeq == 10)
    }

    @Test func aFailureInTheFirstChangeOfABatchHoldsTheCheckpointWhereTheBatchBegan() {
        var machine = Self.started(batchSize: 2)
        _ = machine.event(.changesRead(ReplicationStateMachineTests.page([(1, "a", ["1-a"]), (2, "b", ["1-b"])], last: 2, pending: 2)))
        _ = machine.event(.diffed(["a": MissingRevisions(missing: ["1-a"]), "b": MissingRevisions(missing: ["1-b"])]))
        _ = machine.event(.fetched([.document(Self.document("a", "1-a")), .document(Self.document("b", "1-b"))]))
        _ = machine.event(.written([]))
        _ = machine.event(.checkpointWritten)  // at 2
        _ = machine.event(.changesRead(ReplicationStateMachineTests.page([(3, "c", ["1-c"]), (4, "d", ["1-d"])], last: 4, pending: 0)))
        _ = machine.event(.diffed(["c": MissingRevisions(missing: ["1-c"]), "d": MissingRevisions(missing: ["1-d"])]))
        _ = machine.event(.fetched([.document(Self.document("c", "1-c")), .document(Self.document("d", "1-d"))]))
        let refused = WriteFailure(id: "c", error: "conflict", reason: "no")  // no revision: every one of c's
        _ = machine.event(.written([refused]))
        _ = machine.event(.fetched([.document(Self.document("c", "1-c"))]))
        guard case .finish(let stats) = machine.event(.written([refused])) else { Issue.record("expected finish"); return }
        #expect(machine.checkpointedSeq == 2)
        #expect(stats.failures.map(\.rev) == ["1-c"])
    }

    @Test func stubsTheTargetMayLackAreReadAgainWithTheirDataBeforeAnyWrite() {
        // A revpos of 0 (CouchDB's, for attachments written with new_edits=false and no revpos), none, or one
        // newer than the ancestor the target holds: the target cannot be trusted to hold the attachment.
        for stub in [Self.stub(revpos: 0), Self.stub(revpos: nil), Self.stub(revpos: 3)] {
            var machine = Self.started()
            _ = machine.event(.changesRead(ReplicationStateMachineTests.page([(1, "a", ["3-c"])], last: 1, pending: 0)))
            _ = machine.event(.diffed(["a": MissingRevisions(missing: ["3-c"], possibleAncestors: ["2-b"])]))
            let document = Self.document("a", "3-c", attachments: ["x": stub], history: ["c", "b", "a"])
            guard case .fetch(let again) = machine.event(.fetched([.document(document)])) else {
                Issue.record("expected a second fetch for \(stub)"); continue
            }
            #expect(again == [RevisionRequest(id: "a", rev: "3-c")])
        }
        // A revpos the target's ancestor 2-b covers is trusted.
        var machine = Self.started()
        _ = machine.event(.changesRead(ReplicationStateMachineTests.page([(1, "a", ["3-c"])], last: 1, pending: 0)))
        _ = machine.event(.diffed(["a": MissingRevisions(missing: ["3-c"], possibleAncestors: ["2-b"])]))
        let trusted = Self.document("a", "3-c", attachments: ["x": Self.stub(revpos: 2)], history: ["c", "b", "a"])
        guard case .write = machine.event(.fetched([.document(trusted)])) else { Issue.record("expected write"); return }
    }

    @Test func documentsNobodyAskedForAreNeverWrittenAndLeftOutRevisionsAreRetriedThenNamed() {
        var machine = Self.started()
        _ = machine.event(.changesRead(ReplicationStateMachineTests.page([(1, "a", ["1-a"]), (2, "b", ["1-b"])], last: 2, pending: 0)))
        _ = machine.event(.diffed(["a": MissingRevisions(missing: ["1-a"]), "b": MissingRevisions(missing: ["1-b"])]))
        let evil = Self.document("_design/evil", "1-e")
        let stranger = Self.document("a", "1-zzz")  // a's id, another revision
        guard case .write(let written) = machine.event(.fetched([.document(evil), .document(stranger), .document(Self.document("b", "1-b"))]))
        else { Issue.record("expected write"); return }
        #expect(written.map { $0["_id"]?.stringValue } == ["b"])
        guard case .fetch(let again) = machine.event(.written([])) else { Issue.record("expected a second fetch"); return }
        #expect(again == [RevisionRequest(id: "a", rev: "1-a")])
        guard case .finish(let stats) = machine.event(.fetched([])) else { Issue.record("expected finish"); return }
        #expect(stats.failures.map(\.id) == ["a"] && stats.failures.first?.error == "not_found")
    }

    @Test func aLatestLeafDescendingFromTheRequestedRevisionAnswersIt() {
        var machine = Self.started()
        _ = machine.event(.changesRead(ReplicationStateMachineTests.page([(1, "a", ["1-a"])], last: 1, pending: 0)))
        _ = machine.event(.diffed(["a": MissingRevisions(missing: ["1-a"])]))
        let newer = Self.document("a", "2-b", history: ["b", "a"])
        guard case .write(let written) = machine.event(.fetched([.document(newer)])) else { Issue.record("expected write"); return }
        #expect(written == [newer])
    }

    @Test func rowsBeyondThePeersLimitsAreNamedWithoutBeingDiffed() {
        var machine = Self.started()
        let page = ChangesPage(
            changes: [
                PeerChange(seq: 1, id: "ok", revs: ["1-a"]),
                PeerChange(seq: 2, id: "bad", revs: ["9007199254740993-a"], problem: "The generation is above 2^53 − 1."),
            ],
            lastSeq: 2, pending: 0)
        guard case .revsDiff(let asked) = machine.event(.changesRead(page)) else { Issue.record("expected revsDiff"); return }
        #expect(asked == ["ok": ["1-a"]])
        guard case .writeCheckpoint(_, let log) = machine.event(.diffed([:])) else { Issue.record("expected checkpoint"); return }
        #expect(log.sourceLastSeq == 1)
        #expect(machine.stats.failures.map(\.id) == ["bad"] && machine.stats.failures.first?.error == "bad_request")
    }

    @Test func aRowWithTwentyThousandLeavesIsDiffedAndFetchedWholly() {
        var machine = Self.started()
        let leaves = (0..<20_000).map { "1-\($0)" }
        _ = machine.event(.changesRead(ChangesPage(changes: [PeerChange(seq: 1, id: "a", revs: leaves)], lastSeq: 1, pending: 0)))
        guard case .fetch(let requests) = machine.event(.diffed(["a": MissingRevisions(missing: leaves.reversed())])) else {
            Issue.record("expected fetch"); return
        }
        #expect(requests.count == 20_000)
    }

    @Test func aRevisionWrittenLaterLeavesTheFailuresItWasListedIn() {
        var machine = Self.started()
        var carried = ReplicationStats()
        carried.failures = [WriteFailure(id: "a", rev: "1-a", error: "forbidden", reason: "no")]
        carried.docWriteFailures = 1
        // What a continuous replication starting again from its checkpoint carries into the new session.
        machine = Self.resumed(carrying: carried)
        _ = machine.event(.changesRead(ReplicationStateMachineTests.page([(1, "a", ["1-a"])], last: 1, pending: 0)))
        _ = machine.event(.diffed(["a": MissingRevisions(missing: ["1-a"])]))
        _ = machine.event(.fetched([.document(Self.document("a", "1-a"))]))
        _ = machine.event(.written([]))
        #expect(machine.stats.failures.isEmpty && machine.stats.docWriteFailures == 0)
    }

    @Test func aSessionStartedAgainCountsTheEarlierSessionsWorkOnceInItsCheckpoint() {
        // Session s1 writes two documents and checkpoints.
        var first = Machine(.init(batchSize: 3, sessionID: "s1", clock: { "now" }))
        _ = first.event(.start)
        _ = first.event(.peersRead(sourceIdentity: "a", targetIdentity: "b"))
        _ = first.event(.checkpointsRead(source: nil, target: nil))
        _ = first.event(.changesRead(ReplicationStateMachineTests.page([(1, "a", ["1-a"]), (2, "b", ["1-b"])], last: 2, pending: 1)))
        _ = first.event(.diffed(["a": MissingRevisions(missing: ["1-a"]), "b": MissingRevisions(missing: ["1-b"])]))
        _ = first.event(.fetched([.document(Self.document("a", "1-a")), .document(Self.document("b", "1-b"))]))
        guard case .writeCheckpoint(_, let firstLog) = first.event(.written([])) else { Issue.record("expected checkpoint"); return }
        #expect(firstLog.history.first?.stats.docsWritten == 2)

        // A continuous replication starts again as session s2, carrying s1's statistics, and resumes s1's log.
        var second = Machine(.init(batchSize: 3, sessionID: "s2", initialStats: first.stats, clock: { "now" }))
        _ = second.event(.start)
        _ = second.event(.peersRead(sourceIdentity: "a", targetIdentity: "b"))
        _ = second.event(.checkpointsRead(source: firstLog.json, target: firstLog.json))
        _ = second.event(.changesRead(ReplicationStateMachineTests.page([(3, "c", ["1-c"])], last: 3, pending: 0)))
        _ = second.event(.diffed(["c": MissingRevisions(missing: ["1-c"])]))
        _ = second.event(.fetched([.document(Self.document("c", "1-c"))]))
        guard case .writeCheckpoint(_, let secondLog) = second.event(.written([])) else { Issue.record("expected checkpoint"); return }
        // couch_replicator_stats:max_stats/2 of the carried statistics and the resumed entry, then s2's own.
        #expect(secondLog.history.first?.stats.docsWritten == 3)
        #expect(secondLog.history.first?.stats.missingFound == 3)
        #expect(secondLog.history.map(\.sessionID) == ["s2", "s1"])
        #expect(second.stats.docsWritten == 3)
    }

    @Test func aCheckpointKeepsOnlyTheHistoryItResumed() {
        // The target was deleted and made again: its log is gone, the source's still names three sessions.
        let source: JSONObject = [
            "session_id": "s3", "source_last_seq": 30,
            "history": [["session_id": "s3", "recorded_seq": 30], ["session_id": "s2", "recorded_seq": 20], ["session_id": "s1", "recorded_seq": 10]],
        ]
        var machine = Machine(.init(batchSize: 3, sessionID: "n1", clock: { "now" }))
        _ = machine.event(.start)
        _ = machine.event(.peersRead(sourceIdentity: "a", targetIdentity: "b"))
        guard case .readChanges(let request) = machine.event(.checkpointsRead(source: source, target: nil)) else {
            Issue.record("expected readChanges"); return
        }
        #expect(request.since == 0)
        _ = machine.event(.changesRead(ReplicationStateMachineTests.page([(15, "a", ["1-a"])], last: 15, pending: 5)))
        guard case .writeCheckpoint(_, let log) = machine.event(.diffed([:])) else { Issue.record("expected checkpoint"); return }
        // Nothing was resumed, so nothing older is kept: had the source's checkpoint write then failed, a log
        // naming s3 on the target would have let the next run resume from 30 and skip 16–30.
        #expect(log.history.map(\.sessionID) == ["n1"])
        #expect(ReplicationLog.startSequence(source: source, target: log.json) == 0)
    }

    static func resumed(carrying stats: ReplicationStats) -> Machine {
        var machine = Machine(
            .init(batchSize: 3, sessionID: "s2", initialStats: stats, clock: { "now" }))
        _ = machine.event(.start)
        _ = machine.event(.peersRead(sourceIdentity: "a", targetIdentity: "b"))
        _ = machine.event(.checkpointsRead(source: nil, target: nil))
        return machine
    }
}
