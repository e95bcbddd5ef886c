import CloudantCore
import CloudantStore
import Foundation
import Testing

/// `cloudant queue list|replay|clear`, typed as a user would, against a real
/// `cloudant serve` process that is killed (the remote away) and restarted.
@Suite("cloudant queue")
struct QueueCommandTests {
    struct Memo: Codable, Identifiable, Sendable, CloudantRevision {
        var id: String
        var text: String
        var revId: String?
    }

    /// Writes `memos` into store `phone` of `folder`, queued for `remote`, as a repository does offline.
    static func queueWrites(_ memos: [Memo], for remote: String, in folder: URL) async throws {
        let store = try DocumentStore.open(
            name: "phone", in: StoreDirectory(path: folder.appendingPathComponent("cloudant-data").path),
            options: StoreOptions(acceptsUnregisteredEntities: true))
        _ = try await store.add(memos, enqueueingFor: remote)
        try store.close()
    }

    @Test func listShowsTheQueueReplaySendsItInOrderAndClearForgetsIt() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await KillableServer(folder: folder.appendingPathComponent("server"))
        defer { server.stop() }
        #expect(await ServeHTTP.request("PUT", "/notes", port: server.port)?.status == 201)
        let remote = "http://127.0.0.1:\(server.port)/notes"
        try await Self.queueWrites([Memo(id: "m1", text: "one"), Memo(id: "m2", text: "two")], for: remote, in: folder)

        let listed = try await CLIRunner.run(["queue", "list", "--db", "phone"], in: folder)
        #expect(listed.status == 0, "\(listed.stderr)")
        let queue = try jsonObject(listed.stdout)
        #expect(queue["ok"] as? Bool == true && queue["db"] as? String == "phone" && queue["count"] as? Int == 2)
        let entries = try #require(queue["pending"] as? [[String: Any]])
        #expect(entries.map { $0["id"] as? String } == ["m1", "m2"])
        #expect(entries.map { $0["action"] as? String } == ["store", "store"])
        #expect(entries.allSatisfy { $0["remote"] as? String == remote && $0["kind"] as? String == "Memo" && $0["attempts"] as? Int == 0 })

        // The remote away: replay fails as unavailable (status 6) and keeps the queue, counting the attempt.
        server.stop()
        let away = try await CLIRunner.run(["--data", "cloudant-data", "queue", "replay", "--db", "phone", "--remote", remote], in: folder)
        #expect(away.status == 6, "\(away.stderr)")
        #expect(try jsonObject(away.stderr)["error"] as? String != nil)
        let after = try jsonObject(try await CLIRunner.run(["queue", "list", "--db", "phone", "--remote", remote], in: folder).stdout)
        #expect(after["count"] as? Int == 2)
        #expect((after["pending"] as? [[String: Any]])?.first?["attempts"] as? Int == 1)

        await server.killAndRestart()
        let replayed = try await CLIRunner.run(["queue", "replay", "--db", "phone", "--remote", remote, "--conflicts", "keep-remote"], in: folder)
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let report = try jsonObject(replayed.stdout)
        #expect(report["sent"] as? Int == 2 && report["pending"] as? Int == 0)
        #expect((report["resolved_conflicts"] as? [Any])?.isEmpty == true)
        let m2 = try #require(await ServeHTTP.request("GET", "/notes/m2", port: server.port))
        #expect(m2.status == 200 && m2.body.contains(#""text":"two""#))

        try await Self.queueWrites([Memo(id: "m3", text: "three")], for: remote, in: folder)
        let cleared = try await CLIRunner.run(["queue", "clear", "--db", "phone"], in: folder)
        #expect(try jsonObject(cleared.stdout)["removed"] as? Int == 1)
        #expect(try jsonObject(try await CLIRunner.run(["queue", "list", "--db", "phone"], in: folder).stdout)["count"] as? Int == 0)
    }

    @Test func badArgumentsAreInvalidInputAndAMissingStoreIsNotFound() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let policy = try await CLIRunner.run(["queue", "replay", "--db", "x", "--remote", "http://127.0.0.1:1/x", "--conflicts", "coin"], in: folder)
        #expect(policy.status == 2)
        #expect(try await CLIRunner.run(["queue", "list", "--db", "nothing"], in: folder).status == 3)
        #expect(try await CLIRunner.run(["queue", "list", "--db", "x", "--remote", "ftp://x/y"], in: folder).status != 0)
    }
}
