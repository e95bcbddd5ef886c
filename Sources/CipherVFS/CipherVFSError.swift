/// The error CipherVFS throws: a code saying what went wrong, and the database it concerns.
///
/// Descriptions name the file and what to do; they never contain key material or page contents.
public struct CipherVFSError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable {
        /// A key of the wrong length, or a passphrase derivation with too short a salt or too few rounds.
        case invalidKey
        /// The database is encrypted with another key. Nothing was read or changed.
        case wrongKey
        /// The database is a plaintext SQLite file; registering a key for it would make it unreadable.
        case notEncrypted
        /// The file is neither a plaintext SQLite database nor an encrypted one (for example, truncated).
        case notADatabase
        /// The VFS could not be registered with SQLite.
        case installFailed
        /// SQLite returned an error; ``sqliteCode`` holds its extended result code.
        case sqlite
        /// A file system call failed; ``errno`` holds its error number.
        case io
    }

    /// What went wrong.
    public let code: Code
    /// The database file concerned, when there is one.
    public let path: String?
    /// SQLite's extended result code, for ``Code/sqlite``.
    public let sqliteCode: Int32?
    /// The C `errno`, for ``Code/io``.
    public let errno: Int32?
    /// A sentence for people; never contains key bytes or data.
    public let detail: String

    init(_ code: Code, path: String? = nil, sqliteCode: Int32? = nil, errno: Int32? = nil, detail: String) {
        self.code = code
        self.path = path
        self.sqliteCode = sqliteCode
        self.errno = errno
        self.detail = detail
    }

    /// The code, the file, and what to do.
    public var description: String {
        var text = "CipherVFSError.\(code.rawValue)"
        if let path { text += " (\(path))" }
        if let sqliteCode { text += " [SQLite \(sqliteCode)]" }
        if let errno { text += " [errno \(errno)]" }
        return text + ": " + detail
    }
}
