import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("The _changes feed over HTTP")
struct ChangesFeedTests {
    /// The number of a sequence as the feed writes it (`"N-<opaque>"`).
    static func number(_ value: JSONValue?) -> Int64? { value?.stringValue.flatMap(UpdateSequence.parse) }

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
            #expect(Self.number(all["last_seq"]) == 2)
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
        // The feed's timeout and the server's cap are far longer than any test: only the write ends the wait.
        try await withLiveServer({ $0.changesTimeout = 3_600_000 }) { server in
            let client = try await seeded(server)
            async let waiting = client.get("/db/_changes?feed=longpoll&since=2&timeout=3600000")
            try await server.waitForOpenFeeds()
            _ = try await client.put("/db/c", ["type": "z"])
            let answer = try await waiting.json
            #expect(answer["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["c"])
            #expect(Self.number(answer["last_seq"]) == 3)
        }
    }

    @Test func longpollAnswersEmptyAfterItsTimeout() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let started = ContinuousClock.now
            let answer = try await client.get("/db/_changes?feed=longpoll&since=now&timeout=150").json
            #expect(answer["results"] == [] && Self.number(answer["last_seq"]) == 2 && answer["pending"] == 0)
            #expect(ContinuousClock.now - started >= .milliseconds(140))
        }
    }

    @Test func continuousWritesOneLinePerChangeAndEndsAtItsLimit() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let lines = try await client.get("/db/_changes?feed=continuous&limit=2").text.split(separator: "\n")
            #expect(lines.count == 3)
            let last = try JSONValue(parsing: String(lines[2]))
            #expect(last.objectValue?.keys == ["last_seq", "pending"] && Self.number(last["last_seq"]) == 2 && last["pending"] == 0)
        }
    }

    /// `chttpd_db:changes_callback(waiting_for_updates, …)`: a feed that has caught up with nothing sent
    /// starts its response with a newline.
    @Test func aContinuousFeedWithNothingToSendStartsWithANewline() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let answer = try await client.get("/db/_changes?feed=continuous&since=now&timeout=1")
            let updateSeq = try await client.get("/db").json["update_seq"] ?? nil
            #expect(answer.text == "\n" + #"{"last_seq":"# + updateSeq.jsonString() + #","pending":0}"# + "\n")
            let withChanges = try await client.get("/db/_changes?feed=continuous&timeout=1")
            #expect(withChanges.text.hasPrefix(#"{"seq":"#), "\(withChanges.text)")
        }
    }

    @Test func continuousEndsAfterTimeoutAndStreamsLiveWritesBeforeThat() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            // The feed ends `timeout` ms after its last change; the write must land inside that window. A loaded
            // machine can delay the write past it, so a missed window is tried again with a longer timeout:
            // slowness costs time, never the verdict.
            var timeout = 2_000
            for attempt in 1...6 {
                let id = "live-\(attempt)"
                try await waitUntil("the previous feed closed") { server.openFeeds == 0 }
                let connection = try RawConnection(port: server.port)
                defer { connection.close() }
                connection.send(
                    "GET /db/_changes?feed=continuous&since=now&timeout=\(timeout) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Authorization: Basic YWRtaW46czNjcmV0\r\nConnection: close\r\n\r\n")
                try await server.waitForOpenFeeds()
                let written = try await client.put("/db/\(id)", ["type": "z"]).json["rev"]
                #expect(written != nil)
                let answer = try TestClient.parse(try await connection.readToEndOffPool(), isHead: false)
                let lines = try answer.text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
                // Ended by its timeout, after the live write if the write came in time.
                #expect(lines.last?["last_seq"] != nil, "\(answer.text)")
                if lines.first?["id"] == .string(id) {
                    #expect(lines.count == 2)
                    #expect(Self.number(lines.last?["last_seq"]) == Int64(2 + attempt) && lines.last?["pending"] == 0)
                    return
                }
                #expect(lines.count == 1, "only the last_seq line when the write came after the end: \(answer.text)")
                // `pending` counts the changes after `last_seq` when the feed ended: the write, if it landed
                // between the end and that count, as CouchDB counts it.
                #expect(lines.last?["pending"] == 0 || lines.last?["pending"] == 1, "\(answer.text)")
                timeout *= 2
            }
            Issue.record("no write landed inside the feed's window, even with a timeout of \(timeout / 2) ms")
        }
    }

    @Test func heartbeatsAreBlankLines() async throws {
        // The feed waits until a write ends it (its timeout is far longer than any test), sending a blank line
        // every 20 ms meanwhile; the write is made once one has arrived.
        try await withLiveServer({ $0.changesTimeout = 3_600_000 }) { server in
            let client = try await seeded(server)
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send(
                "GET /db/_changes?feed=longpoll&since=now&heartbeat=20&timeout=3600000 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Basic YWRtaW46czNjcmV0\r\nConnection: close\r\n\r\n")
            _ = try await connection.readUntil("\r\n\n\r\n")  // a chunk that is one newline: a heartbeat
            _ = try await client.put("/db/c", ["type": "z"])
            let raw = try await connection.readUntil("\r\n0\r\n\r\n")  // the last chunk
            let answer = try TestClient.parse(Array(raw.utf8), isHead: false)
            #expect(answer.text.hasPrefix("\n"))
            #expect(try JSONValue(parsing: answer.text)["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["c"])
        }
    }

    @Test func eventSourceSendsServerSentEvents() async throws {
        try await withLiveServer { server in
            let client = try await seeded(server)
            let answer = try await client.get("/db/_changes?feed=eventsource&limit=1")
            #expect(answer.header("Content-Type") == "text/event-stream")
            #expect(answer.text.hasPrefix("data: {\"seq\":\"1-"))
            // The event id is the sequence as JSON, as CouchDB writes it (`?JSON_ENCODE(Seq)`).
            let data = try JSONValue(parsing: String(answer.text.split(separator: "\n")[0].dropFirst("data: ".count)))
            let seq = try #require(data["seq"]?.stringValue)
            #expect(UpdateSequence.parse(seq) == 1)
            #expect(answer.text.contains("\nid: \"\(seq)\"\n"))
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
            // `couch_changes:get_selector_and_fields/1`: a body without an object `selector` is refused as
            // one, a `GET` as a request without a body.
            let noSelector = try await client.post("/db/_changes?filter=_selector", [:])
            #expect(noSelector.json == ["error": "bad_request", "reason": "Selector error: expected a JSON object"])
            let byGet = try await client.get("/db/_changes?filter=_selector")
            #expect(byGet.json == ["error": "bad_request", "reason": "Selector must be specified in POST payload"])
            let badFields = try await client.post("/db/_changes?filter=_selector", ["selector": ["type": "y"], "fields": "type"])
            #expect(badFields.json == ["error": "bad_request", "reason": "Selector error: fields must be JSON array"])
            let badField = try await client.post("/db/_changes?filter=_selector", ["selector": ["type": "y"], "fields": [1]])
            #expect(badField.json == ["error": "bad_request", "reason": "Invalid JSON for field spec: 1"])
            // A selector's own error is a `bad_request` with mango's reason.
            let badOperator = try await client.post("/db/_changes?filter=_selector", ["selector": ["type": ["$nope": 1]]])
            #expect(badOperator.status == 400 && badOperator.json["error"] == "bad_request")
            // `fields` trims the documents `include_docs` adds (`mango_fields:extract/2`).
            let trimmed = try await client.post(
                "/db/_changes?filter=_selector&include_docs=true", ["selector": ["type": "y"], "fields": ["_id", "type"]]).json
            #expect(trimmed["results"]?.arrayValue?.map { $0["doc"] } == [["_id": "b", "type": "y"]])
            // A `POST` names its body's type even when it sends none (`chttpd:validate_ctype/2` comes first).
            let untyped = try await client.send("POST", "/db/_changes", body: Data(), contentType: nil)
            #expect(untyped.status == 415 && untyped.json["error"] == "bad_content_type")
        }
    }

    /// `couch_db:calculate_start_seq/3`: a `since` read from another database, or from an earlier database of
    /// the same name, starts the feed from the beginning; one of this database starts after it.
    @Test func aSinceFromAnotherDatabaseStartsFromTheBeginning() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = server.admin
            #expect(try await client.send("PUT", "/rec").status == 201)
            _ = try await client.post("/rec/_bulk_docs", ["docs": [["_id": "d1"], ["_id": "d2"], ["_id": "d3"]]])
            let old = try #require(try await client.get("/rec/_changes").json["last_seq"]?.stringValue)
            #expect(try await client.send("DELETE", "/rec").status == 200)
            #expect(try await client.send("PUT", "/rec").status == 201)
            _ = try await client.post("/rec/_bulk_docs", ["docs": [["_id": "n1"], ["_id": "n2"], ["_id": "n3"], ["_id": "n4"]]])
            let ids: (JSONValue) -> [String] = { $0["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }
            let recreated = try await client.get("/rec/_changes?since=\(old)").json
            #expect(ids(recreated) == ["n1", "n2", "n3", "n4"] && Self.number(recreated["last_seq"]) == 4)
            // Another database's sequence likewise; this database's own starts after it.
            #expect(try await client.send("PUT", "/other").status == 201)
            _ = try await client.post("/other/_bulk_docs", ["docs": [["_id": "o1"]]])
            #expect(ids(try await client.get("/other/_changes?since=\(old)").json) == ["o1"])
            let own = try #require(recreated["results"]?.arrayValue?[1]["seq"]?.stringValue)
            #expect(ids(try await client.get("/rec/_changes?since=\(own)").json) == ["n3", "n4"])
            let updateSeq = try #require(try await client.get("/rec").json["update_seq"]?.stringValue)
            #expect(ids(try await client.get("/rec/_changes?since=\(updateSeq)").json).isEmpty)
            try await client.get("/rec/_changes?since=1-garbage").expectCouchError(
                400, "bad_request", "Malformed sequence supplied in 'since' parameter.")
        }
    }
}
