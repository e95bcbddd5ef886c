import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// What `POST /_replicate` answers and where it starts, as CouchDB's replicator does: `since_seq`, the counts of
/// a replication by ids, a session whose writes the target refused, a filter that changed, `through_seq`.
@Suite("The _replicate answer")
struct ReplicateAnswerTests {
    private static func history(_ answer: HTTPAnswer) -> JSONValue? { answer.json["history"]?.arrayValue?.first }

    @Test func sinceSeqStartsAReplicationWithoutACheckpointAndNamesItsOwnReplication() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.put("/source", [:])
            for index in 1...5 { _ = try await client.put("/source/d\(index)", [:]) }
            let third = try await client.get("/source/_changes").json["results"]?.arrayValue?[2]["seq"]
            let answer = try await client.post(
                "/_replicate", ["source": "source", "target": "copy", "create_target": true, "since_seq": third ?? .null])
            #expect(Self.history(answer)?["missing_checked"] == 2 && Self.history(answer)?["docs_written"] == 2)
            #expect(try await client.get("/copy/d3").status == 404)
            #expect(try await client.get("/copy/d4").status == 200)

            // The same replication again resumes from its own checkpoint: nothing is read twice.
            let again = try await client.post("/_replicate", ["source": "source", "target": "copy", "since_seq": third ?? .null])
            #expect(again.json["no_changes"] == true)
            // Without `since_seq` it is another replication (another id, CouchDB 3.5.2), which starts from the
            // beginning and brings what the first skipped, instead of resuming the first one's checkpoint.
            let whole = try await client.post("/_replicate", ["source": "source", "target": "copy"])
            #expect(Self.history(whole)?["docs_written"] == 3)
            for index in 1...5 { #expect(try await client.get("/copy/d\(index)").status == 200) }
        }
    }

    @Test func aReplicationByIDsAnswersItsCountsAtTheTopAndDecodesTheIDs() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.put("/source", [:])
            _ = try await client.put("/source/_design/app", ["language": "javascript"])
            _ = try await client.put("/source/a", [:])
            let answer = try await client.post(
                "/_replicate", ["source": "source", "target": "copy", "create_target": true, "doc_ids": ["_design%2Fapp", "a", "missing"]])
            #expect(answer.json["docs_read"] == 2 && answer.json["docs_written"] == 2 && answer.json["doc_write_failures"] == 0)
            #expect(answer.json["start_time"]?.stringValue?.hasSuffix("GMT") == true && answer.json["end_time"] != nil)
            #expect(try await client.get("/copy/_design/app").status == 200)
            // Ids none of which exists change nothing.
            let nothing = try await client.post(
                "/_replicate", ["source": "source", "target": "copy", "doc_ids": ["missing"]])
            #expect(nothing.json["no_changes"] == true)
        }
    }

    @Test func aSessionWhoseWritesTheTargetRefusedStillAnswersItsCounts() async throws {
        try await withJavaScriptServer { server in
            let client = server.admin
            _ = try await client.put("/source", [:])
            _ = try await client.put("/target", [:])
            let ddoc: JSONValue = [
                "validate_doc_update": "function(doc) { if (doc.n % 2) throw({forbidden: 'only even numbers'}); }"
            ]
            _ = try await client.put("/target/_design/even", ddoc)
            for index in 1...7 { _ = try await client.put("/source/d\(index)", ["n": .number(JSONNumber(index))]) }
            let answer = try await client.post("/_replicate", ["source": "source", "target": "target"])
            let history = Self.history(answer)
            // Refused revisions are counted once each, not read again: validation answers the same every time.
            #expect(history?["missing_checked"] == 7 && history?["docs_read"] == 7)
            #expect(history?["docs_written"] == 3 && history?["doc_write_failures"] == 4)
            #expect(answer.json["no_changes"] == nil)
        }
    }

    @Test func anEditedFilterIsANewReplication() async throws {
        try await withJavaScriptServer { server in
            let client = server.admin
            _ = try await client.put("/source", [:])
            let first = try await client.put("/source/_design/f", ["filters": ["pick": "function(doc) { return doc.kind === 'a'; }"]])
            for (id, kind) in [("x", "a"), ("y", "b")] { _ = try await client.put("/source/\(id)", ["kind": .string(kind)]) }
            let body: JSONValue = ["source": "source", "target": "copy", "create_target": true, "filter": "f/pick"]
            let before = try await client.post("/_replicate", body)
            #expect(Self.history(before)?["docs_written"] == 1)
            _ = try await client.put(
                "/source/_design/f",
                ["_rev": first.json["rev"] ?? .null, "filters": ["pick": "function(doc) { return doc.kind === 'b'; }"]])
            // A checkpoint the old filter wrote would skip `y`: the edited filter starts from the beginning.
            let after = try await client.post("/_replicate", body)
            #expect(after.json["history"]?.arrayValue?.count == 1)
            #expect(try await client.get("/copy/y").status == 200)
        }
    }

    @Test func aContinuousJobShowsHowFarItHasProcessedTheSource() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.put("/source", [:])
            for index in 1...3 { _ = try await client.put("/source/d\(index)", [:]) }
            let id = try #require(
                try await client.post("/_replicate", ["source": "source", "target": "copy", "create_target": true, "continuous": true])
                    .json["_local_id"]?.stringValue)
            // A database named as a source is read in process, whose sequences are numbers; over HTTP they are
            // CouchDB's `N-…` strings. Either way the number is how many changes were processed.
            func number(_ seq: JSONValue?) -> Int64? {
                if let text = seq?.stringValue { return Int64(text.prefix { $0 != "-" }) }
                return seq?.numberValue?.int64Value
            }
            try await waitUntil("the job processed every change") {
                let tasks = try await client.get("/_active_tasks").json.arrayValue ?? []
                return tasks.contains { $0["replication_id"] == .string(id) && number($0["through_seq"]) == 3 }
            }
            _ = try await client.post("/_replicate", ["replication_id": .string(id), "cancel": true])
        }
    }
}
