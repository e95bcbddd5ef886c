import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// The document API's rules as CouchDB 3.5's `chttpd_db` states them: `COPY`, `_purge` and its infos,
/// `?q=` on creation, revisions CouchDB computes, `since` and `last-event-id`.
@Suite("CouchDB document rules over HTTP")
struct CouchDocumentRulesTests {
    @Test func copyWritesTheSourceAsANewDocumentOrAsAnEditOfTheTargetRevisionNamed() async throws {
        try await withLiveDatabase { _, client in
            let source = try await client.put("/db/src", ["v": "1"]).json
            #expect(source["rev"] == "1-806db366bc1ba3ebef40f4b7c63a53af")
            let copy = try await client.send("COPY", "/db/src", headers: ["Destination": "dst"])
            #expect(copy.status == 201)
            // The same body with no parent: CouchDB's revision of that body.
            #expect(copy.json == ["ok": true, "id": "dst", "rev": "1-806db366bc1ba3ebef40f4b7c63a53af"])
            #expect(copy.header("ETag") == "\"1-806db366bc1ba3ebef40f4b7c63a53af\"")
            #expect(copy.header("Location")?.hasSuffix("/db/dst") == true)
            // Onto an existing target: a conflict without its revision, an edit with it.
            #expect(try await client.send("COPY", "/db/src", headers: ["Destination": "dst"]).status == 409)
            let edit = try await client.send(
                "COPY", "/db/src", headers: ["Destination": "dst?rev=1-806db366bc1ba3ebef40f4b7c63a53af"])
            #expect(edit.status == 201 && edit.json["rev"]?.stringValue?.hasPrefix("2-") == true)
            #expect(try await client.send("COPY", "/db/src").json["reason"] == "Destination header is mandatory for COPY.")
            #expect(
                try await client.send("COPY", "/db/src", headers: ["Destination": "http://elsewhere/db/x"]).json["reason"]
                    == "Destination URL must be relative.")
            #expect(try await client.send("COPY", "/db/missing", headers: ["Destination": "x"]).status == 404)
        }
    }

    @Test func deletingADeletedOrMissingDocumentIsNotFoundWhateverRevisionIsNamed() async throws {
        try await withLiveDatabase { _, client in
            let first = try await client.put("/db/a", ["v": 1]).json["rev"]?.stringValue ?? ""
            let deleted = try await client.delete("/db/a?rev=\(first)")
            #expect(deleted.status == 200)
            let tombstone = deleted.json["rev"]?.stringValue ?? ""
            // `chttpd_db` opens the document before it deletes: a tombstone is `deleted`, never a conflict.
            let again = try await client.delete("/db/a?rev=\(tombstone)")
            #expect(again.status == 404 && again.json == ["error": "not_found", "reason": "deleted"])
            #expect(try await client.delete("/db/a").status == 404)
            let missing = try await client.delete("/db/never?rev=1-967a00dff5e02add41819138abb3284d")
            #expect(missing.status == 404 && missing.json == ["error": "not_found", "reason": "missing"])
        }
    }

    @Test func stemmingKeepsAnAncestorsLinksWhenAnotherBranchKeepsIt() async throws {
        try await withLiveDatabase { _, client in
            #expect(try await client.put("/db/_revs_limit", 2).status == 200)
            let (a, b, c, x) = (String(repeating: "a", count: 32), String(repeating: "b", count: 32),
                                String(repeating: "c", count: 32), String(repeating: "f", count: 32))
            let docs: JSONValue = [
                "new_edits": false,
                "docs": [
                    ["_id": "d", "_rev": .string("3-\(c)"), "_revisions": ["start": 3, "ids": [.string(c), .string(b), .string(a)]]],
                    ["_id": "d", "_rev": .string("2-\(x)"), "_revisions": ["start": 2, "ids": [.string(x), .string(a)]]],
                ],
            ]
            #expect(try await client.post("/db/_bulk_docs", docs).status == 201)
            // 1-a stays for 2-x (one below it), and keeps its link to 2-b (`couch_key_tree:stem/2`).
            let info = try await client.get("/db/d?revs_info=true").json["_revs_info"]?.arrayValue ?? []
            #expect(info.compactMap { $0["rev"]?.stringValue } == ["3-\(c)", "2-\(b)", "1-\(a)"])
        }
    }

    @Test func aRevisionReadByNameCarriesNoRequestMetadataAndKeepsItsETag() async throws {
        try await withLiveDatabase { _, client in
            let (winner, loser) = ("2-" + String(repeating: "f", count: 32), "2-" + String(repeating: "1", count: 32))
            let root = String(repeating: "a", count: 32)
            for (rev, hash) in [(winner, "f"), (loser, "1")] {
                let doc: JSONValue = [
                    "_id": "d", "_rev": .string(rev), "side": .string(hash),
                    "_revisions": ["start": 2, "ids": [.string(String(repeating: hash, count: 32)), .string(root)]],
                ]
                #expect(try await client.post("/db/_bulk_docs", ["new_edits": false, "docs": [doc]]).status == 201)
            }
            let meta = "revs_info=true&conflicts=true&deleted_conflicts=true&local_seq=true"
            // By id alone, the winner carries what was asked (`couch_db:open_doc_int`), and no ETag.
            let byID = try await client.get("/db/d?\(meta)")
            #expect(byID.json["_conflicts"] == [.string(loser)] && byID.json["_revs_info"] != nil && byID.json["_local_seq"] != nil)
            #expect(byID.header("ETag") == nil)
            // Named, the winner or a losing leaf is the revision as stored (`open_doc_revs_int`), with its ETag.
            for rev in [winner, loser] {
                let named = try await client.get("/db/d?rev=\(rev)&revs=true&\(meta)")
                let members = Set(named.json.objectValue?.keys.map { $0 } ?? [])
                #expect(members == ["_id", "_rev", "side", "_revisions"])
                #expect(named.header("ETag") == "\"\(rev)\"")
            }
            let open = try await client.get("/db/d?open_revs=all&\(meta)", headers: ["Accept": "application/json"]).json.arrayValue ?? []
            #expect(open.count == 2)
            #expect(open.allSatisfy { Set($0["ok"]?.objectValue?.keys.map { $0 } ?? []) == ["_id", "_rev", "side"] })
        }
    }

    @Test func purgeRemovesLeavesAndKeepsItsInfos() async throws {
        try await withLiveDatabase { _, client in
            let rev = try await client.put("/db/a", ["v": 1]).json["rev"]?.stringValue ?? ""
            let answer = try await client.post("/db/_purge", ["a": [.string(rev)], "ghost": ["1-967a00dff5e02add41819138abb3284d"]])
            #expect(answer.status == 201)
            #expect(answer.json == ["purge_seq": .null, "purged": ["a": [.string(rev)], "ghost": []]])
            #expect(try await client.get("/db/a").status == 404)
            let info = try await client.get("/db").json
            #expect(info["doc_count"] == 0 && info["doc_del_count"] == 0)
            #expect(info["purge_seq"]?.stringValue?.hasPrefix("2-") == true)
            let infos = try await client.get("/db/_purged_infos").json["purged_infos"]?.arrayValue ?? []
            #expect(Set(infos.compactMap { $0["id"]?.stringValue }) == ["a", "ghost"])
            #expect(try await client.get("/db/_purged_infos_limit").json == 1000)
            #expect(try await client.put("/db/_purged_infos_limit", 1).json == ["ok": true])
            #expect(try await client.get("/db/_purged_infos").json["purged_infos"]?.arrayValue?.count == 1)
            #expect(try await client.put("/db/_purged_infos_limit", 0).status == 400)
            // `is_integer(Limit)`: a float is refused, however whole; any positive integer is taken.
            #expect(try await client.send("PUT", "/db/_purged_infos_limit", body: Data("5.0".utf8)).status == 400)
            #expect(try await client.send("PUT", "/db/_revs_limit", body: Data("5.0".utf8)).status == 400)
            #expect(try await client.put("/db/_purged_infos_limit", 3_000_000_000).status == 200)
            #expect(try await client.put("/db/_purged_infos_limit", 1).status == 200)
            #expect(try await client.get("/db/_purge").status == 405)
            // CouchDB 3.5 limits neither the ids nor, unless `purge/max_revisions_number` is set, the revisions.
            let many = JSONObject((0..<101).map { ("d\($0)", JSONValue.array([])) })
            #expect(try await client.post("/db/_purge", .object(many)).status == 201)
            #expect(try await client.send("PUT", "/_node/_local/_config/purge/max_revisions_number", body: Data("\"1\"".utf8)).status == 200)
            let two: JSONValue = ["x": [.string("1-" + String(repeating: "a", count: 32)), .string("1-" + String(repeating: "b", count: 32))]]
            try await client.post("/db/_purge", two).expectCouchError(400, "bad_request", "Exceeded maximum number of revisions.")
            try await client.post("/db/_purge", ["x": [1]]).expectCouchError(400, "bad_request", "Invalid rev format")
        }
    }

    @Test func theShardCountGivenAtCreationIsReported() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/plain")
            #expect(try await client.get("/plain").json["cluster"]?["q"] == 1)
            #expect(try await client.send("PUT", "/sixteen?q=16").status == 201)
            #expect(try await client.get("/sixteen").json["cluster"]?["q"] == 16)
            #expect(
                try await client.send("PUT", "/bad?q=0").json
                    == ["error": "bad_request", "reason": "The `q` value should be a positive integer."])
        }
    }

    @Test func sequencesAreOpaqueStringsAndEverySinceFormIsRead() async throws {
        try await withLiveDatabase { _, client in
            for id in ["a", "b", "c"] { _ = try await client.put("/db/\(id)", ["v": 1]) }
            let info = try await client.get("/db").json
            #expect(info["update_seq"]?.stringValue?.hasPrefix("3-") == true)
            let feed = try await client.get("/db/_changes").json
            let seqs = feed["results"]?.arrayValue?.compactMap { $0["seq"]?.stringValue } ?? []
            #expect(seqs.count == 3 && seqs.allSatisfy { $0.contains("-") })
            let second = seqs[1]
            let escaped = second.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? second
            for since in [escaped, "2", "%222%22", "%22\(escaped)%22"] {
                let ids = try await client.get("/db/_changes?since=\(since)").json["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
                #expect(ids == ["c"], "since=\(since)")
            }
            // `last-event-id` is `since`'s synonym; the later of the two wins.
            #expect(try await client.get("/db/_changes?last-event-id=2").json["results"]?.arrayValue?.count == 1)
            #expect(try await client.get("/db/_changes?since=0&last-event-id=2").json["results"]?.arrayValue?.count == 1)
            #expect(try await client.get("/db/_changes?last-event-id=2&since=0").json["results"]?.arrayValue?.count == 3)
            #expect(
                try await client.get("/db/_changes?since=garbage").json
                    == ["error": "bad_request", "reason": "Malformed sequence supplied in 'since' parameter."])
        }
    }

    @Test func aWriteAskingForMoreCopiesThanOneNodeKeepsIsAccepted() async throws {
        try await withLiveDatabase { _, client in
            #expect(try await client.put("/db/a?w=1", ["v": 1]).status == 201)
            let accepted = try await client.put("/db/b?w=3", ["v": 1])
            #expect(accepted.status == 202 && accepted.json["ok"] == true)
            let bulk = try await client.post("/db/_bulk_docs", ["docs": [["_id": "c"]], "w": 2])
            #expect(bulk.status == 202)
            #expect(bulk.json.arrayValue?.first?["accepted"] == true)
            #expect(try await client.put("/db/d?w=many", ["v": 1]).status == 400)
        }
    }

    @Test func allOrNothingIsRefusedForEveryDocumentAsCouchDBThreeRefusesIt() async throws {
        try await withLiveDatabase { _, client in
            let answer = try await client.post("/db/_bulk_docs", ["all_or_nothing": true, "docs": [["_id": "a"], ["_id": "b", "_rev": "1-967a00dff5e02add41819138abb3284d"]]])
            #expect(answer.status == 417)
            #expect(
                answer.json == [
                    ["id": "a", "rev": "0-", "error": "not_implemented", "reason": "all_or_nothing is not supported"],
                    ["id": "b", "rev": "1-967a00dff5e02add41819138abb3284d", "error": "not_implemented", "reason": "all_or_nothing is not supported"],
                ])
            #expect(try await client.get("/db/a").status == 404)
            // A document without an id is named by the id CouchDB gives it first.
            let unnamed = try await client.post("/db/_bulk_docs", ["all_or_nothing": true, "docs": [["n": 1]]])
            #expect(unnamed.json.arrayValue?.first?["id"]?.stringValue?.count == 32, "\(unnamed.text)")
        }
    }
}
