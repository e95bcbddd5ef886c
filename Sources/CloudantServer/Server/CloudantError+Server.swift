public import CloudantCore

/// Why a `CouchServer` could not start. Errors met while answering a request never surface as these: they
/// become CouchDB `{"error","reason"}` bodies (see `CouchErrorBody`).
extension CloudantError.Code {
    /// The server was asked to bind a non-loopback address with no admin configured.
    public static let adminRequired = Self("adminRequired", category: .invalidInput)
    /// The admin was not given as `USER:PASSWORD`.
    public static let invalidAdmin = Self("invalidAdmin", category: .invalidInput)
    /// The data folder could not be prepared (its identity or configuration file could not be read or
    /// written); `context.file` names the file when one is known.
    public static let dataFolderUnusable = Self("dataFolderUnusable", category: .internal)
    /// The server could not bind its address (it is in use, or not this machine's): it may be free later.
    public static let bindFailed = Self("bindFailed", category: .unavailable)
    /// The TLS certificate or private key could not be read or do not form a usable pair; `context.file` names
    /// the file.
    public static let tlsUnusable = Self("tlsUnusable", category: .invalidInput)

    /// Whether the code is one of those a server that could not start throws.
    public var isServerStartFailure: Bool {
        [.adminRequired, .invalidAdmin, .dataFolderUnusable, .bindFailed, .tlsUnusable].contains(self)
    }
}

/// The server's start-up error type before every failure became a `CloudantError`.
@available(*, deprecated, renamed: "CloudantError")
public typealias ServerError = CloudantError
