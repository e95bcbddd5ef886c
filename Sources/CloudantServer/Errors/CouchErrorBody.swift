public import CloudantCore

/// A CouchDB error response: the HTTP status and the `{"error": …, "reason": …}` body CouchDB writes.
///
/// Errors become HTTP only here, at the edge: the store throws ``CloudantError``s and the endpoint maps
/// them with ``init(_:)``.
///
/// ```swift
/// let body = CouchErrorBody(CloudantError(.conflict, "Document update conflict."))
/// // body.status == 409, body.error == "conflict"
/// ```
public struct CouchErrorBody: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// CouchDB's error name (`conflict`, `not_found`, `bad_request`, …).
    public var error: String
    /// The human-readable reason.
    public var reason: String

    /// Creates an error body.
    public init(status: Int, error: String, reason: String) {
        self.status = status
        self.error = error
        self.reason = reason
    }

    /// Maps a store error to the status and error name CouchDB uses for the same failure (spec D-66).
    public init(_ storeError: CloudantError) {
        let (status, name) = storeError.couchDB
        self.init(status: status, error: name, reason: storeError.couchDBReason)
    }

    /// The body as CouchDB writes it, with `error` before `reason`.
    public var json: JSONValue {
        ["error": .string(error), "reason": .string(reason)]
    }
}
