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
}
