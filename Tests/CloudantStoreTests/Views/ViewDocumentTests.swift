import CloudantCore
import CloudantOnly
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

/// What a Swift view's map closure sees of a document: most documents reach it as their stored body, with
/// `_id` and `_rev` made only when asked for; documents with conflicts or attachments whole. Either way it
/// sees what CouchDB hands a map function.
@Suite("Swift views: the documents a map sees")
struct ViewDocumentTests {
    /// Per document: `_id`, `_rev`, `_conflicts`, `_attachments` and a body member as the closure read them,
    /// and the whole document's member names in order.
    private static let seen = SwiftView(name: "seen", version: 1) { document, emit in
        let members = document.object.members.map { JSONValue.string($0.key) }
        emit(
            .string(document.id),
            .array([
                document["_id"] ?? "missing", document["_rev"] ?? "missing", document["_conflicts"] ?? "none",
                document["_attachments"] == nil ? "none" : "some", document["n"] ?? "missing", .array(members),
            ]))
    }

    @Test func aMapSeesEachDocumentsIdRevisionAndMembersAsCouchDBHandsThem() async throws {
        let temp = try TemporaryStore()
        let revs = try await temp.store.write([["_id": "plain", "n": 1], ["_id": "edited", "n": 2]])
        let edited = try await temp.store.put(["_id": "edited", "_rev": .string(try #require(revs["edited"])), "n": 3])
        _ = try await temp.store.bulkDocs(
            [["_id": "conflicted", "_rev": "1-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "n": 4],
             ["_id": "conflicted", "_rev": "1-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "n": 5]],
            newEdits: false)
        let attached = try await temp.store.put([
            "_id": "attached", "n": 6,
            "_attachments": ["note.txt": ["content_type": "text/plain", "data": .string(Data("hello".utf8).base64EncodedString())]],
        ])
        // Built from nothing, then the same documents kept one change at a time: the same answer.
        let built = try await temp.store.queryView(Self.seen)
        let rows = Dictionary(uniqueKeysWithValues: built.rows.map { ($0.key.stringValue ?? "", $0.value.arrayValue ?? []) })
        #expect(rows["plain"]?[0] == "plain")
        #expect(rows["plain"]?[1] == .string(try #require(revs["plain"])))
        #expect(rows["plain"]?[2] == "none" && rows["plain"]?[3] == "none" && rows["plain"]?[4] == 1)
        #expect(rows["plain"]?[5] == ["_id", "_rev", "n"])
        #expect(rows["edited"]?[1] == .string(edited.rev) && rows["edited"]?[4] == 3)
        #expect(rows["conflicted"]?[1] == "1-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
        #expect(rows["conflicted"]?[2] == ["1-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"])
        #expect(rows["conflicted"]?[5] == ["_id", "_rev", "n", "_conflicts"])
        #expect(rows["attached"]?[1] == .string(attached.rev) && rows["attached"]?[3] == "some")
        #expect(rows["attached"]?[5] == ["_id", "_rev", "n", "_attachments"])

        let kept = try TemporaryStore()
        _ = try await kept.store.queryView(Self.seen)
        let plain = try await kept.store.put(["_id": "plain", "n": 1])
        let incremental = try await kept.store.queryView(Self.seen)
        #expect(incremental.rows.first?.value.arrayValue?[1] == .string(plain.rev))
        #expect(incremental.rows.first?.value.arrayValue?[5] == ["_id", "_rev", "n"])
    }

    /// A first build copies each document into one array reused from document to document; a document the
    /// closure keeps is left as it was, and the next one is written elsewhere.
    @Test func documentsAMapKeepsStayAsTheyWereRead() async throws {
        let kept = Mutex<[ViewDocument]>([])
        let keeping = SwiftView(name: "keeping", version: 1) { document, emit in
            if case .number(let n)? = document["n"], (n.int64Value ?? 0) % 7 == 0 { kept.withLock { $0.append(document) } }
            emit(document["n"] ?? .null, .null)
        }
        let temp = try TemporaryStore()
        // Several batches of documents, of different lengths, so a later one would overwrite a kept one's bytes.
        let documents: [JSONValue] = (0..<3500).map { index in
            ["_id": .string(String(format: "doc-%05d", index)), "n": .number(JSONNumber(index)),
             "padding": .string(String(repeating: "p", count: index % 50))]
        }
        try await temp.store.write(documents)
        #expect(try await temp.store.queryView(keeping).rows.count == 3500)
        let documentsKept = kept.withLock { $0 }
        #expect(documentsKept.count == 500)
        for document in documentsKept {
            let n = try #require(document["n"]?.numberValue?.int64Value)
            #expect(document.id == String(format: "doc-%05d", n))
            #expect(document["padding"] == .string(String(repeating: "p", count: Int(n) % 50)))
            #expect(document.object["_id"] == .string(document.id))
        }
    }
}
