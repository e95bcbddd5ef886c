import CloudantCore
import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// Per-document access lists: every read path is tried by a user outside a document's list, and no answer
/// may carry the document's id, body, revisions or attachment.
@Suite("Per-document access: no read path leaks a document outside its list")
struct DocumentAccessTests {
    /// Alice's documents; none of these strings may reach bob.
    static let hidden = ["a-private", "a-revoked", "a-deleted", "a-conflicted", "a-attachment"]
    static let secret = "alice-only-secret"

    private static func rev(_ generation: Int, _ fill: Character) -> String {
        "\(generation)-" + String(repeating: fill, count: 32)
    }

    /// A clinic database with per-document access, three staff members and alice's documents in every state:
    /// current, with bob taken off the list (bob can read the old revision's list), deleted, in conflict with a
    /// branch that names bob, and with an attachment.
    private func clinic(_ server: LiveServer) async throws {
        for (name, roles) in [("alice", ["staff"]), ("bob", ["staff"]), ("nina", ["staff", "nurses"])] {
            let user: JSONValue = [
                "name": .string(name), "password": .string("pw-\(name)"), "roles": .array(roles.map(JSONValue.string)),
                "type": "user",
            ]
            #expect(try await server.admin.put("/_users/org.couchdb.user:\(name)", user).status == 201)
        }
        #expect(try await server.admin.send("PUT", "/clinic").status == 201)
        let security: JSONValue = ["members": ["roles": ["staff"]], "admins": ["names": [], "roles": []], "document_access": true]
        #expect(try await server.admin.put("/clinic/_security", security).status == 200)
        let alice = server.client("alice", "pw-alice")
        let secret = JSONValue.string(Self.secret)

        #expect(try await alice.put("/clinic/a-private", ["note": secret]).status == 201)
        let shared = try await alice.put(
            "/clinic/a-revoked", ["note": secret, "access": ["names": ["alice", "bob"]]])
        let sharedRev = try #require(shared.json["rev"]?.stringValue)
        #expect(
            try await alice.put("/clinic/a-revoked", ["_rev": .string(sharedRev), "note": secret, "access": ["names": ["alice"]]])
                .status == 201)
        let doomed = try await alice.put("/clinic/a-deleted", ["note": secret])
        #expect(try await alice.send("DELETE", "/clinic/a-deleted?rev=\(doomed.json["rev"]?.stringValue ?? "")").status == 200)
        // Two branches from one parent; the winner (the higher hash) names only alice, the loser names bob.
        let branches: JSONValue = [
            "new_edits": false,
            "docs": [
                [
                    "_id": "a-conflicted", "_rev": .string(Self.rev(2, "f")), "note": secret, "access": ["names": ["alice"]],
                    "_revisions": ["start": 2, "ids": [.string(String(repeating: "f", count: 32)), .string(String(repeating: "1", count: 32))]],
                ],
                [
                    "_id": "a-conflicted", "_rev": .string(Self.rev(2, "a")), "note": secret, "access": ["names": ["bob"]],
                    "_revisions": ["start": 2, "ids": [.string(String(repeating: "a", count: 32)), .string(String(repeating: "1", count: 32))]],
                ],
            ],
        ]
        #expect(try await server.admin.post("/clinic/_bulk_docs", branches).status == 201)
        let withFile = try await alice.put("/clinic/a-attachment", ["note": secret])
        let upload = try await alice.send(
            "PUT", "/clinic/a-attachment/scan.txt?rev=\(withFile.json["rev"]?.stringValue ?? "")",
            body: Data(Self.secret.utf8), contentType: "text/plain")
        #expect(upload.status == 201)

        let bob = server.client("bob", "pw-bob")
        #expect(try await bob.put("/clinic/b-private", ["note": "bob's"]).status == 201)
        // Written by the admin: alice, not a nurse, may not write a document her own list leaves her out of.
        #expect(try await server.admin.put("/clinic/n-shared", ["note": "for nurses", "access": ["roles": ["nurses"]]]).status == 201)
        #expect(try await server.admin.post("/clinic/_index", ["index": ["fields": ["note"]], "name": "by-note"]).status == 200)
    }

    /// Fails if `answer` carries anything of alice's hidden documents.
    private func expectNoLeak(_ answer: HTTPAnswer, _ path: String, allowingIDs: Bool = false) {
        let text = answer.text
        #expect(!text.contains(Self.secret), "\(path) leaked a body: \(text)")
        if !allowingIDs {
            for id in Self.hidden { #expect(!text.contains(id), "\(path) leaked \(id): \(text)") }
        }
        #expect(!text.contains(String(repeating: "f", count: 32)), "\(path) leaked a revision: \(text)")
    }

    @Test func noReadPathShowsBobADocumentWhoseWinningRevisionDoesNotNameHim() async throws {
        try await withLiveServer { server in
            try await clinic(server)
            let bob = server.client("bob", "pw-bob")
            var reads: [(String, HTTPAnswer)] = []
            func read(_ path: String) async throws { reads.append((path, try await bob.get(path))) }
            for id in Self.hidden {
                for query in ["", "?revs=true", "?revs_info=true", "?conflicts=true", "?deleted_conflicts=true", "?open_revs=all",
                    "?open_revs=[\"\(Self.rev(2, "a"))\"]", "?rev=\(Self.rev(2, "a"))", "?meta=true", "?attachments=true", "?latest=true"]
                {
                    let path = "/clinic/\(id)\(query)"
                    let answer = try await bob.get(path)
                    #expect(answer.status == 404, "\(path) answered \(answer.status)")
                    reads.append((path, answer))
                }
                let head = try await bob.send("HEAD", "/clinic/\(id)")
                #expect(head.status == 404)
                let multipart = try await bob.get("/clinic/\(id)?open_revs=all", headers: ["Accept": "multipart/mixed"])
                #expect(multipart.status == 404)
                reads.append(("multipart \(id)", multipart))
            }
            let attachment = try await bob.get("/clinic/a-attachment/scan.txt")
            #expect(attachment.status == 404)
            reads.append(("attachment", attachment))
            for path in [
                "/clinic/_all_docs", "/clinic/_all_docs?include_docs=true", "/clinic/_all_docs?conflicts=true&include_docs=true",
                "/clinic/_all_docs?descending=true&limit=100", "/clinic/_design_docs",
                "/clinic/_changes", "/clinic/_changes?style=all_docs", "/clinic/_changes?include_docs=true&conflicts=true",
                "/clinic/_changes?style=all_docs&include_docs=true", "/clinic/_changes?feed=longpoll&since=0",
                "/clinic/_changes?feed=continuous&since=0&timeout=300", "/clinic/_changes?feed=eventsource&since=0&timeout=300",
                "/clinic/_changes?filter=_selector&since=0",
            ] {
                try await read(path)
            }
            let keyed = try await bob.post("/clinic/_all_docs?include_docs=true", ["keys": .array(Self.hidden.map(JSONValue.string))])
            #expect(keyed.json["rows"]?.arrayValue?.allSatisfy { $0["error"] == "not_found" } == true)
            reads.append(("_all_docs keys", keyed))
            reads.append(("_changes doc_ids", try await bob.post(
                "/clinic/_changes?filter=_doc_ids&include_docs=true", ["doc_ids": .array(Self.hidden.map(JSONValue.string))])))
            reads.append(("_changes _selector", try await bob.post(
                "/clinic/_changes?filter=_selector&include_docs=true", ["selector": ["note": .string(Self.secret)]])))
            for selector: JSONValue in [[:], ["note": .string(Self.secret)], ["_id": ["$gt": .null]], ["note": ["$exists": true]]] {
                let found = try await bob.post("/clinic/_find", ["selector": selector, "limit": 100])
                #expect(found.status == 200)
                reads.append(("_find \(selector.jsonString())", found))
            }
            let bulkGet = try await bob.post(
                "/clinic/_bulk_get?revs=true", ["docs": .array(Self.hidden.map { ["id": .string($0)] } + [["id": "a-conflicted", "rev": .string(Self.rev(2, "a"))]])])
            #expect(bulkGet.status == 200)
            reads.append(("_bulk_get", bulkGet))
            // `_all_docs` with keys and `_bulk_get` echo the ids they were asked about: only those may appear.
            for (path, answer) in reads { expectNoLeak(answer, path, allowingIDs: path == "_all_docs keys" || path == "_bulk_get") }

            // `_revs_diff` echoes the ids it was asked about, but says every revision is missing.
            let diff = try await bob.post("/clinic/_revs_diff", ["a-conflicted": [.string(Self.rev(2, "f")), .string(Self.rev(2, "a"))]])
            #expect(diff.json == ["a-conflicted": ["missing": [.string(Self.rev(2, "f")), .string(Self.rev(2, "a"))]]])

            // What bob does see: his own document, and nothing of alice's in the listings above.
            let mine = try await bob.get("/clinic/_all_docs").json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
            #expect(mine == ["b-private"])
            let changes = try await bob.get("/clinic/_changes").json["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
            #expect(changes == ["b-private"])
        }
    }

    @Test func membersSeeWhatTheirNameOrARoleOpensAndAdminsSeeEverything() async throws {
        try await withLiveServer { server in
            try await clinic(server)
            let nina = server.client("nina", "pw-nina")
            let alice = server.client("alice", "pw-alice")
            #expect(try await nina.get("/clinic/_all_docs").json["rows"]?.arrayValue?.map { $0["id"] } == ["n-shared"])
            let found = try await nina.post("/clinic/_find", ["selector": ["note": ["$exists": true]]])
            #expect(found.json["docs"]?.arrayValue?.map { $0["_id"] } == ["n-shared"])
            #expect(try await alice.get("/clinic/a-conflicted?conflicts=true").json["_conflicts"] == [.string(Self.rev(2, "a"))])
            #expect(try await alice.get("/clinic/a-attachment/scan.txt").text == Self.secret)
            // The tombstone kept alice's list: her feed reports the deletion, bob's does not.
            let feed = try await alice.get("/clinic/_changes").json["results"]?.arrayValue ?? []
            #expect(feed.contains { $0["id"] == "a-deleted" && $0["deleted"] == true })
            let all = try await server.admin.get("/clinic/_all_docs").json["rows"]?.arrayValue?.count
            #expect(all == 7)  // five of alice's live documents, bob's and the nurses' (the deleted one is not listed)
            // `_all_docs` with limit and skip counts visible rows only.
            let page = try await alice.get("/clinic/_all_docs?skip=1&limit=2").json
            #expect(page["rows"]?.arrayValue?.map { $0["id"] } == ["a-conflicted", "a-private"])
            #expect(page["total_rows"] == 3)  // the visible rows read to answer: hidden ones are never counted
        }
    }

    @Test func nobodyCanWriteTheirWayOntoAListTheyAreNotOn() async throws {
        try await withLiveServer { server in
            try await clinic(server)
            let bob = server.client("bob", "pw-bob")
            let admin = server.admin
            let current = try #require(try await admin.get("/clinic/a-private").json["_rev"]?.stringValue)
            // Each is answered as the same write to a missing document is: a conflict (the id is taken, no more).
            let takeover: JSONValue = ["_rev": .string(current), "note": "mine now", "access": ["names": ["bob"]]]
            #expect(try await bob.put("/clinic/a-private", takeover).status == 409)
            #expect(try await bob.put("/clinic/a-private", ["note": "fresh", "access": ["names": ["bob"]]]).status == 409)
            #expect(try await bob.send("DELETE", "/clinic/a-private?rev=\(current)").status == 404)
            let upload = try await bob.send(
                "PUT", "/clinic/a-private/x.txt?rev=\(current)", body: Data("x".utf8), contentType: "text/plain")
            #expect(upload.status == 409)
            // Nor can bob write a document of his own whose list leaves him out.
            #expect(try await bob.put("/clinic/b-for-alice", ["note": "gift", "access": ["names": ["alice"]]]).status == 403)
            #expect(try await server.admin.get("/clinic/b-for-alice").status == 404)
            // `_local/` documents follow their own lists: alice's checkpoint is hidden from bob.
            let alice = server.client("alice", "pw-alice")
            #expect(try await alice.put("/clinic/_local/alice-checkpoint", ["source_last_seq": 7]).status == 201)
            #expect(try await bob.get("/clinic/_local/alice-checkpoint").status == 404)
            #expect(try await bob.put("/clinic/_local/alice-checkpoint", ["source_last_seq": 0]).status == 409)
            #expect(try await bob.send("DELETE", "/clinic/_local/alice-checkpoint").status == 404)
            #expect(try await alice.get("/clinic/_local/alice-checkpoint").json["source_last_seq"] == 7)
            // A replicated branch (new_edits=false) that would add bob is refused in its place.
            let branch: JSONValue = [
                "new_edits": false,
                "docs": [
                    [
                        "_id": "a-private", "_rev": .string(Self.rev(9, "b")), "note": "injected", "access": ["names": ["bob"]],
                        "_revisions": ["start": 9, "ids": [.string(String(repeating: "b", count: 32))]],
                    ],
                    [
                        "_id": "b-replicated", "_rev": .string(Self.rev(1, "c")), "note": "ok", "access": ["names": ["bob"]],
                        "_revisions": ["start": 1, "ids": [.string(String(repeating: "c", count: 32))]],
                    ],
                ],
            ]
            // Only failures are answered for new_edits=false (CouchDB's replicator stops on anything else).
            let written = try await bob.post("/clinic/_bulk_docs", branch)
            #expect(written.json == [["id": "a-private", "rev": .string(Self.rev(9, "b")), "error": "forbidden", "reason": "You are not on this document's access list."]])
            #expect(try await bob.get("/clinic/b-replicated").status == 200)
            #expect(try await admin.get("/clinic/a-private?open_revs=all", headers: ["Accept": "application/json"]).json.arrayValue?.count == 1)
            // A replicated document without a list is refused rather than changed under its revision id.
            let bare: JSONValue = [
                "new_edits": false,
                "docs": [["_id": "b-bare", "_rev": .string(Self.rev(1, "d")), "_revisions": ["start": 1, "ids": [.string(String(repeating: "d", count: 32))]]]],
            ]
            #expect(try await bob.post("/clinic/_bulk_docs", bare).json.arrayValue?.first?["error"] == "forbidden")
            let accepted: JSONValue = [
                "new_edits": false,
                "docs": [["_id": "b-fine", "_rev": .string(Self.rev(1, "e")), "access": ["names": ["bob"]], "_revisions": ["start": 1, "ids": [.string(String(repeating: "e", count: 32))]]]],
            ]
            #expect(try await bob.post("/clinic/_bulk_docs", accepted).json == [])
            #expect(try await bob.put("/clinic/bad-list", ["access": ["names": "bob"]]).status == 400)
        }
    }

    @Test func aNewDocumentGetsItsWritersNameAndAnUpdateKeepsItsList() async throws {
        try await withLiveServer { server in
            try await clinic(server)
            let bob = server.client("bob", "pw-bob")
            let created = try await bob.put("/clinic/b-new", ["v": 1])
            #expect(try await server.admin.get("/clinic/b-new").json["access"] == ["names": ["bob"], "roles": []])
            let shared = try await bob.put(
                "/clinic/b-new", ["_rev": created.json["rev"] ?? .null, "v": 2, "access": ["names": ["bob"], "roles": ["nurses"]]])
            #expect(try await bob.put("/clinic/b-new", ["_rev": shared.json["rev"] ?? .null, "v": 3]).status == 201)
            #expect(try await server.client("nina", "pw-nina").get("/clinic/b-new").json["v"] == 3)
            let bulk = try await bob.post("/clinic/_bulk_docs", ["docs": [["_id": "b-bulk", "v": 1]]])
            #expect(bulk.json.arrayValue?.first?["ok"] == true)
            #expect(try await server.admin.get("/clinic/b-bulk").json["access"] == ["names": ["bob"], "roles": []])
        }
    }

    @Test func aUserTakenOffTheListLosesTheOldRevisionsToo() async throws {
        try await withLiveServer { server in
            try await clinic(server)
            let bob = server.client("bob", "pw-bob")
            let history = try await server.admin.get("/clinic/a-revoked?revs_info=true").json
            let old = try #require(history["_revs_info"]?.arrayValue?.last?["rev"]?.stringValue)
            #expect(try await bob.get("/clinic/a-revoked?rev=\(old)").status == 404)
            #expect(try await bob.post("/clinic/_bulk_get", ["docs": [["id": "a-revoked", "rev": .string(old)]]]).text.contains(Self.secret) == false)
        }
    }

    @Test func theSecurityObjectValidatesDocumentAccess() async throws {
        try await withLiveServer { server in
            #expect(try await server.admin.send("PUT", "/db").status == 201)
            let word: JSONValue = ["document_access": "yes"]
            let underscore: JSONValue = ["document_access": ["field": "_access"]]
            let named: JSONValue = ["document_access": ["field": "acl"], "members": ["roles": ["staff"]]]
            let answers = [
                try await server.admin.put("/db/_security", word), try await server.admin.put("/db/_security", underscore),
                try await server.admin.put("/db/_security", named),
            ]
            #expect(answers.map(\.status) == [400, 400, 200])
        }
    }

    @Test func liveFeedsAndPartitionsLeaveOutDocumentsWrittenForOthersWhileTheyRun() async throws {
        try await withLiveServer { server in
            try await clinic(server)
            let alice = server.client("alice", "pw-alice")
            let bobAuthorization = "Basic " + Data("bob:pw-bob".utf8).base64EncodedString()
            let body = #"{"selector":{"note":{"$exists":true}}}"#
            let find = try RawConnection(port: server.port)
            defer { find.close() }
            find.send(
                "POST /clinic/_find?feed=continuous HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(bobAuthorization)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let changes = try RawConnection(port: server.port)
            defer { changes.close() }
            changes.send(
                "GET /clinic/_changes?feed=continuous&since=now&include_docs=true&heartbeat=50 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: \(bobAuthorization)\r\n\r\n")
            let first = try await find.readUntil("b-private")
            #expect(!first.contains(Self.secret))
            try await server.waitForOpenFeeds(2)  // both feeds stream: what is written next reaches them
            // While both feeds run, alice writes a hidden document, then bob writes one of his own.
            #expect(try await alice.put("/clinic/a-live", ["note": .string(Self.secret)]).status == 201)
            #expect(try await server.client("bob", "pw-bob").put("/clinic/b-live", ["note": "bob again"]).status == 201)
            let live = try await changes.readUntil("b-live")
            let found = try await find.readUntil("b-live")
            for text in [live, found] {
                #expect(!text.contains(Self.secret) && !text.contains("a-live"), "a live feed leaked: \(text)")
            }

            // A partitioned database answers its partition paths with the same rule.
            #expect(try await server.admin.send("PUT", "/ward?partitioned=true").status == 201)
            let security: JSONValue = ["members": ["roles": ["staff"]], "document_access": true]
            #expect(try await server.admin.put("/ward/_security", security).status == 200)
            #expect(try await alice.put("/ward/p1:a-private", ["note": .string(Self.secret)]).status == 201)
            let bob = server.client("bob", "pw-bob")
            #expect(try await bob.put("/ward/p1:b-private", ["note": "bob's"]).status == 201)
            for answer in [
                try await bob.get("/ward/_partition/p1/_all_docs?include_docs=true"),
                try await bob.post("/ward/_partition/p1/_find", ["selector": ["note": ["$exists": true]]]),
                try await bob.get("/ward/p1:a-private"),
            ] {
                #expect(!answer.text.contains(Self.secret) && !answer.text.contains("a-private"), "\(answer.text)")
            }
            let partitionRows = try await bob.get("/ward/_partition/p1/_all_docs").json["rows"]?.arrayValue
            #expect(partitionRows?.map { $0["id"] } == ["p1:b-private"])
        }
    }

    @Test func aRestrictedRangeOfAllDocsPagesThroughALargeDatabaseInStepsAndCountsOnlyVisibleRows() async throws {
        try await withLiveServer { server in
            try await clinic(server)
            // 1,200 documents for nina among 1,200 that are not hers: more than two pages of the restricted reader.
            var docs: [JSONValue] = []
            for index in 0..<1_200 {
                docs.append(["_id": .string(String(format: "m-%04d-hers", index)), "access": ["names": ["nina"]]])
                docs.append(["_id": .string(String(format: "m-%04d-not", index)), "access": ["names": ["alice"]]])
            }
            #expect(try await server.admin.post("/clinic/_bulk_docs", ["docs": .array(docs)]).status == 201)
            let nina = server.client("nina", "pw-nina")
            let page = try await nina.get("/clinic/_all_docs?startkey=%22m-%22&endkey=%22m-%EF%BF%BF%22&skip=1000&limit=3").json
            #expect(page["rows"]?.arrayValue?.map { $0["id"] } == ["m-1000-hers", "m-1001-hers", "m-1002-hers"])
            #expect(page["total_rows"] == 1_003 && page["offset"] == 1_000)
            let descending = try await nina.get("/clinic/_all_docs?descending=true&startkey=%22m-%EF%BF%BF%22&endkey=%22m-%22&limit=2").json
            #expect(descending["rows"]?.arrayValue?.map { $0["id"] } == ["m-1199-hers", "m-1198-hers"])
            let deep = try await nina.get("/clinic/_all_docs?descending=true&startkey=%22m-%EF%BF%BF%22&endkey=%22m-%22&skip=1000&limit=2").json
            #expect(deep["rows"]?.arrayValue?.map { $0["id"] } == ["m-0199-hers", "m-0198-hers"])
            let all = try await nina.get("/clinic/_all_docs?startkey=%22m-%22&endkey=%22m-%EF%BF%BF%22").json
            #expect(all["rows"]?.arrayValue?.count == 1_200 && all["total_rows"] == 1_200)
        }
    }
}
