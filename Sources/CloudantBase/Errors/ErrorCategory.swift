/// What kind of failure an error is, whatever module threw it: the one thing an edge needs to know to answer.
///
/// Every failure is a ``CloudantError`` and reports its category through its ``CloudantError/Code``: each module
/// declares the category of the codes it adds (a peer's refusal takes the category of the peer's status).
/// ``CategorizedError`` lets the typed context some errors carry (`QueryErrorKind`) and the compatibility
/// layer's `OTFCloudantError` say theirs too. Only the edges turn a category
/// into something else: the HTTP server into a status and CouchDB's `{"error","reason"}` body, the CLI into
/// an exit status. The status table lives here (``httpStatus``, ``init(httpStatus:)``) because two edges read
/// it, one each way: the server answering, and the replicator and repositories reading a peer's answer.
///
/// The set is small on purpose: a category exists because a client must act differently on it (and so an
/// HTTP client sees a different status), not because a module has a new reason to fail. A new reason is a
/// new ``CloudantError/Code`` in an existing category.
///
/// | category | means | the caller should |
/// |---|---|---|
/// | ``invalidInput`` | a value, document, selector, file or option is malformed or breaks a rule | fix the input |
/// | ``unauthorized`` | no credentials, or wrong ones | log in again |
/// | ``forbidden`` | the credentials are right but may not do this | use an account that may |
/// | ``notFound`` | the database, document, revision, attachment, entity or file does not exist | check the name |
/// | ``conflict`` | the data changed since it was read, or what is added exists | read again and reapply |
/// | ``preconditionFailed`` | the request builds on a state the data is not in (a stub for a missing attachment) | send what the state lacks |
/// | ``tooLarge`` | a body, document or batch is over a configured limit | send less at a time |
/// | ``unsupported`` | a valid request for a feature this store does not have | do without it |
/// | ``timedOut`` | an answer did not come in time | retry, later or with a longer timeout |
/// | ``unavailable`` | a peer or resource cannot be used now (unreachable, overloaded, cancelled) | retry later |
/// | ``internal`` | a storage failure or a bug | report it |
///
/// ```swift
/// do {
///     try await store.put(document)
/// } catch let error as any CategorizedError where error.category == .conflict {
///     // Read the document again and reapply the edit.
/// }
/// ```
public enum ErrorCategory: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A value, document, selector, file or option is malformed or breaks a rule; the same request will fail
    /// again until it is fixed.
    case invalidInput
    /// The request has no credentials, or credentials that were refused.
    case unauthorized
    /// The credentials were accepted, but they may not do this (a reader writing, a member changing design
    /// documents).
    case forbidden
    /// The database, document, revision, attachment, entity, index or file named does not exist.
    case notFound
    /// The data changed since the caller read it (a stale revision), or what is being added already exists.
    case conflict
    /// The request builds on a state the data is not in, such as an attachment stub naming an attachment the
    /// parent revision lacks.
    case preconditionFailed
    /// A request body, document, attachment or batch is larger than a configured limit.
    case tooLarge
    /// A valid request for a feature this store does not implement.
    case unsupported
    /// An answer did not come within the time allowed.
    case timedOut
    /// A peer, service or resource cannot be used now: unreachable, overloaded, or the work was cancelled.
    /// Trying again later may succeed.
    case unavailable
    /// A storage failure, a broken invariant or a bug: nothing the caller did or can fix.
    case `internal`

    /// The category's name, as written in logs.
    public var description: String { rawValue }

    /// The category of any error: its own when it is a ``CategorizedError``, ``internal`` otherwise.
    ///
    /// ```swift
    /// let category = ErrorCategory(of: error)   // .conflict for a stale revision, .internal for a bug
    /// ```
    public init(of error: any Error) {
        self = (error as? any CategorizedError)?.category ?? .internal
    }
}

/// An error that says which ``ErrorCategory`` it belongs to: the one protocol through which every module's
/// errors reach the edges (the HTTP server, the CLI).
///
/// ```swift
/// struct ImportFailure: CategorizedError {
///     var category: ErrorCategory { .invalidInput }
/// }
/// ```
public protocol CategorizedError: Error {
    /// What kind of failure this is.
    var category: ErrorCategory { get }
}
