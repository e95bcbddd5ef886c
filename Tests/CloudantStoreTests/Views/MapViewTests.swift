import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Map views of design documents (couch_mrview map_fold)")
struct MapViewTests {
    let ddoc: JSONValue = [
        "_id": "_design/test", "language": "javascript",
        "views": [
            "by_n": ["map": "function(doc) { if (doc.n !== undefined) emit(doc.n, doc.name); }"],
            "multi": ["map": "function(doc) { if (doc.n !== undefined) { emit([doc.n % 2, doc.n], null); emit('all', doc.n); } }"],
            "dups": ["map": "function(doc) { if (doc.tags) doc.tags.forEach(function(t) { emit(doc.kind, t); }); }"],
            "linked": ["map": "function(doc) { if (doc.link) emit(doc._id, {_id: doc.link}); }"],
            "raw": ["map": "function(doc) { if (doc.s) emit(doc.s, null); }", "options": ["collation": "raw"]],
            "icu": ["map": "function(doc) { if (doc.s) emit(doc.s, null); }"],
        ],
    ]

    func filled() async throws -> TemporaryStore {
        let temp = try viewStore()
        try await temp.store.put(try #require(ddoc.objectValue))
        let docs: [JSONValue] = (1...10).map { ["_id": .string("d\($0)"), "n": .number(JSONNumber($0)), "name": .string("n\($0)")] }
        try await temp.store.write(docs)
        return temp
    }

    @Test func rowsComeInKeyOrderWithTotalAndOffset() async throws {
        let temp = try await filled()
        let all = try await temp.store.queryView(designDocument: "test", view: "by_n")
        #expect(all.totalRows == 10 && all.offset == 0)
        #expect(all.keys == (1...10).map { .number(JSONNumber($0)) })
        #expect(all.rows[0] == ViewRow(id: "d1", key: 1, value: "n1"))
        let range = try await temp.store.queryView(
            designDocument: "_design/test", view: "by_n", query: .parameters(("startkey", "3"), ("endkey", "6"), ("skip", "1"), ("limit", "2")))
        #expect(range.keys == [4, 5])
        #expect(range.offset == 3)
        #expect(range.totalRows == 10)
    }

    @Test func descendingSwapsTheBoundsAndInclusiveEndExcludesTheEndKey() async throws {
        let temp = try await filled()
        let down = try await temp.store.queryView(
            designDocument: "test", view: "by_n", query: .parameters(("descending", "true"), ("startkey", "4"), ("endkey", "2")))
        #expect(down.keys == [4, 3, 2])
        #expect(down.offset == 6)
        let exclusive = try await temp.store.queryView(
            designDocument: "test", view: "by_n", query: .parameters(("startkey", "2"), ("endkey", "4"), ("inclusive_end", "false")))
        #expect(exclusive.keys == [2, 3])
    }

    @Test func anEmptyRangeReportsItsPositionAsOffset() async throws {
        let temp = try await filled()
        let past = try await temp.store.queryView(designDocument: "test", view: "by_n", query: .parameters(("startkey", "99")))
        #expect(past.rows.isEmpty && past.offset == 10)
    }

    @Test func keysAreReadKeyByKeyInTheOrderGivenAndReversedWhenDescending() async throws {
        let temp = try await filled()
        let keyed = try await temp.store.queryView(designDocument: "test", view: "by_n", query: .parameters(("keys", "[7,2,42,7]")))
        #expect(keyed.keys == [7, 2, 7])
        let reversed = try await temp.store.queryView(
            designDocument: "test", view: "by_n", query: .parameters(("keys", "[7,2]"), ("descending", "true")))
        #expect(reversed.keys == [2, 7])
    }

    @Test func startAndEndDocumentIDsBoundRowsWithTheSameKey() async throws {
        let temp = try await filled()
        let all = try await temp.store.queryView(
            designDocument: "test", view: "multi", query: .parameters(("key", #""all""#), ("startkey_docid", "d3"), ("endkey_docid", "d5")))
        #expect(all.ids == ["d3", "d4", "d5"])
    }

    @Test func aDocumentsRowsWithOneKeyComeInValueOrderEitherWay() async throws {
        let temp = try viewStore()
        try await temp.store.put(try #require(ddoc.objectValue))
        try await temp.store.write([["_id": "a", "kind": "x", "tags": ["c", "a", "b"]], ["_id": "b", "kind": "x", "tags": ["z"]]])
        let up = try await temp.store.queryView(designDocument: "test", view: "dups")
        #expect(up.values == ["a", "b", "c", "z"])
        let down = try await temp.store.queryView(designDocument: "test", view: "dups", query: .parameters(("descending", "true")))
        #expect(down.values == ["z", "a", "b", "c"])
    }

    @Test func includeDocsBringsTheDocumentOrTheOneTheValueLinks() async throws {
        let temp = try await filled()
        try await temp.store.write([["_id": "link", "link": "d3"], ["_id": "broken", "link": "nope"]])
        let rows = try await temp.store.queryView(designDocument: "test", view: "linked", query: .parameters(("include_docs", "true")))
        #expect(rows.rows.first { $0.id == "link" }?.document?["_id"] == "d3")
        #expect(rows.rows.first { $0.id == "broken" }?.document == .null)
        let own = try await temp.store.queryView(designDocument: "test", view: "by_n", query: .parameters(("key", "1"), ("include_docs", "true")))
        #expect(own.rows[0].document?["name"] == "n1")
        #expect(own.rows[0].document?["_rev"] != nil)
    }

    @Test func rawCollationOrdersByBytesAndTheDefaultByCouchDBsCollation() async throws {
        let temp = try viewStore()
        try await temp.store.put(try #require(ddoc.objectValue))
        try await temp.store.write(["a", "B", "b", "A", "1", "~"].enumerated().map { ["_id": .string("s\($0.offset)"), "s": .string($0.element)] })
        #expect(try await temp.store.queryView(designDocument: "test", view: "raw").keys == ["1", "A", "B", "a", "b", "~"])
        #expect(try await temp.store.queryView(designDocument: "test", view: "icu").keys == ["~", "1", "a", "A", "b", "B"])
    }

    @Test func aMissingViewOrDesignDocumentIsNotFound() async throws {
        let temp = try await filled()
        let missing = await #expect(throws: CloudantError.self) { try await temp.store.queryView(designDocument: "test", view: "nope") }
        #expect(missing?.code == .notFound && missing?.message == "missing_named_view")
        let noDesign = await #expect(throws: CloudantError.self) { try await temp.store.queryView(designDocument: "none", view: "x") }
        #expect(noDesign?.code == .notFound)
    }
}
