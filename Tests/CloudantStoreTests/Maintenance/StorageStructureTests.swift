import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// `storageStats()` says which table or index of the file holds how many bytes, from SQLite's own page
/// accounting, and what one document costs on disk.
@Suite("Storage stats per structure")
struct StorageStructureTests {
    @Test func everyPageOfTheFileIsInAStructureOrFree() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        let documents: [JSONValue] = (0..<500).map { ["_id": .string("d\($0)"), "kind": "note", "n": .number(JSONNumber($0))] }
        _ = try await store.bulkDocs(documents)
        let before = Set(try await store.storageStats().structures.map(\.name))
        _ = try await store.createIndex(try IndexDefinition(indexRequest: ["index": ["fields": ["kind", "n"]], "name": "kind-n"]))
        let stats = try await store.storageStats()

        #expect(!stats.structures.isEmpty)
        #expect(stats.structures.reduce(0) { $0 + $1.bytes } + stats.freeBytes == stats.fileSize)
        #expect(stats.structures.map(\.bytes) == stats.structures.map(\.bytes).sorted(by: >), "largest first")
        let documentsTable = try #require(stats.structures.first { $0.name == "documents" })
        #expect(!documentsTable.isIndex && documentsTable.table == "documents")
        #expect(documentsTable.entries >= 500 && documentsTable.payloadBytes >= stats.liveBodyBytes)
        // The JSON index brings structures of its own, holding its 500 entries.
        let added = stats.structures.filter { !before.contains($0.name) }
        #expect(added.contains { $0.entries >= 500 && $0.bytes > 0 }, "\(added)")
        // The index's design document counts as a document.
        #expect(stats.liveDocuments == 501 && stats.bytesPerDocument == stats.fileSize / 501)
    }

    @Test func theJSONNamesEachStructureAndTheBytesPerDocument() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "only", "v": 1])
        let json = try await temp.store.storageStats().json
        #expect(json["bytes_per_document"]?.numberValue?.int64Value == json["file_size"]?.numberValue?.int64Value)
        let structures = try #require(json["structures"]?.arrayValue)
        let documents = try #require(structures.first { $0["name"] == "documents" })
        #expect(documents["kind"] == "table" && documents["table"] == "documents")
        for key in ["bytes", "payload_bytes", "entries"] { #expect(documents[key]?.numberValue?.int64Value != nil, "\(key)") }
    }
}
