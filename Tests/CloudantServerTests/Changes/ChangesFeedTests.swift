import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("The _changes feed over HTTP")
struct ChangesFeedTests {
    private func seeded(_ server: LiveServer) async throws -> TestClient {
        let client = server.admin
        _ = try await client.send("PUT", "/db")
        _ = try await client.post("/db/_bulk_docs", ["docs": [["_id": "a", "type": "x"], ["_id": "b", "type": "y"]]])
        return client
    }

    @Test func theNormalFeedListsEachDocumentOnceWithLastSeqAndPending() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let all = try await client.get("/db/_changes").json
            #expect(all["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["a", "b"])
            #expect(all["last_seq"] == UpdateSequence.json(2))
            #expect(all["last_seq"]?.stringValue?.hasPrefix("2-") == true)
            #expect(all["pending"] == 0)
            let page = try await client.get("/db/_changes?limit=1&include_docs=true").json
            #expect(page["results"]?.arrayValue?.first?["doc"]?["type"] == "x")
            #expect(page["pending"] == 1)
            #expect(try await client.get("/db/_changes?since=now").json["results"] == [])
            #expect(try await client.get("/db/_changes?style=bogus").status == 400)
        }
    }

    @Test func longpollWaitsForTheNextWrite() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            async let waiting = client.get("/db/_changes?feed=longpoll&since=2&timeout=5000")
            try await Task.sleep(for: .milliseconds(200))
            _ = try await client.put("/db/c", ["type": "z"])
            let answer = try await waiting.json
            #expect(answer["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["c"])
            #expect(answer["last_seq"] == UpdateSequence.json(3))
        }
    }

    @Test func longpollAnswersEmptyAfterItsTimeout() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let started = ContinuousClock.now
            let answer = try await client.get("/db/_changes?feed=longpoll&since=now&timeout=150").json
            #expect(answer == ["results": [], "last_seq": UpdateSequence.json(2), "pending": 0])
            #expect(ContinuousClock.now - started >= .milliseconds(140))
        }
    }

    @Test func continuousWritesOneLinePerChangeAndEndsAtItsLimit() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let lines = try await client.get("/db/_changes?feed=continuous&limit=2").text.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(try JSONValue(parsing: String(lines[2])) == ["last_seq": UpdateSequence.json(2), "pending": 0])
        }
    }

    @Test func continuousEndsAfterTimeoutAndStreamsLiveWritesBeforeThat() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            // The timeout leaves a loaded CI machine (the whole suite at once on two cores delayed the write by
            // over 3 s) ample time to make the write while the feed is still open.
            async let feed = client.get("/db/_changes?feed=continuous&since=2&timeout=10000")
            try await Task.sleep(for: .milliseconds(100))
            _ = try await client.put("/db/live", ["type": "z"])
            let lines = try await feed.text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            #expect(lines.first?["id"] == "live")
            #expect(lines.last == ["last_seq": UpdateSequence.json(3), "pending": 0])
        }
    }

    @Test func heartbeatsAreBlankLines() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            // The timeout is 250 heartbeats long so a loaded machine (CI runs on two busy cores, where a 1 s
            // timeout once passed before the first tick) still sends one.
            let text = try await client.get("/db/_changes?feed=longpoll&since=now&heartbeat=20&timeout=5000").text
            #expect(text.hasPrefix("\n"))
            #expect(try JSONValue(parsing: text)["results"] == [])
        }
    }

    @Test func eventSourceSendsServerSentEvents() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let answer = try await client.get("/db/_changes?feed=eventsource&limit=1")
            #expect(answer.header("Content-Type") == "text/event-stream")
            #expect(answer.text.hasPrefix("data: {\"seq\":\"1-"))
            // The event id is the sequence as JSON, as CouchDB writes it (`?JSON_ENCODE(Seq)`).
            #expect(answer.text.contains("\nid: \"\(UpdateSequence.string(1))\"\n"))
        }
    }

    @Test func docIdsAndSelectorFiltersComeFromThePOSTBody() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let ids = try await client.post("/db/_changes?filter=_doc_ids", ["doc_ids": ["b"]]).json
            #expect(ids["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b"])
            let byQuery = try await client.get("/db/_changes?filter=_doc_ids&doc_ids=%5B%22a%22%5D").json
            #expect(byQuery["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["a"])
            let selected = try await client.post("/db/_changes?filter=_selector", ["selector": ["type": "y"]]).json
            #expect(selected["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b"])
            let noSelector = try await client.post("/db/_changes?filter=_selector", [:])
            #expect(noSelector.json == ["error": "bad_request", "reason": "Selector must be specified in POST payload"])
        }
    }
}
