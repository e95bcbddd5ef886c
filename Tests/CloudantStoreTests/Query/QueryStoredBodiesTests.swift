@testable import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// When every condition is an `$eq` the index scan checks on its key columns, `_find` answers write the
/// stored bodies as they are instead of parsing, matching and writing each document again. The answer must
/// be the parsed route's, byte for byte, and every other request must keep the parsed route.
@Suite("Find answers written from stored bodies")
struct QueryStoredBodiesTests {
    /// Bodies that exercise the writer: escapes, non-ASCII text (precomposed and decomposed, which collate
    /// alike but are different strings), every kind of number, nesting, and values that collate equal.
    private static let values: [JSONValue] = [
        "walk", "é", "e\u{301}", "É", "quote \" back \\ slash / tab \t line \u{2028} nul \u{1}",
        .number(JSONNumber(1)), .number(.double(1.0)), .number(.double(-0.0)), .number(.double(1e-7)),
        .number(.double(5e20)), .number(.bigInteger("123456789012345678901234567890")), .number(.double(0.1)),
        true, .null, ["nested", ["deeper": [1, 2.5]]], ["a": "b", "c": .null],
    ]

    private static func documents() throws -> [JSONValue] {
        var documents: [JSONValue] = []
        for (index, value) in values.enumerated() {
            for copy in 0..<3 {
                documents.append([
                    "_id": .string("doc-\(index)-\(copy)\(copy == 2 ? " \"quoted\" ü" : "")"), "kind": value,
                    "copy": .number(JSONNumber(copy % 2)), "note": "ünïcode ✓ \u{1F600}",
                    "measure": ["value": .number(.double(Double(index) / 3)), "unit": "count/min"],
                ])
            }
        }
        // A body holding only the `_id` an index on `_id` reads, and one with an attachment, whose stubs
        // come from the attachment table.
        documents.append(["_id": "bare"])
        // Ids that are canonically equivalent: one index key, but Mango compares `_id` by its bytes.
        documents.append(["_id": "caf\u{E9}", "kind": "walk", "copy": 1])
        documents.append(["_id": "cafe\u{301}", "kind": "walk", "copy": 1])
        documents.append([
            "_id": "attached", "kind": "walk", "copy": 0,
            "_attachments": ["note.txt": ["content_type": "text/plain", "data": .string(Data("hello".utf8).base64EncodedString())]],
        ])
        return documents
    }

    private static func store() async throws -> TemporaryStore {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs(try documents())
        // Revisions as replication brings them: a text hash, an uppercase hex one, long generations, and an id
        // with a control character (each `_rev` and `_id` is written from the row's bytes in place).
        _ = try await temp.store.bulkDocs(
            [
                ["_id": "replicated-text", "_rev": "12-not-hex \"quoted\"", "kind": "walk", "copy": 0],
                ["_id": "replicated-upper", "_rev": "1234567-967A00DFF5E02ADD41819138ABB3284D", "kind": "walk", "copy": 0],
                ["_id": "replicated-\u{1}-control", "_rev": "10-967a00dff5e02add41819138abb3284d", "kind": "walk", "copy": 0],
            ], newEdits: false)
        try await temp.store.createIndex(IndexDefinition(name: "kind-copy", fields: [.ascending("kind"), .ascending("copy")]))
        try await temp.store.createIndex(IndexDefinition(name: "by-id", fields: [.ascending("_id")]))
        return temp
    }

    private static func request(_ json: JSONValue) throws -> FindRequest {
        try FindRequest(json)
    }

    /// The answer both ways, and whether the stored-body route was taken.
    private static func answers(_ store: DocumentStore, _ request: FindRequest) async throws -> (fast: [UInt8], parsed: [UInt8], usedStoredBodies: Bool) {
        let fast = try await store.findAnswer(request)
        let parsed = try await store.find(request).json.jsonBytes()
        let encoded = try await store.find(request, limits: .default, visibility: nil, readingSequence: false, encodingDocuments: true).encoded
        return (fast, parsed, encoded != nil)
    }

    @Test("Equality on indexed fields is answered from stored bodies, byte for byte the parsed answer")
    func equalityPagesMatchTheParsedRoute() async throws {
        let temp = try await Self.store()
        for value in Self.values + ["absent"] {
            // (An index is only usable when the selector names all its fields; an object written as the
            // value would be read as conditions on its members.)
            for selector: JSONValue in [["kind": value, "copy": 0], ["kind": ["$eq": value], "copy": ["$eq": 1]]]
            where value.objectValue == nil || selector["copy"] != 0 {
                let (fast, parsed, used) = try await Self.answers(temp.store, try Self.request(["selector": selector]))
                #expect(used, "\(selector)")
                #expect(fast == parsed, "\(selector): \(String(decoding: fast, as: UTF8.self))")
            }
        }
        // Numbers equal by value are found together (1 and 1.0), and canonically equivalent strings (as
        // CouchDB's ICU collation has them), each written as it was stored.
        let ones = try await temp.store.findAnswer(Self.request(["selector": ["kind": 1, "copy": 0]]))
        #expect(try JSONValue(parsing: ones)["docs"]?.arrayValue?.count == 4)
        let accented = try await temp.store.findAnswer(Self.request(["selector": ["kind": "é", "copy": 0]]))
        let ids = try JSONValue(parsing: accented)["docs"]?.arrayValue?.compactMap { $0["_id"]?.stringValue }
        #expect(ids == ["doc-1-0", "doc-1-2 \"quoted\" ü", "doc-2-0", "doc-2-2 \"quoted\" ü"])
        #expect(String(decoding: accented, as: UTF8.self).contains("\"kind\":\"e\u{301}\""))
        // The empty body and the attached document, through the `_id` index.
        for id in ["bare", "attached", "doc-4-2 \"quoted\" ü", "caf\u{E9}", "cafe\u{301}"] {
            let (fast, parsed, used) = try await Self.answers(temp.store, try Self.request(["selector": ["_id": .string(id)]]))
            #expect(used)
            #expect(fast == parsed, "\(id): \(String(decoding: fast, as: UTF8.self))")
            #expect(try JSONValue(parsing: fast)["docs"]?.arrayValue?.count == 1)
        }
    }

    @Test("Pages, skips and bookmarks of stored-body answers are the parsed route's")
    func pagingMatchesTheParsedRoute() async throws {
        let temp = try await Self.store()
        // The sort makes the index usable for a selector on `kind` alone, in either direction.
        for sort: JSONValue in [[["kind": "asc"], ["copy": "asc"]], [["kind": "desc"], ["copy": "desc"]]] {
            var bookmark: JSONValue = .null
            var pages = 0
            repeat {
                var body: JSONObject = ["selector": ["kind": "walk"], "limit": 1, "skip": pages == 0 ? 1 : 0, "sort": sort]
                if bookmark != .null { body["bookmark"] = bookmark }
                let (fast, parsed, used) = try await Self.answers(temp.store, try Self.request(.object(body)))
                #expect(used)
                #expect(fast == parsed)
                let answer = try JSONValue(parsing: fast)
                if answer["docs"]?.arrayValue?.isEmpty ?? true { break }
                bookmark = answer["bookmark"] ?? .null
                pages += 1
            } while pages < 10
            // "walk" has three documents, the attached one, the two cafés and the three replicated ones; the
            // first page skipped one.
            #expect(pages == 8, "\(sort)")
        }
        for request: JSONValue in [
            ["selector": ["kind": "walk", "copy": 0], "limit": 0],
            // A sort on the index's next field: the scan's order, with `copy` as the bookmark's key.
            ["selector": ["kind": "walk"], "sort": [["copy": "asc"]], "limit": 2],
        ] {
            let (fast, parsed, used) = try await Self.answers(temp.store, try Self.request(request))
            #expect(used)
            #expect(fast == parsed)
        }
    }

    @Test("Requests the index does not decide alone keep the parsed route")
    func otherRequestsAreParsed() async throws {
        let temp = try await Self.store()
        let requests: [JSONValue] = [
            ["selector": ["kind": "walk", "copy": ["$gt": 0]]],
            ["selector": ["kind": "walk", "note": "ünïcode ✓ \u{1F600}"]],
            ["selector": ["kind": "walk"], "fields": ["_id", "copy"]],
            ["selector": ["kind": "walk"], "conflicts": true],
            ["selector": ["kind": "walk"], "execution_stats": true],
            ["selector": ["$or": [["kind": "walk"], ["kind": "run"]]]],
            ["selector": ["kind": ["$in": ["walk"]]]],
            ["selector": ["note": "ünïcode ✓ \u{1F600}"]],
        ]
        for request in requests {
            let (fast, parsed, used) = try await Self.answers(temp.store, try Self.request(request))
            #expect(!used, "\(request)")
            let withoutTime = { (bytes: [UInt8]) -> JSONValue? in
                guard var object = try? JSONValue(parsing: bytes).objectValue else { return nil }
                object["execution_stats"] = nil
                return .object(object)
            }
            #expect(withoutTime(fast) == withoutTime(parsed), "\(request)")
        }
    }

    @Test("Equalities the index decides find, parsed, exactly the documents the matcher accepts from the same scan")
    func decidedEqualitiesAgreeWithTheMatcher() async throws {
        let temp = try await Self.store()
        var selectors: [JSONValue] = Self.values.filter { $0.objectValue == nil }.map { ["kind": $0] }
        selectors += Self.values.map { ["kind": ["$eq": $0], "copy": 1] }
        selectors += ["caf\u{E9}", "cafe\u{301}", "bare", "absent"].map { ["_id": .string($0)] }
        selectors.append(["_id": "cafe\u{301}", "kind": "walk", "copy": 1])
        for selector in selectors {
            // `conflicts` keeps the parsed route; the extra `_id` condition, which no index checks, makes the
            // matcher judge every row the same index scan yields.
            let decided = try await temp.store.find(Self.request(["selector": selector, "conflicts": true, "limit": 100]))
            let judged = try await temp.store.find(
                Self.request(["selector": ["$and": [selector, ["_id": ["$gt": .null]]]], "conflicts": true, "limit": 100]))
            #expect(decided.docs == judged.docs, "\(selector)")
            #expect(decided.docs.allSatisfy { (try? MangoSelector(selector).matches($0)) == true }, "\(selector)")
        }
        let accented = try await temp.store.find(Self.request(["selector": ["kind": "e\u{301}"], "conflicts": true]))
        #expect(accented.docs.count == 6)
        let cafe = try await temp.store.find(Self.request(["selector": ["_id": "cafe\u{301}"], "conflicts": true]))
        #expect(cafe.docs.map { $0["_id"] } == [.string("cafe\u{301}")])
    }
}
