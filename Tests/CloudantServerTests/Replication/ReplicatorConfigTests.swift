import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// The `replicator` section of `/_node/{node}/_config` as couch_replicator reads it for each job it starts:
/// empty as CouchDB 3.5's `default.ini` leaves it, and the keys this server applies take effect for the next job.
@Suite("Replicator settings through the node configuration")
struct ReplicatorConfigTests {
    @Test func theSectionStartsEmptyAndItsKeysSetTheNextJobsSettings() async throws {
        try await withLiveServer({ $0.replicator = ReplicatorSettings(retriesPerRequest: 5, connectionTimeout: .seconds(30)) }) { server in
            let client = server.admin
            #expect(try await client.get("/_node/_local/_config/replicator").json == [:])
            let scheduler = server.server.endpoint.replicationScheduler
            #expect(scheduler.settings.connectionTimeout == .seconds(30) && scheduler.settings.retriesPerRequest == 5)

            #expect(try await client.put("/_node/_local/_config/replicator/connection_timeout", "2500").json == "")
            #expect(try await client.put("/_node/_local/_config/replicator/retries_per_request", "0").status == 200)
            #expect(try await client.put("/_node/_local/_config/replicator/health_threshold", "7").status == 200)
            let settings = scheduler.settings
            #expect(settings.connectionTimeout == .milliseconds(2500))
            #expect(settings.retriesPerRequest == 0)
            #expect(settings.healthThreshold == .seconds(7))

            // A value the replicator could not use is refused, and the setting stays.
            let refused = try await client.put("/_node/_local/_config/replicator/connection_timeout", "soon")
            #expect(refused.status == 400 && refused.json["error"] == "bad_request")
            #expect(scheduler.settings.connectionTimeout == .milliseconds(2500))

            // Deleting a key gives the server's own setting back.
            #expect(try await client.send("DELETE", "/_node/_local/_config/replicator/connection_timeout").json == "2500")
            #expect(scheduler.settings.connectionTimeout == .seconds(30))
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aJobOnAnUnansweringSourceFailsWithinTheConfiguredTimeout() async throws {
        // The server's own timeout is an hour: only the configured 200 ms lets this replication answer at all.
        try await withLiveServer({ $0.replicator = ReplicatorSettings(retriesPerRequest: 3, connectionTimeout: .seconds(3600)) }) { server in
            let silent = try LoopbackSocket(listening: true)
            defer { silent.close() }
            let client = server.admin
            _ = try await client.put("/_node/_local/_config/replicator/connection_timeout", "200")
            _ = try await client.put("/_node/_local/_config/replicator/retries_per_request", "0")
            let answer = try await client.post(
                "/_replicate", ["source": .string("http://127.0.0.1:\(silent.port)/nowhere"), "target": "copy", "create_target": true])
            #expect(answer.status >= 400, "\(answer.text)")
        }
    }
}
