internal import CipherVFS
internal import CloudantCore
public import Foundation
internal import GRDB

#if canImport(Glibc)
    internal import Glibc
#endif

extension DocumentStore {
    /// Makes the store file at `fileURL` readable with `key` from now on (registering it with the VFS), or
    /// refuses to open it: an encrypted file needs its key, a plaintext file is never opened with a key (that
    /// would make it unreadable). Called before any connection to the file opens.
    /// - Throws: `CloudantError` `.wrongEncryptionKey`, `.encryptionKeyRequired`,
    ///   `.storeNotEncrypted`.
    static func prepareEncryption(_ key: DatabaseKey?, at fileURL: URL) throws {
        let path = fileURL.path
        guard let key else {
            if Self.looksEncrypted(path) {
                throw CloudantError(
                    .encryptionKeyRequired, "The store file is encrypted; open it with its key (StoreOptions.encryptionKey, `--key-file`).")
            }
            // A plaintext or new file: a key left registered for this path (a store deleted and created
            // again in this process) must not apply to it.
            CipherVFS.unregister(path: path)
            return
        }
        // CipherVFS's failures are CloudantErrors naming the file and the cause (unreadable, not a database).
        switch try CipherVFS.check(key.symmetricKey, databaseAt: path) {
        case .matches, .empty: break
        case .wrongKey:
            throw CloudantError(.wrongEncryptionKey, "The store is encrypted with another key. Nothing was read or changed.")
        case .notEncrypted:
            throw CloudantError(
                .storeNotEncrypted,
                "The store file is not encrypted; open it without a key, or encrypt it first (DocumentStore.changeEncryptionKey, `cloudant db rekey`).")
        }
        try CipherVFS.register(key.symmetricKey, forDatabaseAt: path)
    }

    /// Whether the file at `path` exists, has content, and is not a plaintext SQLite database.
    static func looksEncrypted(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 16), !header.isEmpty else { return false }
        return header != Data("SQLite format 3\0".utf8)
    }

    /// Re-encrypts a closed store: `from: nil` encrypts a plaintext store, `to: nil` decrypts one, both keys
    /// rotate the key. Every attachment file is rewritten under the new key first (beside the folder), then
    /// the database is rewritten into a copy and renamed over the file (atomic), then the new attachment
    /// folder replaces the old. A crash at any point leaves a store that opens with one of the two keys and
    /// finishes (or discards) the swap on its next ``changeEncryptionKey(ofStoreAt:from:to:)`` or open.
    ///
    /// Close every ``DocumentStore`` on the file first (in every process).
    /// - Throws: `CloudantError` `.wrongEncryptionKey` when `from` does not open it, and
    ///   nothing is changed then.
    public static func changeEncryptionKey(ofStoreAt fileURL: URL, from oldKey: DatabaseKey?, to newKey: DatabaseKey?) throws {
        try prepareEncryption(oldKey, at: fileURL)
        let path = fileURL.path
        let oldFiles = AttachmentFiles(directory: path + "-attachments", cipher: oldKey.map(AttachmentFileCipher.init))
        let newFiles = AttachmentFiles(directory: path + "-attachments.rekey", cipher: newKey.map(AttachmentFileCipher.init))
        try? FileManager.default.removeItem(atPath: newFiles.directory)
        let digests = try Self.attachmentFileDigests(at: fileURL)
        if !digests.isEmpty { try AttachmentFiles.createDirectory(newFiles.directory) }
        for digest in digests {
            guard let reader = oldFiles.open(digest) else { continue }
            let staged = try StagingFile(path: newFiles.directory + "/" + UUID().uuidString, cipher: newFiles.cipher)
            var offset = 0
            while offset < reader.count {
                let piece = try reader.read(at: offset, length: AttachmentFiles.chunkSize)
                try staged.append(piece)
                offset += piece.count
            }
            let finished = try staged.finish()
            guard rename(finished, newFiles.path(for: digest)) == 0 else {
                throw AttachmentFiles.ioError("write a re-encrypted attachment file", errno)
            }
        }
        do {
            switch (oldKey, newKey) {
            case (let old?, let new?): try CipherVFS.rekey(databaseAt: path, from: old.symmetricKey, to: new.symmetricKey)
            case (nil, let new?): try CipherVFS.encrypt(databaseAt: path, with: new.symmetricKey)
            case (let old?, nil): try CipherVFS.decrypt(databaseAt: path, from: old.symmetricKey)
            case (nil, nil): return
            }
        } catch let error as CloudantError {
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: newFiles.directory)
            throw CloudantError(.storeUnwritable, "Could not rewrite the store file under the new key; it is unchanged.", underlying: error)
        }
        // The database is now under the new key: its attachment folder follows.
        let retired = path + "-attachments.retired"
        try? FileManager.default.removeItem(atPath: retired)
        if FileManager.default.fileExists(atPath: oldFiles.directory) {
            try FileManager.default.moveItem(atPath: oldFiles.directory, toPath: retired)
        }
        if FileManager.default.fileExists(atPath: newFiles.directory) {
            try FileManager.default.moveItem(atPath: newFiles.directory, toPath: oldFiles.directory)
        }
        try? FileManager.default.removeItem(atPath: retired)
    }

    /// The digests kept as attachment files, read with a plain connection (the key is registered).
    private static func attachmentFileDigests(at fileURL: URL) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: fileURL.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists(StoreSchema.AttachmentFiles.table) else { return [] }
            return Array(try AttachmentStorage.fileDigests(in: db))
        }
    }
}
