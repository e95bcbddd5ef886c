internal import CloudantBase

/// The error the encryption layer throws for `code`: `detail` says what failed, and the SQLite result code or
/// `errno` that caused it is appended for whoever reads the message.
func cipherFailure(
    _ code: CloudantError.Code, path: String? = nil, sqliteCode: Int32? = nil, errno: Int32? = nil, detail: String
) -> CloudantError {
    var message = detail.prefix(1).uppercased() + detail.dropFirst()
    if let sqliteCode { message += " (SQLite result code \(sqliteCode))" }
    if let errno { message += " (errno \(errno))" }
    return CloudantError(code, message + ".", context: .init(file: path))
}
