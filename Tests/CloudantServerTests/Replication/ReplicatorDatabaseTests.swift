import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// The `_replicator` database: documents that are jobs, reported in `/_scheduler/docs`, retried forever, kept over
/// a restart.
@Suite("The _replicator database")
struct ReplicatorDatabaseTests {
    /// The state `/_scheduler/docs/_replicator/{id}` reports for a document.
    private static func state(of id: String, on server: LiveServer) async throws -> String? {
        try await server.admin.get("/_scheduler/docs/_replicator/\(id)").json["state"]?.stringValue
    }

    @Test func aOneShotDocumentCompletesAndRecordsItInTheDocument() async throws {
        try await withLiveServer { remote in
            try await withLiveDatabase("source") { server, client in
                _ = try await client.put("/source/a", ["v": 1])
                _ = try await client.put("/source/b", ["v": 2])
                let target = "http://admin:s3cret@127.0.0.1:\(remote.port)/backup"
                let written = try await client.put(
                    "/_replicator/nightly", ["source": "source", "target": .string(target), "create_target": true])
                #expect(written.status == 201)
                try await waitUntil("the job completed") { try await Self.state(of: "nightly", on: server) == "completed" }
                let document = try await client.get("/_replicator/nightly").json
                #expect(document["_replication_state"] == "completed")
                #expect(document["_replication_state_time"]?.stringValue?.hasSuffix("Z") == true)
                #expect(document["_replication_stats"]?["docs_written"] == 2)
                #expect(document["owner"] == "admin")
                #expect(try await remote.admin.get("/backup/b").json["v"] == 2)
                let report = try await client.get("/_scheduler/docs/_replicator/nightly")
                #expect(!report.text.contains("s3cret"))
                #expect(report.json["database"] == "_replicator")
                #expect(report.json["doc_id"] == "nightly")
                #expect(report.json["target"] == .string("http://127.0.0.1:\(remote.port)/backup/"))
                #expect(report.json["info"]?["docs_written"] == 2)
                #expect(report.json["error_count"] == 0)
                let listed = try await client.get("/_scheduler/docs?states=completed").json
                #expect(listed["total_rows"] == 1)
                #expect(try await client.get("/_scheduler/docs/_replicator?states=running").json["total_rows"] == 0)
                // A completed document is not run again, even after a restart of its server.
                #expect(try await client.get("/_scheduler/jobs").json["total_rows"] == 0)
            }
        }
    }

    @Test func aContinuousDocumentJobSurvivesARestartAndStopsWhenDeleted() async throws {
        try await withRestartableLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/source")
            _ = try await client.put("/source/before", ["v": 1])
            let rev = try #require(
                try await client.put("/_replicator/follow", ["source": "source", "target": "mirror", "continuous": true, "create_target": true])
                    .json["rev"]?.stringValue)
            try await waitUntil("the first document replicated") { try await client.get("/mirror/before").status == 200 }
            #expect(try await Self.state(of: "follow", on: server) == "running")
            let id = try #require(try await client.get("/_scheduler/docs/_replicator/follow").json["id"]?.stringValue)
            #expect(id.hasSuffix("+continuous+create_target"))
            #expect(try await client.get("/_scheduler/jobs/\(id)").json["doc_id"] == "follow")
            // CouchDB 3 writes nothing into a running job's document.
            #expect(try await client.get("/_replicator/follow").json["_replication_state"] == nil)

            server = try await server.restart()
            let restarted = server.admin
            _ = try await restarted.put("/source/after", ["v": 2])
            try await waitUntil("a document written after the restart replicated") {
                try await restarted.get("/mirror/after").status == 200
            }
            #expect(try await Self.state(of: "follow", on: server) == "running")
            #expect(try await restarted.get("/_scheduler/jobs").json["total_rows"] == 1)

            #expect(try await restarted.delete("/_replicator/follow?rev=\(rev)").status == 200)
            #expect(try await restarted.get("/_scheduler/jobs").json["total_rows"] == 0)
            #expect(try await restarted.get("/_scheduler/docs/_replicator/follow").status == 404)
        }
    }

    @Test func aJobAgainstAnUnreachableTargetCrashesWithBackoffThenRunsWhenItComesBack() async throws {
        let remote = try await LiveServer.start()
        let (port, folder) = (remote.port, remote.folder)
        await remote.stop(keepingFolder: true)
        try await remote.waitUntilRefused()
        var cameBack: LiveServer?
        try await withLiveServer({ configuration in
            configuration.replicator = ReplicatorSettings(retriesPerRequest: 0, backoffInterval: .milliseconds(200))
        }) { server in
            let client = server.admin
            _ = try await client.send("PUT", "/source")
            _ = try await client.put("/source/waiting", ["v": 1])
            let target = "http://admin:s3cret@127.0.0.1:\(port)/inbox"
            _ = try await client.put(
                "/_replicator/outbound", ["source": "source", "target": .string(target), "continuous": true, "create_target": true])
            try await waitUntil("the job crashing more than once") {
                let report = try await client.get("/_scheduler/docs/_replicator/outbound").json
                return report["state"] == "crashing" && (report["error_count"]?.numberValue?.int64Value ?? 0) >= 2
            }
            let report = try await client.get("/_scheduler/docs/_replicator/outbound")
            #expect(report.json["info"]?["error"]?.stringValue?.isEmpty == false)
            #expect(!report.text.contains("s3cret"))
            let id = try #require(report.json["id"]?.stringValue)
            let history = try await client.get("/_scheduler/jobs/\(id)").json["history"]?.arrayValue ?? []
            #expect(history.contains { $0["type"] == "crashed" && $0["reason"]?.stringValue != nil })
            // A job waiting out its backoff is no task, and leaves no `null` in the list in its place.
            let tasks = try await client.get("/_active_tasks").json.arrayValue ?? []
            #expect(tasks.allSatisfy { $0.objectValue?["type"] == "replication" }, "\(tasks)")

            let back = try await LiveServer.start(folder: folder, port: port)
            cameBack = back
            try await waitUntil("the document replicated once the target is back") {
                try await back.admin.get("/inbox/waiting").status == 200
            }
            try await waitUntil("the job running") { try await Self.state(of: "outbound", on: server) == "running" }
        }
        await cameBack?.stop()
    }

    @Test func documentsThatCannotBeJobsAreForbiddenAndOwnersAreKept() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let missing = try await client.put("/_replicator/broken", ["target": "t"])
            missing.expectCouchError(403, "forbidden", "Missing replicator database")
            // In a batch, each document is judged on its own, as CouchDB's validation function judges them.
            let bulk = try await client.post(
                "/_replicator/_bulk_docs",
                ["docs": [["_id": "b", "source": "s", "target": "t", "continuous": 1], ["_id": "fine", "source": "s", "target": "t2"]]])
            #expect(bulk.status == 201)
            let rows = try #require(bulk.json.arrayValue)
            #expect(rows.count == 2)
            #expect(rows.first == ["id": "b", "error": "forbidden", "reason": "parameter `continuous` must be a boolean"])
            #expect(rows.last?["ok"] == true)
            #expect(try await client.get("/_replicator/b").status == 404)
            #expect(try await client.get("/_replicator/fine").status == 200)
            // An admin may write another user's document; the owner stays.
            _ = try await client.send("PUT", "/s")
            let theirs = try await client.put("/_replicator/theirs", ["source": "s", "target": "t", "owner": "joe", "create_target": true])
            #expect(theirs.status == 201)
            #expect(try await client.get("/_replicator/theirs").json["owner"] == "joe")
            try await waitUntil("joe's job completed") { try await Self.state(of: "theirs", on: server) == "completed" }
        }
    }

    @Test func aDocumentWhoseSourceIsMissingReportsAnErrorAndStartsOnceItExists() async throws {
        try await withLiveServer({ configuration in
            configuration.replicator = ReplicatorSettings(retriesPerRequest: 0, backoffInterval: .milliseconds(100))
        }) { server in
            let client = server.admin
            _ = try await client.put("/_replicator/later", ["source": "later-source", "target": "later-target", "create_target": true])
            try await waitUntil("the document in error") { try await Self.state(of: "later", on: server) == "error" }
            let report = try await client.get("/_scheduler/docs/_replicator/later").json
            #expect(report["info"]?["error"] == "could not open later-source")
            #expect(report["id"] == .null)
            _ = try await client.send("PUT", "/later-source")
            _ = try await client.put("/later-source/x", ["v": 1])
            try await waitUntil("the job completed") { try await Self.state(of: "later", on: server) == "completed" }
            #expect(try await client.get("/later-target/x").status == 200)
        }
    }
}
