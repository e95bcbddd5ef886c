public import CloudantCore

/// Why a ``CouchServer`` could not start.
///
/// Errors met while answering a request never surface here: they become CouchDB `{"error","reason"}`
/// bodies (see ``CouchErrorBody``).
public struct ServerError: CategorizedError, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The code's name.
        public let rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The server was asked to bind a non-loopback address with no admin configured.
        public static let adminRequired = Code(rawValue: "adminRequired")
        /// The admin was not given as `USER:PASSWORD`.
        public static let invalidAdmin = Code(rawValue: "invalidAdmin")
        /// The data folder could not be prepared (its identity file could not be read or written).
        public static let dataFolderUnusable = Code(rawValue: "dataFolderUnusable")
        /// The server could not bind its address.
        public static let bindFailed = Code(rawValue: "bindFailed")
        /// The TLS certificate or private key could not be read or do not form a usable pair.
        public static let tlsUnusable = Code(rawValue: "tlsUnusable")
    }

    /// The code.
    public var code: Code
    /// What happened and what to do.
    public var message: String
    /// The host the server was configured with, when relevant.
    public var host: String?
    /// The underlying error, if any.
    public var underlying: (any Error & Sendable)?

    /// `ErrorCategory.invalidInput` for a configuration to fix (``Code/adminRequired``,
    /// ``Code/invalidAdmin``, ``Code/tlsUnusable``), `ErrorCategory.unavailable` for an address that cannot be bound
    /// now, `ErrorCategory.internal` otherwise.
    public var category: ErrorCategory {
        switch code {
        case .adminRequired, .invalidAdmin, .tlsUnusable: .invalidInput
        case .bindFailed: .unavailable
        default: .internal
        }
    }

    /// Creates an error.
    public init(_ code: Code, _ message: String, host: String? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.host = host
        self.underlying = underlying
    }

    /// The code, the message and the host.
    public var description: String {
        var text = "ServerError.\(code.rawValue): \(message)"
        if let host { text += " [host: \(host)]" }
        if let underlying { text += " (underlying: \(underlying))" }
        return text
    }
}
