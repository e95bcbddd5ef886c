import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `cloudant compact` rewrites a store's bodies in committed batches: killed with SIGKILL after a batch,
/// it loses nothing, and the next compaction finishes the rewrite.
@Suite("Compaction killed half-way")
struct CompactKillTests {
    @Test func aBodyRewriteKilledAfterItsFirstBatchKeepsEveryDocumentAndTheNextOneFinishes() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("cloudant-data")
        let file = data.appendingPathComponent("old.sqlite")
        // A store whose bodies are JSON text, as a store that did not compress wrote them.
        var plain = StoreOptions()
        plain.compressesBodies = false
        let documents = 6_000
        do {
            let store = try DocumentStore.open(name: "old", fileURL: file, options: plain)
            for batch in stride(from: 0, to: documents, by: 1_000) {
                _ = try await store.bulkDocs((batch..<batch + 1_000).map { index -> JSONValue in
                    [
                        "_id": .string("r\(index)"), "entityType": "reading", "value": .number(JSONNumber(index)),
                        "source": ["name": "Apple Watch", "bundleIdentifier": "com.apple.health"],
                        "note": .string("reading \(index) of a long series of heart rate samples"),
                    ]
                })
            }
            try store.close()
        }
        let before = try await Self.bodies(in: file)
        let textBefore = try Self.textBodies(in: file)
        #expect(before.count == documents && textBefore == documents)

        let compaction = try RunningCommand(["compact", "--db", "old", "--progress"], in: folder)
        // The first batch has committed once its progress line is printed; kill it then.
        try await waitUntil("the first committed batch", checkingEvery: .milliseconds(5)) {
            compaction.stdout.contains("bodies_recompressed") || !compaction.process.isRunning
        }
        compaction.send(SIGKILL)
        let killed = try await compaction.finish()
        let rewrittenBeforeTheKill = documents - (try Self.textBodies(in: file))
        // Every document reads the same, whatever form its body was left in.
        let afterKill = try await CLIRunner.run(["changes", "--db", "old", "--include-docs"], in: folder)
        #expect(afterKill.status == 0, "\(afterKill.stderr)")
        let results = try #require(try jsonObject(afterKill.stdout)["results"] as? [[String: Any]])
        #expect(results.count == documents && results.allSatisfy { $0["doc"] is [String: Any] })
        #expect(try await Self.bodies(in: file) == before)

        let finished = try await CLIRunner.run(["compact", "--db", "old"], in: folder)
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(try Self.textBodies(in: file) == 0, "every body compressed after the second run")
        #expect(try await Self.bodies(in: file) == before)
        #expect(try await CLIRunner.run(["db", "check", "old"], in: folder).status == 0)
        print("compact kill: \(rewrittenBeforeTheKill) of \(documents) bodies rewritten before the kill (status \(killed.status))")
    }

    /// Every document's JSON by id, read through the store (whatever form each body is stored in).
    static func bodies(in file: URL) async throws -> [String: String] {
        var options = StoreOptions()
        options.readOnly = true
        let store = try DocumentStore.open(name: "old", fileURL: file, options: options)
        defer { try? store.close() }
        var allDocs = AllDocsOptions()
        allDocs.includeDocs = true
        var bodies: [String: String] = [:]
        for row in try await store.allDocs(allDocs).rows {
            guard let id = row["id"]?.stringValue, let document = row["doc"] else { continue }
            bodies[id] = document.jsonString()
        }
        return bodies
    }

    /// How many bodies are stored as JSON text.
    static func textBodies(in file: URL) throws -> Int {
        let queue = try DatabaseQueue(path: file.path)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE typeof(body) = 'text'") ?? 0 }
    }
}
