/// The one error type of the core store, its entity API and its plugin registry.
///
/// Every error carries a ``Code`` to switch on and a ``Context`` that names what failed (document id,
/// revision, entity kind, database, field, position in the input, underlying error). Its `description`
/// says what went wrong and what to do; it never contains a document body or personal data.
///
/// ```swift
/// do {
///     try await store.update([task])
/// } catch let error as CloudantError where error.code == .conflict {
///     // Someone else changed the task: read it again and reapply the edit.
/// }
/// ```
public struct CloudantError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Codes are an open set so later modules can add their own.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, as written in logs and mapped to CouchDB error names at the HTTP edge.
        public let rawValue: String
        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // The original OTFCloudantError's cases.
        /// Reading from the store failed.
        public static let fetchFailed = Code(rawValue: "fetchFailed")
        /// Adding an entity or document failed.
        public static let addFailed = Code(rawValue: "addFailed")
        /// Updating an entity or document failed.
        public static let updateFailed = Code(rawValue: "updateFailed")
        /// Deleting an entity or document failed.
        public static let deleteFailed = Code(rawValue: "deleteFailed")
        /// Synchronising with a remote peer failed.
        public static let remoteSynchronizationFailed = Code(rawValue: "remoteSynchronizationFailed")
        /// A value given to the store is invalid (id, revision, body, option).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// An operation took longer than allowed.
        public static let timedOut = Code(rawValue: "timedOut")

        // Document-level outcomes every CouchDB user knows.
        /// The revision named is not a current leaf, or the document exists (CouchDB 409).
        public static let conflict = Code(rawValue: "conflict")
        /// The document, revision, attachment or database does not exist (CouchDB 404).
        public static let notFound = Code(rawValue: "notFound")

        // The plugin registry.
        /// A type was registered as an entity kind twice.
        public static let duplicateEntityType = Code(rawValue: "duplicateEntityType")
        /// Two entity kinds were registered under one kind name.
        public static let duplicateKindName = Code(rawValue: "duplicateKindName")
        /// A plugin was installed twice.
        public static let duplicatePlugin = Code(rawValue: "duplicatePlugin")
        /// An entity type was used that no plugin registered.
        public static let unknownEntityType = Code(rawValue: "unknownEntityType")
    }

    /// What the failure was about. Every field is optional; set those that help a reader act.
    public struct Context: Sendable, Hashable {
        /// The document id involved.
        public var documentID: String?
        /// The revision involved.
        public var revision: String?
        /// The entity kind name involved (as stored in documents).
        public var kind: String?
        /// The database (store name) involved.
        public var database: String?
        /// The field, member or key path involved.
        public var field: String?
        /// The index of the failing item in a batch.
        public var itemIndex: Int?
        /// The byte offset in the input where parsing failed.
        public var position: Int?

        /// Creates a context.
        public init(
            documentID: String? = nil, revision: String? = nil, kind: String? = nil, database: String? = nil,
            field: String? = nil, itemIndex: Int? = nil, position: Int? = nil
        ) {
            self.documentID = documentID
            self.revision = revision
            self.kind = kind
            self.database = database
            self.field = field
            self.itemIndex = itemIndex
            self.position = position
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What the failure was about.
    public var context: Context
    /// What went wrong and what to do about it; never contains document bodies.
    public var message: String
    /// The error that caused this one, if any (a SQLite error, a decoding error).
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, context: Context = Context(), underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.context = context
        self.underlying = underlying
    }

    public var description: String {
        var parts = ["\(code): \(message)"]
        if let kind = context.kind { parts.append("kind=\(kind)") }
        if let database = context.database { parts.append("db=\(database)") }
        if let documentID = context.documentID { parts.append("id=\(documentID)") }
        if let revision = context.revision { parts.append("rev=\(revision)") }
        if let field = context.field { parts.append("field=\(field)") }
        if let itemIndex = context.itemIndex { parts.append("item=\(itemIndex)") }
        if let position = context.position { parts.append("position=\(position)") }
        if let underlying { parts.append("underlying=\(String(describing: type(of: underlying))): \(underlying)") }
        return parts.joined(separator: " ")
    }
}

extension CloudantError {
    /// Returns a copy with `update` applied to its context; handy when an outer layer knows more.
    public func adding(_ update: (inout Context) -> Void) -> CloudantError {
        var copy = self
        update(&copy.context)
        return copy
    }
}

/// The name OTFCloudantStore users know. Its cases are now ``CloudantError/Code`` values.
@available(*, deprecated, renamed: "CloudantError")
public typealias OTFCloudantError = CloudantError
