import CloudantCore
import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// A document a user may not see must be indistinguishable from one that does not exist: every path that names
/// a document is asked about a hidden id and a missing one, and must answer both alike (status, content type and
/// body, the id itself aside); every figure derived from documents must count only visible ones; and the user's
/// own predicates must never run on hidden documents (no error, statistic or delay tells them apart).
@Suite("Hidden documents answer as missing ones")
struct HiddenDocumentMatrixTests {
    /// Alice's document, hidden from bob, and an id nobody used: the same length, so answers compare byte for byte
    /// once the id is swapped for a placeholder.
    static let hidden = "h-secret"
    static let missing = "m-absent"
    static let visible = "v-bobdoc"
    static let bogusRev = "1-" + String(repeating: "0", count: 32)
    /// A value on which `^(a+)+$` backtracks past any step limit.
    static let backtracking = String(repeating: "a", count: 40) + "!"

    /// A ward with per-document access: alice's hidden document (with an HTML attachment and a `_local/` twin),
    /// bob's own, and an index on `note`.
    private func ward(_ server: LiveServer) async throws {
        try await server.makeWardWithDocumentAccess("ward")
        #expect(try await server.admin.post("/ward/_index", ["index": ["fields": ["note"]], "name": "by-note"]).status == 200)
        for (client, id) in [(server.client("alice", "pw-alice"), Self.hidden), (server.client("bob", "pw-bob"), Self.visible)] {
            let written = try await client.put("/ward/\(id)", ["note": .string(Self.backtracking)])
            #expect(written.status == 201)
            let rev = try #require(written.json["rev"]?.stringValue)
            let upload = try await client.send(
                "PUT", "/ward/\(id)/scan.html?rev=\(rev)", body: Data("<script>alert(1)</script>".utf8), contentType: "text/html")
            #expect(upload.status == 201)
            #expect(try await client.put("/ward/_local/\(id)", ["checkpoint": 7]).status == 201)
        }
    }

    /// One request, with `{id}` where the document's id goes.
    struct Probe: CustomStringConvertible {
        var method: String
        var path: String
        var body: String?
        var contentType = "application/json"

        var description: String { "\(method) \(path) \(body ?? "")" }

        func send(_ client: TestClient, id: String) async throws -> HTTPAnswer {
            let fill = { (text: String) in text.replacingOccurrences(of: "{id}", with: id) }
            return try await client.send(
                method, fill(path), body: body.map { Data(fill($0).utf8) }, contentType: body == nil ? nil : contentType)
        }
    }

    static let probes: [Probe] = [
        Probe(method: "GET", path: "/ward/{id}"),
        Probe(method: "GET", path: "/ward/{id}?revs=true&conflicts=true&meta=true&local_seq=true"),
        Probe(method: "GET", path: "/ward/{id}?open_revs=all"),
        Probe(method: "GET", path: "/ward/{id}?rev=\(bogusRev)"),
        Probe(method: "HEAD", path: "/ward/{id}"),
        Probe(method: "GET", path: "/ward/{id}/scan.html"),
        Probe(method: "HEAD", path: "/ward/{id}/scan.html"),
        Probe(method: "PUT", path: "/ward/{id}?rev=\(bogusRev)", body: #"{"note":"overwrite"}"#),
        Probe(method: "PUT", path: "/ward/{id}", body: #"{"_rev":"\#(bogusRev)","note":"overwrite"}"#),
        Probe(method: "DELETE", path: "/ward/{id}?rev=\(bogusRev)"),
        Probe(method: "PUT", path: "/ward/{id}/scan.html?rev=\(bogusRev)", body: "x", contentType: "text/plain"),
        Probe(method: "PUT", path: "/ward/{id}/new.txt", body: "x", contentType: "text/plain"),
        Probe(method: "DELETE", path: "/ward/{id}/scan.html?rev=\(bogusRev)"),
        Probe(method: "DELETE", path: "/ward/{id}/scan.html"),
        Probe(method: "POST", path: "/ward/_bulk_docs", body: #"{"docs":[{"_id":"{id}","_rev":"\#(bogusRev)","note":"x"}]}"#),
        Probe(method: "POST", path: "/ward/_all_docs", body: #"{"keys":["{id}"]}"#),
        Probe(method: "POST", path: "/ward/_all_docs?include_docs=true", body: #"{"keys":["{id}"]}"#),
        Probe(method: "GET", path: "/ward/_all_docs?key=%22{id}%22"),
        Probe(method: "GET", path: "/ward/_all_docs?startkey=%22{id}%22&endkey=%22{id}%22&include_docs=true"),
        Probe(method: "POST", path: "/ward/_bulk_get", body: #"{"docs":[{"id":"{id}"},{"id":"{id}","rev":"\#(bogusRev)"}]}"#),
        Probe(method: "POST", path: "/ward/_revs_diff", body: #"{"{id}":["\#(bogusRev)"]}"#),
        Probe(method: "POST", path: "/ward/_changes?filter=_doc_ids", body: #"{"doc_ids":["{id}"]}"#),
        Probe(method: "GET", path: "/ward/_changes?filter=_doc_ids&doc_ids=%5B%22{id}%22%5D&since=1"),
        Probe(method: "GET", path: "/ward/_changes?filter=_doc_ids&doc_ids=%5B%22{id}%22%5D&since=2&limit=1"),
        Probe(method: "POST", path: "/ward/_changes?filter=_selector", body: #"{"selector":{"_id":"{id}"}}"#),
        Probe(method: "POST", path: "/ward/_find", body: #"{"selector":{"_id":"{id}"},"execution_stats":true}"#),
        Probe(method: "POST", path: "/ward/_find", body: #"{"selector":{"_id":{"$gte":"{id}"},"note":{"$regex":"^(a+)+$"}},"execution_stats":true}"#),
        Probe(method: "POST", path: "/ward/_find", body: #"{"selector":{"note":{"$gt":null},"_id":"{id}"},"execution_stats":true}"#),
        Probe(method: "POST", path: "/ward/_explain", body: #"{"selector":{"_id":"{id}"}}"#),
        Probe(method: "GET", path: "/ward/_local/{id}"),
        Probe(method: "DELETE", path: "/ward/_local/{id}"),
        Probe(method: "GET", path: "/_utils/db/ward/doc/{id}"),
    ]

    /// An answer with the id swapped for `{id}` and the figures that measure time dropped.
    private static func normalised(_ answer: HTTPAnswer, id: String) -> String {
        var text = answer.text.replacingOccurrences(of: id, with: "{id}")
        if case .object(var object) = answer.json, case .object(var stats)? = object["execution_stats"] {
            stats["execution_time_ms"] = nil
            object["execution_stats"] = .object(stats)
            text = JSONValue.object(object).jsonString().replacingOccurrences(of: id, with: "{id}")
        }
        return "\(answer.status) \(answer.header("Content-Type") ?? "") \(text)"
    }

    @Test func everyPathAnswersAHiddenDocumentExactlyAsAMissingOne() async throws {
        try await withLiveServer({ $0.regexStepLimit = 100_000 }) { server in
            try await ward(server)
            let bob = server.client("bob", "pw-bob")
            for probe in Self.probes {
                let hidden = Self.normalised(try await probe.send(bob, id: Self.hidden), id: Self.hidden)
                let missing = Self.normalised(try await probe.send(bob, id: Self.missing), id: Self.missing)
                #expect(hidden == missing, "\(probe)")
                #expect(!hidden.contains("alert(1)") && !hidden.contains(Self.backtracking), "\(probe) leaked: \(hidden)")
            }
            // The same paths work for what bob may see (the answers above are not all refusals of everything).
            let own = try await Probe(method: "GET", path: "/ward/{id}").send(bob, id: Self.visible)
            #expect(own.status == 200 && own.json["note"] == .string(Self.backtracking))
            let local = try await Probe(method: "GET", path: "/ward/_local/{id}").send(bob, id: Self.visible)
            #expect(local.status == 200 && local.json["checkpoint"] == 7)
            let regex = try await bob.post("/ward/_find", ["selector": ["_id": .string(Self.visible), "note": ["$regex": "^(a+)+$"]]])
            #expect(regex.status == 400 && regex.json["error"] == "bad_arg", "the regex runs on bob's own document")
        }
    }

    @Test func countsPendingAndTotalsCoverOnlyWhatTheUserSees() async throws {
        try await withLiveServer { server in
            try await ward(server)
            let bob = server.client("bob", "pw-bob")
            let info = try await bob.get("/ward").json
            #expect(info["doc_count"] == 1 && info["doc_del_count"] == 0, "\(info)")
            let admin = try await server.admin.get("/ward").json
            #expect(admin["doc_count"] == 3)  // alice's, bob's and the index's design document
            let everything = try await bob.get("/ward/_changes?limit=0").json
            #expect(everything["pending"] == 1 && everything["results"] == [])
            let afterAll = try await bob.get("/ward/_changes?since=0").json
            #expect(afterAll["pending"] == 0 && afterAll["results"]?.arrayValue?.count == 1)
            let beyondStrings = try await bob.get("/ward/_all_docs?startkey=%5B%5D").json
            #expect(beyondStrings["total_rows"] == 0 && beyondStrings["rows"] == [], "\(beyondStrings)")
            let listed = try await bob.get("/ward/_all_docs").json
            #expect(listed["total_rows"] == 1 && listed["rows"]?.arrayValue?.count == 1)
        }
    }

    @Test func aHiddenDocumentCostsTheUsersRegexNothing() async throws {
        // With a step limit of one, a regex that runs on any document at all is refused with `400`. Only alice's
        // hidden document has `diagnosis`, so bob's query can only be refused if his regex ran on it: it must
        // answer as an empty result, while the same query from the admin, who sees the document, is refused.
        // Steps, not time, so a busy machine cannot blur the difference.
        try await withLiveServer({ $0.regexStepLimit = 1 }) { server in
            try await ward(server)
            let alice = server.client("alice", "pw-alice")
            #expect(try await alice.put("/ward/h-diagnosis", ["diagnosis": .string(Self.backtracking)]).status == 201)
            let query: JSONValue = ["selector": ["diagnosis": ["$regex": "^(a+)+$"]], "execution_stats": true]
            let asBob = try await server.client("bob", "pw-bob").post("/ward/_find", query)
            #expect(asBob.status == 200 && asBob.json["docs"] == [], "\(asBob.json)")
            #expect(asBob.json["execution_stats"]?["results_returned"] == 0)
            let asAdmin = try await server.admin.post("/ward/_find", query)
            #expect(asAdmin.status == 400 && asAdmin.json["error"] == "bad_arg", "the regex runs where it may: \(asAdmin.json)")
        }
    }
}
