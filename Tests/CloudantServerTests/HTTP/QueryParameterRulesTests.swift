import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// CouchDB reads query parameters by three rules, one per parser, and clients rely on each (a Python client
/// writes its booleans `True`):
/// - documents (`chttpd_db:parse_doc_query/2`) and `_changes` (`parse_changes_query/1`) turn an option on for
///   the exact value `true` and ignore any other value; `_changes` matches the names in lower case;
/// - `_all_docs`, `_all_dbs` and views (`couch_mrview_http:parse_params/2`) take `true`/`false` in any case and
///   refuse anything else, and whole numbers from 0 for `limit` and `skip`, with `query_parse_error`.
@Suite("Query parameter rules")
struct QueryParameterRulesTests {
    @Test func aDocumentOptionIsOnForExactlyTrueAndOtherValuesAreIgnored() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(try await client.put("/db/a", ["v": 1]).json["rev"]?.stringValue)
            for ignored in ["revs=True", "revs=1", "revs=false", "revs=maybe", "meta=TRUE", "conflicts=yes&revs_info=True"] {
                let answer = try await client.get("/db/a?" + ignored)
                #expect(answer.status == 200, "\(ignored): \(answer.text)")
                #expect(answer.json == ["_id": "a", "_rev": .string(rev), "v": 1], "\(ignored)")
            }
            #expect(try await client.get("/db/a?revs=true").json["_revisions"]?["start"] == 1)
            #expect(try await client.get("/db/a?meta=true").json["_revs_info"] != nil)
            // `new_edits`: the last `true` or `false` decides; `False` is ignored, so the write is interactive.
            let interactive = try await client.put("/db/b?new_edits=False", ["v": 1])
            #expect(interactive.status == 201 && interactive.json["rev"]?.stringValue?.hasPrefix("1-") == true, "\(interactive.text)")
            let replicated = try await client.put("/db/c?new_edits=true&new_edits=false&new_edits=no", ["_rev": "7-abc", "v": 1])
            #expect(replicated.status == 201, "\(replicated.text)")
            #expect(try await client.get("/db/c").json["_rev"] == "7-abc")
        }
    }

    @Test func allDocsAndAllDbsParseTheirParametersAsViewsDo() async throws {
        try await withLiveDatabase { _, client in
            for id in ["a", "b", "c"] { _ = try await client.put("/db/" + id, ["v": 1]) }
            let descending = try await client.get("/db/_all_docs?descending=True&include_docs=TRUE&limit=1").json
            #expect(descending["rows"]?.arrayValue?.map { $0["id"] } == ["c"])
            #expect(descending["rows"]?.arrayValue?.first?["doc"]?["v"] == 1)
            let refusals: [(query: String, error: String, reason: String)] = [
                ("limit=-1", "query_parse_error", #"Invalid value for positive integer: "-1""#),
                ("skip=-2", "query_parse_error", #"Invalid value for positive integer: "-2""#),
                ("limit=x", "query_parse_error", #"Invalid value for integer: "x""#),
                ("inclusive_end=no", "query_parse_error", #"Invalid boolean parameter: "no""#),
                ("descending=true&descending=1", "query_parse_error", #"Invalid boolean parameter: "1""#),
                ("startkey=b", "bad_request", "invalid UTF-8 JSON"),
            ]
            for refusal in refusals {
                let answer = try await client.get("/db/_all_docs?" + refusal.query)
                #expect(answer.status == 400, "\(refusal.query): \(answer.text)")
                #expect(answer.json == ["error": .string(refusal.error), "reason": .string(refusal.reason)], "\(refusal.query)")
            }
            #expect(try await client.get("/_all_dbs?descending=TRUE&limit=1").json == ["db"])
            #expect(try await client.get("/_all_dbs?limit=-1").json["error"] == "query_parse_error")
        }
    }

    @Test func changesMatchesNamesInAnyCaseAndTurnsOptionsOnOnlyForTrue() async throws {
        try await withLiveDatabase { _, client in
            for id in ["a", "b"] { _ = try await client.put("/db/" + id, ["v": 1]) }
            func rows(_ query: String) async throws -> [JSONValue] {
                try await client.get("/db/_changes?" + query).json["results"]?.arrayValue ?? []
            }
            #expect(try await rows("Include_Docs=true").first?["doc"]?["v"] == 1)
            #expect(try await rows("include_docs=True").first?["doc"] == nil)
            #expect(try await rows("DESCENDING=true").map { $0["id"] } == ["b", "a"])
            #expect(try await rows("descending=yes").map { $0["id"] } == ["a", "b"])
            #expect(try await rows("Limit=1").count == 1)
            // `/_db_updates` reads its names as given (`global_changes_httpd`): an upper-case name is ignored.
            let updates = try await client.get("/_db_updates?Limit=0").json["results"]?.arrayValue ?? []
            #expect(!updates.isEmpty)
        }
    }

    @Test func seqIntervalShowsOneSeqPerIntervalCountedDownFromTheLimit() async throws {
        try await withLiveDatabase { _, client in
            for id in ["a", "b", "c", "d", "e"] { _ = try await client.put("/db/" + id, ["v": 1]) }
            func shown(_ rows: [JSONValue]) -> [Bool] { rows.map { $0["seq"] != .null && $0["seq"] != nil } }
            func rows(_ query: String) async throws -> [JSONValue] {
                try await client.get("/db/_changes?" + query).json["results"]?.arrayValue ?? []
            }
            // CouchDB counts down from 10^15 without a limit: 10^15 is even, and 10^15 - 1 a multiple of 3.
            #expect(try await shown(rows("seq_interval=2")) == [true, false, true, false, true])
            #expect(try await shown(rows("seq_interval=3")) == [false, true, false, false, true])
            #expect(try await shown(rows("seq_interval=2&limit=3")) == [false, true, false])
            #expect(try await shown(rows("seq_interval=1")) == [true, true, true, true, true])
            let lines = try await client.get("/db/_changes?feed=continuous&seq_interval=2&limit=3").text
                .split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
            #expect(shown(Array(lines.prefix(3))) == [false, true, false])
            #expect(lines.last?["last_seq"] != nil)
            for refused in ["0", "-2", "x"] {
                let answer = try await client.get("/db/_changes?seq_interval=" + refused)
                #expect(answer.status == 400 && answer.json == ["error": "bad_request", "reason": "invalid_seq_interval"], "\(refused)")
            }
        }
    }

    @Test func bulkGetRefusesTheFirstRefusedParameterInTheQuerysOrder() async throws {
        try await withLiveDatabase { _, client in
            let answer = try await client.post("/db/_bulk_get?latest=true&w=1&rev=1-a", ["docs": []])
            #expect(answer.status == 400)
            #expect(answer.json["reason"] == #""w" query parameter is not acceptable"#)
        }
    }

    @Test func bulkGetTakesItsOptionsFromTheQueryAloneNotTheBody() async throws {
        try await withLiveDatabase { _, client in
            let first = try await client.put("/db/a", ["n": 1]).json
            let firstRev = try #require(first["rev"]?.stringValue)
            _ = try await client.put("/db/a", ["n": 2, "_rev": .string(firstRev)])
            let entry: JSONValue = ["docs": [["id": "a", "rev": .string(firstRev)]], "latest": true, "revs": true]
            // Members beside `docs` are ignored: the revision asked for, without its history.
            let fromBody = try await client.post("/db/_bulk_get", entry).json
            let bodyDocument = fromBody["results"]?.arrayValue?.first?["docs"]?.arrayValue?.first?["ok"]
            #expect(bodyDocument?["_rev"]?.stringValue == firstRev)
            #expect(bodyDocument?["_revisions"] == nil)
            // The same options in the query: the leaf that replaced it, with its history.
            let fromQuery = try await client.post("/db/_bulk_get?latest=true&revs=true", entry).json
            let queryDocument = fromQuery["results"]?.arrayValue?.first?["docs"]?.arrayValue?.first?["ok"]
            #expect(queryDocument?["_rev"]?.stringValue?.hasPrefix("2-") == true)
            #expect(queryDocument?["_revisions"]?["start"] == 2)
        }
    }
}
