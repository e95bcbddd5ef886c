import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// `/_db_updates`: the databases created, updated and deleted, in CouchDB's four feeds.
@Suite("Database updates feed")
struct DatabaseUpdatesTests {
    private static func events(_ answer: HTTPAnswer) -> [String] {
        (answer.json["results"]?.arrayValue ?? []).compactMap { row in
            guard let type = row["type"]?.stringValue, let name = row["db_name"]?.stringValue else { return nil }
            return type + ":" + name
        }
    }

    @Test func writesTheServerMakesOnItsOwnAreEventsLikeARequestsWrites() async throws {
        try await withLiveDatabase("source") { _, client in
            _ = try await client.put("/source/a", ["v": 1])
            // A replication job creates and fills `copy` itself, with no request to `/copy`.
            let replicated = try await client.post("/_replicate", ["source": "source", "target": "copy", "create_target": true])
            #expect(replicated.json["ok"] == true, "\(replicated.text)")
            let events = Self.events(try await client.get("/_db_updates"))
            let created = try #require(events.firstIndex(of: "created:copy"), "\(events)")
            let updated = try #require(events.firstIndex(of: "updated:copy"), "\(events)")
            #expect(created < updated)
            #expect(events.first == "created:source" && events.contains("updated:source"))
            // The system databases' writes at start are no update.
            #expect(!events.contains { $0.hasSuffix(":_users") })
        }
    }

    @Test func normalFeedListsEachDatabasesLatestEventsWithOpaqueSequencesAndSurvivesARestart() async throws {
        try await withRestartableLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/alpha")
            _ = try await client.put("/alpha/a", ["v": 1])
            _ = try await client.put("/alpha/b", ["v": 2])
            _ = try await client.send("PUT", "/beta")
            _ = try await client.send("DELETE", "/beta")
            _ = try await client.post("/alpha/_all_docs", ["keys": ["a"]])
            let answer = try await client.get("/_db_updates")
            #expect(answer.status == 200)
            // Two writes to alpha are one `updated` event; a read sent as POST is none.
            #expect(Self.events(answer) == ["created:alpha", "updated:alpha", "created:beta", "deleted:beta"])
            let rows = answer.json["results"]?.arrayValue ?? []
            #expect(rows.allSatisfy { $0["seq"]?.stringValue?.contains("-") == true })
            #expect(answer.json["last_seq"] == rows.last?["seq"])
            #expect(answer.json["pending"] == nil)
            let since = try #require(rows[1]["seq"]?.stringValue)
            #expect(Self.events(try await client.get("/_db_updates?since=\(since)")) == ["created:beta", "deleted:beta"])
            #expect(Self.events(try await client.get("/_db_updates?limit=1&descending=true")) == ["deleted:beta"])

            server = try await server.restart()
            #expect(Self.events(try await server.admin.get("/_db_updates")).count == 4)
            #expect(try await server.admin.get("/_db_updates?since=now").json["results"] == [])
            #expect(try await server.admin.get("/_db_updates?feed=sideways").status == 400)
            #expect(try await server.admin.get("/_db_updates?limit=-1").json["reason"] == "invalid_integer")
            // `heartbeat` is read by the same `to_non_neg_int/1`, not by `_changes`' rules.
            for heartbeat in ["x", "-1"] {
                let answer = try await server.admin.get("/_db_updates?heartbeat=\(heartbeat)")
                #expect(answer.status == 400 && answer.json == ["error": "bad_request", "reason": "invalid_integer"], "\(heartbeat)")
            }
            #expect(try await server.admin.get("/_db_updates?heartbeat=true&limit=1").status == 200)
            #expect(try await server.anonymous.get("/_db_updates").status == 401)
        }
    }

    @Test func continuousAndEventSourceFeedsWriteALinePerEvent() async throws {
        try await withLiveDatabase("alpha") { _, client in
            _ = try await client.send("PUT", "/beta")
            let lines = try await client.get("/_db_updates?feed=continuous&limit=2").text.split(separator: "\n")
            try #require(lines.count == 3, "\(lines)")
            #expect(try JSONValue(parsing: String(lines[0]))["db_name"] == "alpha")
            #expect(try JSONValue(parsing: String(lines[2])).objectValue?.keys == ["last_seq"])
            let events = try await client.get("/_db_updates?feed=eventsource&limit=1")
            #expect(events.header("Content-Type") == "text/event-stream")
            #expect(events.header("Cache-Control") == "no-cache")
            #expect(events.text.hasPrefix("data: {\"db_name\":\"alpha\",\"type\":\"created\""))
            #expect(events.text.contains("\nid: \""))
        }
    }

    @Test func longpollWaitsForTheNextEvent() async throws {
        try await withLiveServer { server in
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send(
                "GET /_db_updates?feed=longpoll&since=now HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Basic YWRtaW46czNjcmV0\r\nConnection: close\r\n\r\n")
            try await server.waitForOpenFeeds()
            _ = try await server.admin.send("PUT", "/gamma")
            let answer = try TestClient.parse(try await connection.readToEndOffPool(), isHead: false)
            #expect(Self.events(answer) == ["created:gamma"])
        }
    }
}
