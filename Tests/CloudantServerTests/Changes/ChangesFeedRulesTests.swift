import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// `_changes` by `chttpd_db` and `fabric_view_changes`: a newest-first feed lists everything and ends, a
/// `limit` of 0 waits without work and counts what it left, `HEAD` is a `GET` without its body, and an event
/// stream is never cached.
@Suite("Changes feed rules")
struct ChangesFeedRulesTests {
    private func seeded(_ server: LiveServer) async throws -> TestClient {
        let client = server.admin
        _ = try await client.send("PUT", "/r")
        _ = try await client.post("/r/_bulk_docs", ["docs": [["_id": "a"], ["_id": "b"], ["_id": "c"], ["_id": "d"]]])
        return client
    }

    private func ids(_ answer: JSONValue) -> [String] {
        answer["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    private func number(_ value: JSONValue?) -> Int64? { value?.stringValue.flatMap(UpdateSequence.parse) }

    @Test func newestFirstListsEveryChangeWhateverSinceSays() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = try await seeded(server)
            for since in ["2", "now"] {
                let answer = try await client.get("/r/_changes?descending=true&since=\(since)").json
                #expect(ids(answer) == ["d", "c", "b", "a"], "\(since)")
                #expect(number(answer["last_seq"]) == 1, "\(since)")
            }
            // A continuous feed read newest first is a listing that ends at once, with nothing pending.
            let lines = try await client.get("/r/_changes?feed=continuous&descending=true&timeout=60000").text
                .split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            #expect(lines.dropLast().compactMap { $0["id"]?.stringValue } == ["d", "c", "b", "a"])
            #expect(number(lines.last?["last_seq"]) == 1 && lines.last?["pending"] == 0)
        }
    }

    @Test func aLongpollWithLimitZeroWaitsForItsTimeoutAndCountsWhatItLeft() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = try await seeded(server)
            let started = ContinuousClock.now
            let answer = try await client.get("/r/_changes?feed=longpoll&limit=0&timeout=300").json
            #expect(ContinuousClock.now - started >= .milliseconds(290))
            #expect(answer["results"] == [] && number(answer["last_seq"]) == 0 && answer["pending"] == 4)
        }
    }

    @Test func headIsTheFeedWithoutItsBodyAndAnEventStreamIsNotCached() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = try await seeded(server)
            let head = try await client.send("HEAD", "/r/_changes")
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Type") == "application/json")
            let events = try await client.get("/r/_changes?feed=eventsource&limit=1")
            #expect(events.header("Cache-Control") == "no-cache")
        }
    }

    /// `chttpd:etag_respond/3`: the normal feed carries an ETag of the database's state, and a client whose copy
    /// is current gets `304`.
    @Test func theNormalFeedAnswersNotModifiedWhileTheDatabaseIsUnchanged() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = try await seeded(server)
            let first = try await client.get("/r/_changes")
            let etag = try #require(first.header("ETag"))
            let again = try await client.send("GET", "/r/_changes", headers: ["If-None-Match": etag])
            #expect(again.status == 304 && again.header("ETag") == etag)
            _ = try await client.put("/r/e", ["n": 1])
            let changed = try await client.send("GET", "/r/_changes", headers: ["If-None-Match": etag])
            #expect(changed.status == 200 && changed.header("ETag") != etag && ids(changed.json).last == "e")
        }
    }

    /// `chttpd_db:handle_changes_req/2`: a `POST` body neither sized nor chunked is missing; an empty one gives
    /// the filters that read it nothing to decode; a `POST`'s `doc_ids` come from its body only.
    @Test func aPostedFeedReadsItsBodyAsCouchDBDoes() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = try await seeded(server)
            let authorization = "Basic " + Data("\(LiveServer.admin.name):\(LiveServer.admin.password)".utf8).base64EncodedString()
            let unsized = try RawConnection(port: server.port)
            defer { unsized.close() }
            unsized.send(
                "POST /r/_changes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(authorization)\r\n"
                    + "Content-Type: application/json\r\nConnection: close\r\n\r\n")
            let answer = String(decoding: try unsized.readToEnd(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains("Missing request body"))
            for filter in ["_doc_ids", "_selector"] {
                try await client.send("POST", "/r/_changes?filter=\(filter)", body: Data(), contentType: "application/json")
                    .expectCouchError(400, "bad_request", "invalid UTF-8 JSON")
            }
            let queried = try await client.send(
                "POST", "/r/_changes?filter=_doc_ids&doc_ids=%5B%22b%22%5D", json: [:])
            queried.expectCouchError(400, "bad_request", "`doc_ids` filter parameter is not a list of doc ids.")
            #expect(ids(try await client.post("/r/_changes?filter=_doc_ids", ["doc_ids": ["b"]]).json) == ["b"])
        }
    }
}
