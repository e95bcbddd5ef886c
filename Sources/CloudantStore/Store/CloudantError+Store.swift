public import CloudantCore

extension CloudantError.Code {
    /// The store file was written by a newer version of this package (it has schema migrations this code
    /// does not know). It is refused, never opened: an older version writing it could corrupt what the
    /// newer one relies on.
    public static let storeFromNewerVersion = Self("storeFromNewerVersion", category: .unsupported)
}
