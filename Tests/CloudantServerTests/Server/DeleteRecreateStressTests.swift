import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// `DELETE /{db}` and `PUT /{db}` are ordered with the writes in flight: a write must never reopen a database
/// half-way through its deletion, or the next create would reuse that store on the deleted file and lose, at
/// the next restart, every write acknowledged since.
///
/// Writers keep writing while the database is deleted and created again and again; then the server is
/// restarted on the same folder. Every acknowledged write sent after the last creation must be found;
/// no write acknowledged before the last deletion may be found; and no write may fail other than with
/// `404` (its database was being deleted). `CLOUDANT_STRESS_SCALE` multiplies the size (default 1).
@Suite("Database deletion is ordered with writes")
struct DeleteRecreateStressTests {
    static let scale = Int(ProcessInfo.processInfo.environment["CLOUDANT_STRESS_SCALE"] ?? "") ?? 1

    @Test func everyAcknowledgedWriteIsFoundOrItsDatabaseWasDeletedAfterIt() async throws {
        let server = try await LiveServer.start()
        let folder = server.folder
        var reopened: LiveServer?
        do {
            let log = StressLog<DeleteRecreateCycle>()
            let client = server.admin
            #expect(try await client.send("PUT", "/db").status == 201)
            let writers = 3
            let cycles = 6 * Self.scale
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var sequence = 0
                        while !log.stopped {
                            sequence += 1
                            let id = "w\(writer)-\(sequence)"
                            let sent = log.tick()
                            let answer = try await client.put("/db/\(id)", ["n": .number(JSONNumber(sequence))])
                            log.write(id: id, sent: sent, acknowledged: log.tick(), status: answer.status)
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<cycles {
                        // Each deletion comes once a write went through since the last creation: the writers are
                        // busy with the database it deletes, at whatever pace the machine allows.
                        try await waitUntil("a write since the last creation") { log.acknowledgedAfterLastCreation > 0 }
                        let deleteSent = log.tick()
                        let deleted = try await client.delete("/db")
                        let created = try await client.send("PUT", "/db")
                        log.event(
                            DeleteRecreateCycle(
                                deleteSent: deleteSent, deleted: deleted.status, created: created.status,
                                createAcknowledged: log.tick()))
                    }
                    // Writers go on until some writes are acknowledged after the last creation (without them
                    // the check proves nothing), however slowly a loaded machine lets them through.
                    try await waitUntil("writes after the last creation") { log.acknowledgedAfterLastCreation >= 3 * writers }
                    log.stop()
                }
                try await group.waitForAll()
            }
            try await log.check(against: client, label: "live")
            await server.stop(keepingFolder: true)
            let restarted = try await LiveServer.start(folder: folder)
            reopened = restarted
            try await log.check(against: restarted.admin, label: "after restart")
            print("delete/create stress: \(log.summary)")
        } catch {
            await (reopened ?? server).stop()
            throw error
        }
        await reopened?.stop()
        if reopened == nil { await server.stop() }
    }
}

/// One delete/create cycle on the log's counter: when the deletion was sent, both answers' statuses, and when the
/// creation was acknowledged.
struct DeleteRecreateCycle: Sendable {
    var deleteSent: Int
    var deleted: Int
    var created: Int
    var createAcknowledged: Int
}

extension StressLog<DeleteRecreateCycle> {
    /// Writes sent after the last creation was acknowledged (after the start, before any), and acknowledged
    /// themselves.
    var acknowledgedAfterLastCreation: Int {
        let (writes, cycles) = snapshot
        let created = cycles.last?.createAcknowledged ?? 0  // before the first cycle: since the start
        return writes.filter { $0.status == 201 && $0.sent > created }.count
    }

    /// How many writes (acknowledged, refused) and cycles the test made, for its log line.
    var summary: String {
        let (writes, cycles) = snapshot
        let acknowledged = writes.filter { $0.status == 201 }.count
        let refused = writes.filter { $0.status == 404 }.count
        return "\(writes.count) writes (\(acknowledged) acknowledged, \(refused) refused with 404), \(cycles.count) delete/create cycles"
    }

    /// Checks the database's documents against the log.
    func check(against client: TestClient, label: String) async throws {
        let (writes, cycles) = snapshot
        #expect(cycles.allSatisfy { $0.deleted == 200 && $0.created == 201 }, "\(label): a delete or create failed")
        #expect(writes.allSatisfy { $0.status == 201 || $0.status == 404 }, "\(label): statuses \(Set(writes.map(\.status)))")
        let listing = try await client.get("/db/_all_docs").json
        let stored = Set((listing["rows"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
        guard let last = cycles.last else { return }
        let mustExist = writes.filter { $0.status == 201 && $0.sent > last.createAcknowledged }
        let lost = mustExist.filter { !stored.contains($0.id) }
        #expect(!mustExist.isEmpty, "\(label): no write was acknowledged after the last creation; the test proved nothing")
        #expect(lost.isEmpty, "\(label): \(lost.count) of \(mustExist.count) writes acknowledged after the last creation are gone")
        let mustBeGone = writes.filter { $0.status == 201 && $0.acknowledged < last.deleteSent }
        let resurrected = mustBeGone.filter { stored.contains($0.id) }
        #expect(resurrected.isEmpty, "\(label): \(resurrected.count) writes of deleted databases reappeared")
    }
}
