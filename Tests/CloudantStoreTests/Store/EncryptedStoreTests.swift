@testable import CloudantStore
import CloudantCore
import Foundation
import Testing

/// Stores opened with a key: their database, WAL and attachment files are unreadable without it.
@Suite("Encryption at rest")
struct EncryptedStoreTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-encrypted-\(UUID().uuidString)")
    }

    static func options(_ key: DatabaseKey?) -> StoreOptions {
        var options = StoreOptions()
        options.encryptionKey = key
        return options
    }

    /// Every file under `folder` (the store, its WAL and shm, its attachment folder), read raw.
    static func files(under folder: URL) -> [(String, Data)] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var found: [(String, Data)] = []
        while let name = enumerator?.nextObject() as? String {
            let path = folder.path + "/" + name
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: path)
            {
                found.append((name, data))
            }
        }
        return found
    }

    static func filesContaining(_ marker: String, under folder: URL) -> [String] {
        files(under: folder).filter { $0.1.range(of: Data(marker.utf8)) != nil }.map(\.0)
    }

    /// Writes documents and attachments (large and small, compressible and not) that all carry `marker`.
    static func fill(_ store: DocumentStore, marker: String) async throws -> (scan: [UInt8], notes: [UInt8]) {
        for index in 0..<200 {
            try await store.put(["_id": .string("doc-\(index)"), "note": .string("\(marker) number \(index)")])
        }
        var scan = Array("\(marker) header ".utf8)
        scan += Array(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: 300_000) ?? Data(count: 300_000))
        scan += Array(marker.utf8)
        let notes = Array(String(repeating: "\(marker) pulse 61\n", count: 20).utf8)
        let first = try await store.putAttachment(
            "scan.bin", documentID: "visit", contentType: "application/octet-stream", content: [scan].async)
        _ = try await store.putAttachment("notes.bin", documentID: "visit", rev: first.rev, contentType: "application/octet-stream", content: [notes].async)
        return (scan, notes)
    }

    @Test func anEncryptedStoreKeepsNoPlaintextInItsDatabaseWALOrAttachmentFiles() async throws {
        let marker = "PLAINTEXT-MARKER-\(UUID().uuidString)"
        let plainFolder = Self.folder(), secretFolder = Self.folder()
        defer { for folder in [plainFolder, secretFolder] { try? FileManager.default.removeItem(at: folder) } }

        // The search works: a store without a key shows the marker in its files.
        let plain = try DocumentStore.open(name: "notes", in: StoreDirectory(path: plainFolder.path))
        _ = try await Self.fill(plain, marker: marker)
        #expect(!Self.filesContaining(marker, under: plainFolder).isEmpty)
        try plain.close()

        let key = DatabaseKey.random()
        let secret = try DocumentStore.open(name: "notes", in: StoreDirectory(path: secretFolder.path), options: Self.options(key))
        let (scan, notes) = try await Self.fill(secret, marker: marker)
        #expect(FileManager.default.fileExists(atPath: secret.fileURL.path + "-wal"))
        #expect(Self.files(under: secretFolder).count >= 4, "database, WAL, shm and an attachment file")
        #expect(Self.filesContaining(marker, under: secretFolder) == [], "while open, WAL not yet checkpointed")
        #expect(try await secret.attachment(documentID: "visit", name: "scan.bin").data() == scan)
        let range = try await secret.attachmentContent(documentID: "visit", name: "scan.bin").storedBytes(in: 65_530..<131_080)
        var bytes: [UInt8] = []
        for try await piece in range { bytes += piece }
        #expect(bytes == Array(scan[65_530..<131_080]), "a range across chunk boundaries")
        try secret.close()
        #expect(Self.filesContaining(marker, under: secretFolder) == [], "after the WAL is checkpointed")

        let reopened = try DocumentStore.open(name: "notes", in: StoreDirectory(path: secretFolder.path), options: Self.options(key))
        #expect(try await reopened.document(id: "doc-7")["note"]?.stringValue == "\(marker) number 7")
        #expect(try await reopened.attachment(documentID: "visit", name: "scan.bin").data() == scan)
        #expect(try await reopened.attachment(documentID: "visit", name: "notes.bin").data() == notes)
        #expect(try await reopened.integrityCheck() == ["ok"])
        try reopened.close()
    }

    /// A view's first build sorts its rows apart (in memory for an encrypted store, where a temporary file
    /// would have no key) and stores them in the store's file: the rows read back in order, the store's files
    /// hold no emitted key in plaintext, and the reopened store answers the view from the same rows.
    @Test func aViewBuiltInAnEncryptedStoreKeepsItsRowsEncrypted() async throws {
        let marker = "VIEW-KEY-MARKER-\(UUID().uuidString)"
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = DatabaseKey.random()
        let view = SwiftView(name: "notes", version: 1, reduce: .builtIn(.count)) { document, emit in
            guard let number = document["n"]?.numberValue?.int64Value else { return }
            emit(.string(marker + String(format: "-%03d", number)), document["n"] ?? .null)
        }
        let store = try DocumentStore.open(name: "notes", in: StoreDirectory(path: folder.path), options: Self.options(key))
        _ = try await store.bulkDocs((0..<500).map { .object(["_id": .string("doc-\($0)"), "n": .number(JSONNumber($0))]) })
        let rows = try await store.queryView(view, query: .parameters(("reduce", "false")))
        #expect(rows.totalRows == 500 && rows.rows.count == 500)
        #expect(rows.rows.map(\.key) == (0..<500).map { .string(marker + String(format: "-%03d", $0)) })
        try store.close()
        #expect(Self.filesContaining(marker, under: folder) == [])

        let reopened = try DocumentStore.open(name: "notes", in: StoreDirectory(path: folder.path), options: Self.options(key))
        let counted = try await reopened.queryView(view, query: .parameters(("update", "false")))
        #expect(counted.rows.first?.value == 500)
        #expect(try await reopened.integrityCheck() == ["ok"])
        try reopened.close()
    }

    @Test func aWrongOrMissingKeyIsAClearErrorAndAKeyIsNeverAppliedToAPlaintextStore() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = StoreDirectory(path: folder.path)
        let key = DatabaseKey.random()
        let store = try DocumentStore.open(name: "secret", in: directory, options: Self.options(key))
        try await store.put(["_id": "a"])
        try store.close()

        let wrong = #expect(throws: CloudantError.self) {
            try DocumentStore.open(name: "secret", in: directory, options: Self.options(DatabaseKey.random()))
        }
        #expect(wrong?.code == .wrongEncryptionKey)
        let missing = #expect(throws: CloudantError.self) { try DocumentStore.open(name: "secret", in: directory) }
        #expect(missing?.code == .encryptionKeyRequired)

        let plain = try DocumentStore.open(name: "plain", in: directory)
        try await plain.put(["_id": "a"])
        try plain.close()
        let keyed = #expect(throws: CloudantError.self) { try DocumentStore.open(name: "plain", in: directory, options: Self.options(key)) }
        #expect(keyed?.code == .storeNotEncrypted)
        #expect(try await DocumentStore.open(name: "plain", in: directory).document(id: "a")["_id"] == "a", "left as it was")
    }

    @Test func aKeyForAFileThatIsNoDatabaseIsRefusedAsInputNamingTheFile() throws {
        let folder = Self.folder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("notes.sqlite")
        try Data("not a database".utf8).write(to: file)

        let refused = #expect(throws: CloudantError.self) {
            try DocumentStore.open(name: "notes", fileURL: file, options: Self.options(DatabaseKey.random()))
        }
        #expect(refused?.code == .notADatabase)
        #expect(refused?.category == .invalidInput)
        #expect(refused?.context.file == file.path)
        #expect(try Data(contentsOf: file) == Data("not a database".utf8), "left as it was")
    }

    @Test func changingTheKeyRewritesTheDatabaseAndItsAttachmentFiles() async throws {
        let marker = "PLAINTEXT-MARKER-\(UUID().uuidString)"
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = StoreDirectory(path: folder.path)
        let store = try DocumentStore.open(name: "records", in: directory)
        let (scan, _) = try await Self.fill(store, marker: marker)
        let file = store.fileURL
        try store.close()

        // Encrypt a plaintext store, rotate its key, then decrypt it again.
        let first = DatabaseKey.random(), second = DatabaseKey.random()
        try DocumentStore.changeEncryptionKey(ofStoreAt: file, from: nil, to: first)
        #expect(Self.filesContaining(marker, under: folder) == [])
        try DocumentStore.changeEncryptionKey(ofStoreAt: file, from: first, to: second)
        #expect(Self.filesContaining(marker, under: folder) == [])
        let old = #expect(throws: CloudantError.self) { try DocumentStore.open(name: "records", fileURL: file, options: Self.options(first)) }
        #expect(old?.code == .wrongEncryptionKey)
        let rotated = try DocumentStore.open(name: "records", fileURL: file, options: Self.options(second))
        #expect(try await rotated.attachment(documentID: "visit", name: "scan.bin").data() == scan)
        #expect(try await rotated.info().documentCount == 201)
        try rotated.close()

        try DocumentStore.changeEncryptionKey(ofStoreAt: file, from: second, to: nil)
        let decrypted = try DocumentStore.open(name: "records", fileURL: file)
        #expect(try await decrypted.attachment(documentID: "visit", name: "scan.bin").data() == scan)
        #expect(try await decrypted.integrityCheck() == ["ok"])
        try decrypted.close()
    }

    @Test func aKeyChangeACrashInterruptedBetweenItsFolderMovesIsFinishedWhenTheStoreOpens() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = DatabaseKey.random()
        let store = try DocumentStore.open(name: "records", in: StoreDirectory(path: folder.path), options: Self.options(key))
        let (scan, _) = try await Self.fill(store, marker: "m")
        let path = store.fileURL.path
        try store.close()
        // The database has its new key and the re-encrypted files are ready, but the old folder was moved
        // away and the new one not yet into place: what a crash between the two moves leaves.
        try FileManager.default.moveItem(atPath: path + "-attachments", toPath: path + "-attachments.rekey")
        try FileManager.default.createDirectory(atPath: path + "-attachments.retired", withIntermediateDirectories: true)

        let reopened = try DocumentStore.open(name: "records", fileURL: URL(fileURLWithPath: path), options: Self.options(key))
        #expect(try await reopened.attachment(documentID: "visit", name: "scan.bin").data() == scan)
        #expect(!FileManager.default.fileExists(atPath: path + "-attachments.rekey"))
        #expect(!FileManager.default.fileExists(atPath: path + "-attachments.retired"))
        try reopened.close()

        // A folder of a key change that never reached the database is dropped, and the store is untouched.
        try FileManager.default.createDirectory(atPath: path + "-attachments.rekey", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path + "-attachments.rekey/0123456789abcdef0123456789abcdef", contents: Data([1])))
        let again = try DocumentStore.open(name: "records", fileURL: URL(fileURLWithPath: path), options: Self.options(key))
        #expect(!FileManager.default.fileExists(atPath: path + "-attachments.rekey"))
        #expect(try await again.attachment(documentID: "visit", name: "scan.bin").data() == scan)
        try again.close()
    }

    @Test func aTamperedAttachmentFileFailsToReadRatherThanReturningAlteredBytes() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DocumentStore.open(name: "records", in: StoreDirectory(path: folder.path), options: Self.options(DatabaseKey.random()))
        _ = try await Self.fill(store, marker: "m")
        let attachments = store.fileURL.path + "-attachments"
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: attachments).first { $0 != "staging" })
        let handle = try #require(FileHandle(forUpdatingAtPath: attachments + "/" + name))
        try handle.seek(toOffset: 70_000)
        try handle.write(contentsOf: Data([0xFF]))
        try handle.close()
        let error = await #expect(throws: CloudantError.self) { try await store.attachment(documentID: "visit", name: "scan.bin") }
        #expect(error?.code == .storeUnreadable)
    }
}

extension Array where Element == [UInt8] {
    /// The pieces as an async sequence.
    var async: AsyncPieces { AsyncPieces(pieces: self) }
}

/// Pieces of bytes as an `AsyncSequence`.
struct AsyncPieces: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let pieces: [[UInt8]]
    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<[UInt8]>
        mutating func next() async throws -> [UInt8]? { rest.popFirst() }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: pieces[...]) }
}
