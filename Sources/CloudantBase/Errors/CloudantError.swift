public import Foundation

/// The one error type of the core store, its entity API and its plugin registry.
///
/// Every error carries a ``Code`` to switch on (and through it an ``ErrorCategory``) and a ``Context`` that names what failed (document id,
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
public struct CloudantError: CategorizedError, Sendable, CustomStringConvertible {
    /// What kind of failure this is, and its ``ErrorCategory``.
    ///
    /// Codes are an open set: a module adds its own in an extension, each with the category an edge answers
    /// it with, and no central list changes:
    ///
    /// ```swift
    /// extension CloudantError.Code {
    ///     /// A dose is outside the range the prescription allows.
    ///     public static let doseOutOfRange = Self("doseOutOfRange", category: .invalidInput)
    /// }
    /// ```
    ///
    /// Two codes are equal when their names are: the name is the code's identity.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, as written in logs and in the CLI's `code` member.
        public let rawValue: String
        /// What kind of failure the code is; the HTTP status and the CLI exit status follow from it.
        public let category: ErrorCategory

        /// Creates a code from its stable name and its category.
        public init(_ rawValue: String, category: ErrorCategory) {
            self.rawValue = rawValue
            self.category = category
        }

        /// Creates a code in the ``ErrorCategory/internal`` category.
        @available(*, deprecated, message: "Name the category: Code(_:category:)")
        public init(rawValue: String) {
            self.init(rawValue, category: .internal)
        }

        /// The code's name.
        public var description: String { rawValue }

        /// Whether two codes have the same name.
        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.rawValue == rhs.rawValue }

        /// Hashes the code's name.
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        // Failures of what lies underneath: SQLite, the file system, a peer's protocol.
        /// The store could not be read: SQLite or the file system failed, or a stored row is damaged. The
        /// message says which; nothing was changed.
        public static let storeUnreadable = Code("storeUnreadable", category: .internal)
        /// The store could not be written: SQLite or the file system failed (a full disk, a read-only file, a
        /// folder that cannot be created). The write did not happen; what was stored before is unchanged.
        public static let storeUnwritable = Code("storeUnwritable", category: .internal)
        /// A peer did not answer as its synchronisation protocol requires: no reply, an incomplete one, or an
        /// error of a kind the protocol does not know.
        public static let peerProtocolError = Code("peerProtocolError", category: .unavailable)
        /// A value given to the store is invalid (id, revision, body, option): the code of the
        /// ``ErrorCategory/invalidInput`` category when no more specific code applies.
        public static let invalidInput = Code("invalidInput", category: .invalidInput)
        /// An operation took longer than allowed.
        public static let timedOut = Code("timedOut", category: .timedOut)
        /// The work was cancelled (its task, or a `cancel()` call); nothing it had not finished took effect.
        public static let cancelled = Code("cancelled", category: .unavailable)
        /// A rule the store keeps for itself did not hold (an answer of the wrong size, a state that cannot
        /// be): a bug, whose message says which rule.
        public static let invariantBroken = Code("invariantBroken", category: .internal)

        // Document-level outcomes every CouchDB user knows.
        /// The revision named is not a current leaf, or the document exists (CouchDB 409).
        public static let conflict = Code("conflict", category: .conflict)
        /// The document, revision, attachment or database does not exist (CouchDB 404).
        public static let notFound = Code("notFound", category: .notFound)
        /// A valid request for something this store does not implement (a text index analyzer it lacks).
        public static let notImplemented = Code("notImplemented", category: .unsupported)

        // The plugin registry: mistakes in the app's setup, not in its data.
        /// A type was registered as an entity kind twice.
        public static let duplicateEntityType = Code("duplicateEntityType", category: .internal)
        /// Two entity kinds were registered under one kind name.
        public static let duplicateKindName = Code("duplicateKindName", category: .internal)
        /// A plugin was installed twice.
        public static let duplicatePlugin = Code("duplicatePlugin", category: .internal)
        /// An entity type was used that no plugin registered.
        public static let unknownEntityType = Code("unknownEntityType", category: .invalidInput)
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
        /// The file involved (a database file the encryption layer could not open, say).
        public var file: String?
        /// The URL of the request to a peer that failed, without credentials (which never appear in an error).
        public var url: URL?
        /// The HTTP status a peer answered with, when it answered.
        public var status: Int?
        /// The `error` member of a peer's CouchDB error body (`conflict`, `not_found`, …), when it sent one.
        public var peerError: String?
        /// The `reason` member of a peer's CouchDB error body, when it sent one.
        public var peerReason: String?
        /// The reason a design function gave when it is not text (a validation function's
        /// `throw({forbidden: {field: "name"}})`): CouchDB answers it as given, where ``CloudantError/message``
        /// holds it as JSON text.
        public var reasonValue: JSONValue?

        /// Creates a context.
        public init(
            documentID: String? = nil, revision: String? = nil, kind: String? = nil, database: String? = nil,
            field: String? = nil, itemIndex: Int? = nil, position: Int? = nil, file: String? = nil, url: URL? = nil,
            status: Int? = nil, peerError: String? = nil, peerReason: String? = nil
        ) {
            self.documentID = documentID
            self.revision = revision
            self.kind = kind
            self.database = database
            self.field = field
            self.itemIndex = itemIndex
            self.position = position
            self.file = file
            self.url = url
            self.status = status
            self.peerError = peerError
            self.peerReason = peerReason
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What the failure was about.
    public var context: Context {
        get { contextBox.value }
        set { contextBox = ContextBox(newValue) }
    }
    /// The context, kept out of line: every function that throws `CloudantError` by type reserves room for
    /// one in its frame, and a recursive parser's frames would otherwise carry a dozen optional fields each.
    private var contextBox: ContextBox
    /// What went wrong and what to do about it; never contains document bodies.
    public var message: String
    /// The error that caused this one, if any (a SQLite error, a decoding error).
    public var underlying: (any Error & Sendable)?

    /// What kind of failure this is: its code's category.
    public var category: ErrorCategory { code.category }

    /// Creates an error.
    public init(_ code: Code, _ message: String, context: Context = Context(), underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.contextBox = ContextBox(context)
        self.underlying = underlying
    }

    /// The code, the message and what the context names; never a document body.
    public var description: String {
        var parts = ["\(code): \(message)"]
        if let kind = context.kind { parts.append("kind=\(kind)") }
        if let database = context.database { parts.append("db=\(database)") }
        if let documentID = context.documentID { parts.append("id=\(documentID)") }
        if let revision = context.revision { parts.append("rev=\(revision)") }
        if let field = context.field { parts.append("field=\(field)") }
        if let itemIndex = context.itemIndex { parts.append("item=\(itemIndex)") }
        if let position = context.position { parts.append("position=\(position)") }
        if let file = context.file { parts.append("file=\(file)") }
        if let url = context.url { parts.append("url=\(url.absoluteString)") }
        if let status = context.status { parts.append("status=\(status)") }
        if let peerError = context.peerError { parts.append("peer_error=\(peerError)") }
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

/// An immutable box: replaced, never changed, so an error copied keeps its own context.
private final class ContextBox: Sendable {
    let value: CloudantError.Context

    init(_ value: CloudantError.Context) { self.value = value }
}
