package import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CipherVFS {
    /// What ``CipherVFS/check(_:databaseAt:)`` found.
    package enum KeyCheck: Sendable, Hashable {
        /// The database is encrypted with this key.
        case matches
        /// The database is encrypted with another key (or its first page is damaged).
        case wrongKey
        /// The database is a plaintext SQLite file.
        case notEncrypted
        /// No database content yet: any key may be used, and the first write fixes it.
        case empty
    }

    /// Tells whether `key` opens the database at `path`, without SQLite and without changing anything.
    ///
    /// Reads page 1 of the database file; when the file is empty but a `-wal` exists (a database that was
    /// never checkpointed), reads the first WAL frame instead. Call it before ``register(_:forDatabaseAt:)``:
    /// a wrong key must never be used to write, because SQLite would treat unreadable pages as errors and,
    /// for a never-checkpointed log, could start the log afresh.
    ///
    /// - Throws: `CloudantError` `.notADatabase` for a file that is neither
    ///   SQLite nor encrypted, `.fileSystemFailure` when the file cannot be read.
    package static func check(_ key: SymmetricKey, databaseAt path: String) throws -> KeyCheck {
        let page = try readPage(path: path, at: 0)
        if page.isEmpty {
            let frame = try readPage(path: path + "-wal", at: 32 + 24)
            guard frame.count == PageCodec.pageSize, frame.contains(where: { $0 != 0 }) else { return .empty }
            return try classify(frame, key: key, kind: .wal, index: 32 + 24)
        }
        if page.starts(with: Self.sqliteMagic) { return .notEncrypted }
        guard page.count == PageCodec.pageSize else {
            throw cipherFailure(.notADatabase, path: path, detail: "shorter than one page and not SQLite")
        }
        return try classify(page, key: key, kind: .database, index: 1)
    }

    /// Throws unless `key` can open the database at `path` (``KeyCheck/matches`` or ``KeyCheck/empty``).
    ///
    /// - Throws: `CloudantError` `.wrongEncryptionKey` or
    ///   `.storeNotEncrypted`, and the codes of ``check(_:databaseAt:)``.
    package static func verify(_ key: SymmetricKey, databaseAt path: String) throws {
        switch try check(key, databaseAt: path) {
        case .matches, .empty:
            return
        case .wrongKey:
            throw cipherFailure(.wrongEncryptionKey, path: path, detail: "the database is encrypted with another key")
        case .notEncrypted:
            throw cipherFailure(.storeNotEncrypted, path: path,
                                 detail: "the database is not encrypted; migrate it with VACUUM INTO an encrypted path")
        }
    }

    /// "SQLite format 3" and its NUL: the first 16 bytes of every plaintext database.
    static let sqliteMagic: [UInt8] = Array("SQLite format 3".utf8) + [0]

    private static func classify(_ page: [UInt8], key: SymmetricKey, kind: PageCodec.Kind, index: UInt64) throws -> KeyCheck {
        if page.starts(with: sqliteMagic) { return .notEncrypted }
        var copy = page
        let opened = copy.withUnsafeMutableBytes { buffer in
            (try? PageCodec.open(buffer, key: key, kind: kind.rawValue, index: index)) != nil
        }
        return opened ? .matches : .wrongKey
    }

    /// Up to one page from `offset`; empty when the file does not exist or ends before `offset`.
    private static func readPage(path: String, at offset: off_t) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        if fd < 0 {
            if errno == ENOENT { return [] }
            throw cipherFailure(.fileSystemFailure, path: path, errno: errno, detail: "cannot open the file to check its key")
        }
        defer { close(fd) }
        var page = [UInt8](repeating: 0, count: PageCodec.pageSize)
        var filled = 0
        while filled < page.count {
            let n = page.withUnsafeMutableBytes { buffer -> Int in
                let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
                return pread(fd, rest.baseAddress, rest.count, offset + off_t(filled))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw cipherFailure(.fileSystemFailure, path: path, errno: errno, detail: "cannot read the file to check its key")
            }
            if n == 0 { break }
            filled += n
        }
        return Array(page[0..<filled])
    }
}
