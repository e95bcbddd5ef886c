import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("_all_docs")
struct AllDocsTests {
    func populated() async throws -> TemporaryStore {
        let temp = try TemporaryStore()
        for id in ["b", "a", "C", "d", "é"] { try await temp.store.put(["_id": .string(id), "v": 1]) }
        let gone = try await temp.store.put(["_id": "gone"])
        try await temp.store.delete(id: "gone", rev: gone.rev)
        return temp
    }

    @Test func rowsAreInRawByteOrderWithoutDeletedDocuments() async throws {
        let temp = try await populated()
        let result = try await temp.store.allDocs()
        #expect(result.rows.map { $0["id"] } == ["C", "a", "b", "d", "é"])
        #expect(result.totalRows == 5)
    }

    @Test func keyRangesDescendingLimitAndSkipBehaveLikeCouchDB() async throws {
        let temp = try await populated()
        let range = try await temp.store.allDocs(AllDocsOptions(startKey: "a", endKey: "d", inclusiveEnd: false))
        #expect(range.rows.map { $0["id"] } == ["a", "b"])
        let descending = try await temp.store.allDocs(AllDocsOptions(startKey: "d", endKey: "a", descending: true, limit: 2))
        #expect(descending.rows.map { $0["id"] } == ["d", "b"])
        let skipped = try await temp.store.allDocs(AllDocsOptions(limit: 1, skip: 2))
        #expect(skipped.rows.map { $0["id"] } == ["b"])
        #expect(skipped.offset == 2)
    }

    @Test func keysKeepTheirOrderAndReportDeletedAndUnknownIds() async throws {
        let temp = try await populated()
        let result = try await temp.store.allDocs(AllDocsOptions(includeDocs: true, keys: ["d", "gone", "nope"]))
        #expect(result.rows[0]["doc"]?["v"] == 1)
        #expect(result.rows[1]["value"]?["deleted"] == true)
        #expect(result.rows[1]["doc"] == .null)
        #expect(result.rows[2] == ["key": "nope", "error": "not_found"])
    }
}
