import CSQLite
import CloudantOnly
import Foundation

/// Opening a store that holds `documents` documents and answering the first `get` must not scan them
/// (target < 100 ms).
enum OpenBenchmark {
    static func run(documents: Int, repetitions: Int) async throws {
        let folder = Scratch.folder("open")
        defer { Scratch.remove(folder) }
        let directory = StoreDirectory(path: folder.path)
        print("\nOpen: building a store of \(documents) small documents (untimed)…")
        do {
            let store = try DocumentStore.open(name: "large", in: directory)
            let batchSize = 10_000
            for start in stride(from: 0, to: documents, by: batchSize) {
                let batch: [JSONValue] = (start..<min(start + batchSize, documents)).map { index in
                    ["_id": .string(String(format: "doc-%08d", index)), "v": .number(JSONNumber(index))]
                }
                _ = try await store.bulkDocs(batch)
            }
        }
        let path = try directory.fileURL(forStore: "large").path
        let middle = String(format: "doc-%08d", documents / 2)
        try await BenchmarkGroup(
            name: "Open a store of \(documents) documents and answer the first get",
            unit: "opens", operations: 1,
            baseline: .init(
                name: "raw sqlite3_open_v2 + the info row + one row by id",
                body: {
                    var db: OpaquePointer?
                    sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil)
                    sqlite3_exec(db, "SELECT value FROM store_info WHERE key = 'uuid'", nil, nil, nil)
                    sqlite3_exec(db, "SELECT body FROM documents WHERE id = '\(middle)'", nil, nil, nil)
                    sqlite3_close_v2(db)
                }),
            candidates: [
                .init(
                    name: "DocumentStore.open + document(id:)",
                    body: {
                        let store = try DocumentStore.open(name: "large", in: directory)
                        _ = try await store.document(id: middle)
                        try store.close()
                    })
            ],
            target: nil
        ).run(repetitions: repetitions)
        print("  (target: open and the first get < 100 ms)")
    }
}
