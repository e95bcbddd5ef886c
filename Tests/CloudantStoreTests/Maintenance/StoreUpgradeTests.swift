import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// A store file written by each released schema opens, upgrades in place and keeps
/// everything; a file from a newer schema is refused. The fixtures in `Tests/Fixtures/StoreVersions/` are
/// written by ``StoreUpgradeTests/writeFixture(to:)`` with the code of their date
/// (`CLOUDANT_WRITE_STORE_FIXTURE=DIR swift test --filter writesTheFixture` writes today's) and never edited.
@Suite("Store files from earlier versions")
struct StoreUpgradeTests {
    static let fixtures = RepositoryFiles.fixtures("StoreVersions")

    /// Every committed fixture, by the schema date in its name.
    static var fixtureNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).filter { $0.hasSuffix(".sqlite") }.sorted()
    }

    /// A copy of the fixture in a fresh folder (the committed file is never opened for writing).
    static func copy(_ name: String) throws -> (folder: URL, file: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("fixture.sqlite")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: file)
        // Fixtures from 2026-11-26-attachment-files on keep a large attachment in the folder beside them.
        let attachments = fixtures.appendingPathComponent(name + "-attachments")
        if FileManager.default.fileExists(atPath: attachments.path) {
            try FileManager.default.copyItem(at: attachments, to: URL(fileURLWithPath: file.path + "-attachments"))
        }
        return (folder, file)
    }

    @Test func everyCommittedFixtureOpensUpgradesAndKeepsEverything() async throws {
        #expect(!Self.fixtureNames.isEmpty, "no fixture in \(Self.fixtures.path)")
        for name in Self.fixtureNames {
            let (folder, file) = try Self.copy(name)
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = try DocumentStore.open(name: "fixture", fileURL: file)
            #expect(try await store.appliedMigrations().count == StoreTestsSchema.migrationCount, "\(name)")
            try await Self.expectContents(of: store, fixture: name)
            try store.close()
            // Opening again changes nothing.
            let again = try DocumentStore.open(name: "fixture", fileURL: file)
            try await Self.expectContents(of: again, fixture: name)
            // Compaction brings the old file's bodies to today's stored form and every read stays the same.
            _ = try await again.compact(progress: nil)
            try await Self.expectContents(of: again, fixture: name)
            // A tombstone from before tombstone times is dated by the upgrade (just now), so a retention
            // of an hour keeps it; later fixtures dated theirs when written. No retention purges it.
            if name == "2026-11-26-pending-writes.sqlite" {
                #expect(try await again.purgeTombstones(olderThan: .seconds(3_600)).isEmpty, "\(name)")
            }
            #expect(try await again.purgeTombstones(olderThan: .zero) == ["gone"], "\(name)")
            try again.close()
        }
    }

    @Test func aFileFromANewerSchemaIsRefusedAndLeftUntouched() async throws {
        let name = try #require(Self.fixtureNames.last)
        let (folder, file) = try Self.copy(name)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let queue = try DatabaseQueue(path: file.path)
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('2099-01-01-from-the-future')")
            }
            try queue.close()
        }
        let before = try Data(contentsOf: file)
        let error = #expect(throws: CloudantError.self) { try DocumentStore.open(name: "fixture", fileURL: file) }
        #expect(error?.code == .storeFromNewerVersion && error?.category == .unsupported)
        #expect(error?.message.contains("2099-01-01-from-the-future") == true)
        #expect(try Data(contentsOf: file) == before)
    }

    /// Writes today's fixture when `CLOUDANT_WRITE_STORE_FIXTURE` names a folder; otherwise does nothing.
    @Test func writesTheFixture() async throws {
        guard let target = ProcessInfo.processInfo.environment["CLOUDANT_WRITE_STORE_FIXTURE"] else { return }
        try await Self.writeFixture(to: URL(fileURLWithPath: target))
    }

    /// The documents every fixture holds: a history of three revisions, a conflict, a tombstone, an
    /// attachment, a replication checkpoint, a Mango index and a queued offline write.
    static func writeFixture(to folder: URL) async throws {
        let file = folder.appendingPathComponent("fixture-writing.sqlite")
        let store = try DocumentStore.open(name: "fixture", fileURL: file)
        let first = try await store.put(["_id": "history", "kind": "note", "v": 1])
        let second = try await store.put(["_id": "history", "_rev": .string(first.rev), "kind": "note", "v": 2])
        // Long enough to be stored compressed (from 2026-11-30-body-dictionaries).
        try await store.put([
            "_id": "history", "_rev": .string(second.rev), "kind": "note", "v": 3,
            "summary": .string(String(repeating: "the third revision of a note ", count: 8)),
        ])
        _ = try await store.bulkDocs([["_id": "conflicted", "_rev": "1-aaaa", "side": "a"]], newEdits: false)
        _ = try await store.bulkDocs([["_id": "conflicted", "_rev": "1-bbbb", "side": "b"]], newEdits: false)
        let doomed = try await store.put(["_id": "gone", "kind": "note"])
        try await store.delete(id: "gone", rev: doomed.rev)
        try await store.put([
            "_id": "attached", "kind": "photo",
            "_attachments": [
                "a.txt": ["content_type": "text/plain", "data": .string(Base64.encode(Array("hello".utf8)))],
                "scan.bin": ["content_type": "application/octet-stream", "data": .string(Base64.encode(scanBytes))],
            ],
        ])
        try await store.putLocal(id: "_local/checkpoint", body: ["session_id": "s1", "source_last_seq": 42])
        _ = try await store.createIndex(try IndexDefinition(indexRequest: JSONValue(parsing: #"{"index":{"fields":["kind"]},"ddoc":"by-kind","name":"kind"}"#)))
        // From 2026-12-04-index-metadata: an index on a member the body lacks.
        _ = try await store.createIndex(
            try IndexDefinition(indexRequest: JSONValue(parsing: #"{"index":{"fields":["_conflicts"]},"ddoc":"by-conflicts","name":"conflicts"}"#)))
        _ = try await store.bulkDocs(
            [["_id": "queued", "kind": "note", "expiresAt": "2999-01-01T00:00:00Z"]], enqueueingFor: "http://127.0.0.1:5984/notes")
        try await store.setExpiryField("expiresAt")  // from 2026-11-26-document-expiry
        try await store.purge(["never-written": ["1-967a00dff5e02add41819138abb3284d"]])  // from 2026-11-28-purge-infos
        try store.close()
        // One self-contained file: the WAL folded in and rollback journaling, as a copied file must be.
        let queue = try DatabaseQueue(path: file.path)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
        }
        try queue.close()
        let dated = folder.appendingPathComponent("\(StoreTestsSchema.latestMigration).sqlite")
        try? FileManager.default.removeItem(at: dated)
        try FileManager.default.moveItem(at: file, to: dated)
        try? FileManager.default.removeItem(atPath: dated.path + "-attachments")
        try FileManager.default.moveItem(atPath: file.path + "-attachments", toPath: dated.path + "-attachments")
    }

    /// A large attachment (kept as a file beside the store), the same bytes in every run.
    static let scanBytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }

    static func expectContents(of store: DocumentStore, fixture: String) async throws {
        let info = try await store.info()
        // Design documents count, as in CouchDB: fixtures from 2026-12-04-index-metadata on have a second.
        let documentCount = fixture >= "2026-12-04-index-metadata" ? 6 : 5
        #expect(info.documentCount == documentCount && info.deletedDocumentCount == 1, "\(fixture)")
        // A store from before creation times were recorded reports when it was upgraded.
        #expect(Int(info.instanceStartTime) ?? 0 > 0, "\(fixture)")
        let history = try await store.document(id: "history", options: ReadOptions(revs: true))
        #expect(history["v"] == 3 && history["_revisions"]?["ids"]?.arrayValue?.count == 3, "\(fixture)")
        let conflicted = try await store.document(id: "conflicted", options: ReadOptions(conflicts: true))
        #expect(conflicted["_rev"] == "1-bbbb" && conflicted["_conflicts"] == ["1-aaaa"], "\(fixture)")
        await #expect(throws: CloudantError.self) { try await store.document(id: "gone") }
        let attached = try await store.document(id: "attached", options: ReadOptions(attachments: true))
        #expect(attached["_attachments"]?["a.txt"]?["data"] == .string(Base64.encode(Array("hello".utf8))), "\(fixture)")
        // Fixtures before attachment files have no large attachment; later ones keep it in a file.
        let beforeAttachmentFiles = ["2026-11-26-pending-writes.sqlite", "2026-11-26-tombstone-times.sqlite"]
        if !beforeAttachmentFiles.contains(fixture) {
            #expect(try await store.attachment(documentID: "attached", name: "scan.bin").data() == scanBytes, "\(fixture)")
        }
        #expect(try await store.localDocument(id: "_local/checkpoint")["source_last_seq"] == 42, "\(fixture)")
        let indexes = try await store.indexes().map(\.name)
        #expect(indexes.contains("kind"), "\(fixture): \(indexes)")
        if fixture >= "2026-12-04-index-metadata" {
            var request = FindRequest(selector: try MangoSelector(["_conflicts": ["$exists": true]]), conflicts: true)
            request.useIndex = ["by-conflicts", "conflicts"]
            #expect(try await store.find(request).docs.compactMap { $0["_id"]?.stringValue } == ["conflicted"], "\(fixture)")
        }
        let notes = try await store.find(FindRequest(selector: try MangoSelector(["kind": "note"]), limit: 10))
        #expect(Set(notes.docs.compactMap { $0["_id"]?.stringValue }) == ["history", "queued"], "\(fixture)")
        #expect(try await store.pendingWrites().map(\.documentID) == ["queued"], "\(fixture)")
        #expect(try await store.integrityCheck() == ["ok"], "\(fixture)")
        // Fixtures from before expiry existed have no expiry setting; later ones keep theirs.
        let beforeExpiry = ["2026-11-26-pending-writes.sqlite"]
        let expiry = beforeExpiry.contains(fixture) ? nil : "expiresAt"
        #expect(try await store.expiryField() == expiry, "\(fixture)")
        // Fixtures from purge infos on keep the purge of an id never written; earlier ones have none.
        let purgeInfos = fixture >= "2026-11-28-purge-infos" ? ["never-written"] : []
        #expect(try await store.purgedInfos().map(\.id) == purgeInfos, "\(fixture)")
    }
}

/// The schema this code writes, as the tests see it.
enum StoreTestsSchema {
    static let latestMigration = "2026-12-04-index-metadata"
    static let migrationCount = 19
}
