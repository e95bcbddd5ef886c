internal import CSQLite
internal import CloudantCore
internal import Foundation
internal import GRDB

/// Attachment bytes, stored once per digest: small ones in `attachment_blobs` rows, ones of at least
/// ``AttachmentFiles/threshold`` bytes as files beside the store (named in `attachment_files`). Internal
/// to the storage layer; every call runs inside the caller's transaction.
enum AttachmentStorage {
    private typealias Blobs = StoreSchema.AttachmentBlobs
    private typealias Files = StoreSchema.AttachmentFiles

    /// New bytes for a revision: held in memory, or already streamed into a staging file.
    enum Content: Sendable {
        case bytes([UInt8])
        case staged(path: String, length: Int)
    }

    /// Where one stored attachment's bytes are, for reading them in pieces.
    enum Source: Sendable {
        case bytes([UInt8])
        case file(AttachmentFileReader)

        /// The length of the stored bytes.
        var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .file(let reader): reader.count
            }
        }

        /// Stored bytes `[offset, offset + length)`, clipped to the end.
        func read(at offset: Int, length: Int) throws -> [UInt8] {
            switch self {
            case .bytes(let bytes):
                let start = min(offset, bytes.count)
                return Array(bytes[start..<min(bytes.count, start + length)])
            case .file(let reader): return try reader.read(at: offset, length: length)
            }
        }
    }

    /// The attachment folder of the store `db` belongs to; nil for an in-memory store.
    static func files(of db: Database) -> AttachmentFiles? {
        guard let name = sqlite3_db_filename(db.sqliteConnection, "main") else { return nil }
        return AttachmentFiles(databasePath: String(cString: name))
    }

    /// Stores `content` as the bytes of `digest` unless they are stored already.
    static func save(digest: String, content: Content, in db: Database) throws {
        switch content {
        case .bytes(let bytes):
            if bytes.count >= AttachmentFiles.threshold, let files = files(of: db) {
                guard try !exists(digest, in: db) else { return }
                try files.write(bytes, digest: digest)
                try recordFile(digest, length: bytes.count, in: db)
            } else {
                let statement = try db.cachedStatement(
                    sql: "INSERT OR IGNORE INTO \(Blobs.table) (\(Blobs.digest), \(Blobs.data)) VALUES (?, ?)")
                try statement.execute(arguments: [digest, Data(bytes)])
            }
        case .staged(let path, let length):
            guard let files = files(of: db) else {
                throw CloudantError(.invalidInput, "An in-memory store keeps no staged attachment files.")
            }
            guard try !exists(digest, in: db) else {
                unlink(path)
                return
            }
            guard length >= AttachmentFiles.threshold else {
                // Small after all (or after compression): kept in a row like any small attachment.
                guard let bytes = try AttachmentFileReader(path: path, cipher: files.cipher).map({ try $0.readAll() }) else {
                    throw CloudantError(.storeUnwritable, "The staged attachment file is gone; send the attachment again.")
                }
                unlink(path)
                return try save(digest: digest, content: .bytes(bytes), in: db)
            }
            try files.install(path, as: digest)
            try recordFile(digest, length: length, in: db)
        }
    }

    /// Whether bytes are stored under `digest`, as a row or as a file.
    static func exists(_ digest: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM \(Files.table) WHERE \(Files.digest) = ?) "
                + "OR EXISTS (SELECT 1 FROM \(Blobs.table) WHERE \(Blobs.digest) = ?)",
            arguments: [digest, digest]) ?? false
    }

    private static func recordFile(_ digest: String, length: Int, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO \(Files.table) (\(Files.digest), \(Files.length)) VALUES (?, ?)",
            arguments: [digest, length])
    }

    /// The stored bytes of `digest`, read whole; nil when nothing is stored under it.
    static func fetch(digest: String, in db: Database) throws -> [UInt8]? {
        switch try open(digest: digest, in: db) {
        case .bytes(let bytes): bytes
        case .file(let reader): try reader.readAll()
        case nil: nil
        }
    }

    /// Where the stored bytes of `digest` are, without reading a file; nil when nothing is stored under it.
    /// A file is opened here, inside the read's snapshot, so a compaction that removes it afterwards
    /// cannot take the bytes away from the reader.
    static func open(digest: String, in db: Database) throws -> Source? {
        if let data = try Data.fetchOne(
            db, sql: "SELECT \(Blobs.data) FROM \(Blobs.table) WHERE \(Blobs.digest) = ?", arguments: [digest])
        {
            return .bytes(Array(data))
        }
        guard try Int.fetchOne(db, sql: "SELECT \(Files.length) FROM \(Files.table) WHERE \(Files.digest) = ?", arguments: [digest]) != nil
        else { return nil }
        guard let files = files(of: db), let reader = files.open(digest) else {
            throw CloudantError(
                .storeUnreadable,
                "The file of attachment \(digest) is missing from the store's attachment folder; restore the folder from the backup it came with.")
        }
        return .file(reader)
    }

    /// Deletes the bytes no stored revision refers to any more; returns how many digests were dropped.
    /// Files are removed once the transaction commits (a rollback keeps them).
    static func deleteUnreferenced(in db: Database) throws -> Int {
        // Referenced digests are found in the attachment JSON of winners and of kept revisions.
        let documents = StoreSchema.Documents.self, bodies = StoreSchema.RevisionBodies.self
        let referenced = """
            SELECT json_extract(value, '$.digest') FROM \(documents.table), json_each(\(documents.table).\(documents.attachments))
            WHERE \(documents.table).\(documents.attachments) IS NOT NULL
            UNION
            SELECT json_extract(value, '$.digest') FROM \(bodies.table), json_each(\(bodies.table).\(bodies.attachments))
            WHERE \(bodies.table).\(bodies.attachments) IS NOT NULL
            """
        try db.execute(sql: "DELETE FROM \(Blobs.table) WHERE \(Blobs.digest) NOT IN (\(referenced))")
        var dropped = db.changesCount
        let doomed = try String.fetchAll(
            db, sql: "SELECT \(Files.digest) FROM \(Files.table) WHERE \(Files.digest) NOT IN (\(referenced))")
        guard !doomed.isEmpty, let files = files(of: db) else { return dropped }
        for digest in doomed {
            try db.execute(sql: "DELETE FROM \(Files.table) WHERE \(Files.digest) = ?", arguments: [digest])
        }
        dropped += doomed.count
        db.afterNextTransaction(onCommit: { _ in files.remove(doomed) })
        return dropped
    }

    /// Total bytes stored, in rows and in files.
    static func storedBytes(in db: Database) throws -> Int64 {
        try Int64.fetchOne(
            db, sql: "SELECT (SELECT COALESCE(SUM(LENGTH(\(Blobs.data))), 0) FROM \(Blobs.table)) "
                + "+ (SELECT COALESCE(SUM(\(Files.length)), 0) FROM \(Files.table))") ?? 0
    }

    /// Every digest kept as a file (for the open-time sweep).
    static func fileDigests(in db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT \(Files.digest) FROM \(Files.table)"))
    }
}
