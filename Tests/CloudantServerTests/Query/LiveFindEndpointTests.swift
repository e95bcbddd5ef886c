import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// `_find?feed=eventsource|continuous`: a live query streamed over HTTP, as a browser's `EventSource` reads it.
@Suite("Live _find over HTTP")
struct LiveFindEndpointTests {
    private let authorization = "Basic " + Data("admin:s3cret".utf8).base64EncodedString()

    private func seeded(_ server: LiveServer) async throws -> TestClient {
        let client = server.admin
        _ = try await client.send("PUT", "/db")
        _ = try await client.post("/db/_bulk_docs", ["docs": [["_id": "a", "type": "x", "n": 1], ["_id": "b", "type": "y", "n": 2]]])
        return client
    }

    @Test func anEventSourceGetStreamsTheResultThenEachChangedResult() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let query = #"{"selector":{"type":"x"},"fields":["_id","n"]}"#
            let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send(
                "GET /db/_find?feed=eventsource&query=\(encoded) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(authorization)\r\n\r\n")
            let first = try await connection.readUntil("\nid: ")
            #expect(first.contains("Content-Type: text/event-stream"))
            #expect(first.contains(#"data: {"docs":[{"_id":"a","n":1}],"seq":2,"warning":"No matching index found"#))
            #expect(first.contains("\nid: 2\n\n"))
            _ = try await client.post("/db/_bulk_docs", ["docs": [["_id": "c", "type": "y"]]])  // not a match
            _ = try await client.put("/db/d", ["type": "x", "n": 4])
            let second = try await connection.readUntil("\nid: ", count: 2)
            #expect(second.contains(#"data: {"docs":[{"_id":"a","n":1},{"_id":"d","n":4}],"seq":4,"#))
            #expect(!second.contains(#""seq":3"#))
        }
    }

    @Test func aContinuousPostStreamsOneJSONLinePerResultWithHeartbeats() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            _ = try await client.post("/db/_index", ["index": ["fields": ["n"]]])  // an index: no warning
            let body = #"{"selector":{"n":{"$gte":2}},"sort":[{"n":"desc"}],"limit":1}"#
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send(
                "POST /db/_find?feed=continuous&heartbeat=50 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(authorization)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let first = try await connection.readUntil(#""seq":3}"#)
            #expect(first.contains(#"{"docs":[{"_id":"b","type":"y","n":2,"_rev":"#) || first.contains(#"{"docs":[{"_id":"b","_rev":"#))
            // Idle, the feed sends heartbeats: a chunk of one newline after the first result.
            let idle = try await connection.readUntil { text in
                guard let result = text.range(of: #""seq":3}"#) else { return false }
                let after = text[result.upperBound...]
                return after.contains("\r\n\n\r\n") || after.contains("\n\n")
            }
            #expect(idle.contains(#""seq":3}"#))
            _ = try await client.put("/db/top", ["n": 9])
            let second = try await connection.readUntil(#""seq":4}"#)
            #expect(second.contains(#""_id":"top""#))
        }
    }

    @Test func aLiveFindRefusesAnUnknownFeedAMissingQueryAndABadSelector() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let feed = try await client.get("/db/_find?feed=longpoll&query=%7B%22selector%22%3A%7B%7D%7D")
            #expect(feed.status == 400)
            let missing = try await client.get("/db/_find?feed=eventsource")
            #expect(missing.status == 400)
            #expect(missing.json["error"] == "bad_request")
            let bad = try await client.post("/db/_find?feed=continuous", ["selector": ["n": ["$bogus": 1]]])
            #expect(bad.status == 400)
            // Without `feed`, `GET _find` stays what CouchDB answers.
            #expect(try await client.get("/db/_find").status == 405)
        }
    }

    @Test func aLiveFindNeedsTheSameAccessAsFind() async throws {
        try await withLiveServer { server in
            _ = try await seeded(server)
            _ = try await server.admin.put("/db/_security", ["members": ["names": ["alice"]]])
            let anonymous = try await server.anonymous.get("/db/_find?feed=eventsource&query=%7B%22selector%22%3A%7B%7D%7D")
            #expect(anonymous.status == 401)
        }
    }
}
