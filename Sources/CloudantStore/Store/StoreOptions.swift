public import CloudantCore
public import Foundation

/// How a store is opened. Every source of time, randomness and identity is injectable so tests are
/// deterministic; the defaults are the live ones.
public struct StoreOptions: Sendable {
    /// The entity kinds the store knows (see `EntityRegistry`).
    public var registry: EntityRegistry
    /// Makes document ids for writes that have none (CouchDB: 32 lowercase hex characters).
    public var makeDocumentID: @Sendable () -> String
    /// The current time, for entity timestamps.
    public var now: @Sendable () -> Date
    /// Open the store read-only (no migrations, no writes).
    public var readOnly: Bool
    /// Which attachments are kept gzip-compressed; CouchDB's defaults unless changed.
    public var attachmentCompression: AttachmentCompression
    /// Whether the typed entity API takes types no plugin registered, as kinds named after the type with
    /// schema version 1 (OTFCloudantStore's rule: `entityType` is the Swift type's name). Off by default, so a
    /// forgotten registration is a typed `CloudantError.Code.unknownEntityType`; the drop-in
    /// `OTFCloudantStore` turns it on.
    public var acceptsUnregisteredEntities: Bool
    /// Encrypt the store at rest with this key: its database, WAL and attachment files are unreadable
    /// without it (AES-256-GCM per page and per attachment chunk; see the README's "Encryption at rest").
    /// A new store is created encrypted; an existing one must have been encrypted with this key
    /// (`CloudantError.Code.wrongEncryptionKey`, `CloudantError.Code.storeNotEncrypted`).
    /// Keep the key in the platform's keychain; `DatabaseKey.init(passphrase:salt:rounds:)`
    /// derives one from a passphrase.
    public var encryptionKey: DatabaseKey? = nil
    /// What runs the functions of design documents (their views' map and reduce functions, and
    /// `validate_doc_update` on every write): `JavaScriptEngine` from the `CloudantJavaScript` product, or
    /// nil, the default, for a store that runs none (a design document's views then answer with
    /// `CloudantError.Code.notImplemented`, and no validation function runs). Built-in reduces and
    /// Swift views (``SwiftView``) need no engine.
    public var designFunctions: (any DesignFunctionRuntime)? = nil
    /// The most leaves (the winner, its conflicts and deleted conflicts) one document's revision tree may have.
    /// A replicated revision (`new_edits=false`) that would add a leaf past it is refused on its own with
    /// `CloudantError.Code.tooManyLeaves` (`413 too_large` over HTTP); the document's other
    /// revisions stay as they were. CouchDB has no such bound; this one keeps every write to a document a
    /// bounded piece of work: each branch keeps at most `revs_limit` revisions, so a tree holds at most this
    /// many times `revs_limit` of them. Interactive writes never add leaves. Default
    /// ``defaultMaxLeavesPerDocument``.
    public var maxLeavesPerDocument: Int = StoreOptions.defaultMaxLeavesPerDocument
    /// Whether the store compresses the document bodies it writes (on by default): each body becomes a zstd
    /// frame, with a dictionary trained from the store's own documents of its entity kind once a kind has
    /// enough of them (a health sample of about 900 bytes of JSON then takes about 150). Reads give back the
    /// same JSON bytes either way; bodies already stored are read whichever way they were written, and
    /// ``DocumentStore/compact()`` rewrites them in the store's current form. Off keeps new bodies as JSON
    /// text, and compaction then rewrites compressed ones as text, for tools that read the SQLite file
    /// themselves.
    public var compressesBodies: Bool = true

    /// The default bound on leaves per document: 1 000, as many as CouchDB's default `revs_limit` keeps
    /// revisions per branch.
    public static let defaultMaxLeavesPerDocument = 1_000

    /// Creates options.
    public init(
        registry: EntityRegistry = EntityRegistry(),
        makeDocumentID: @escaping @Sendable () -> String = StoreOptions.randomHexID,
        now: @escaping @Sendable () -> Date = { Date() },
        readOnly: Bool = false,
        attachmentCompression: AttachmentCompression = .couchDB,
        acceptsUnregisteredEntities: Bool = false
    ) {
        self.registry = registry
        self.makeDocumentID = makeDocumentID
        self.now = now
        self.readOnly = readOnly
        self.attachmentCompression = attachmentCompression
        self.acceptsUnregisteredEntities = acceptsUnregisteredEntities
    }

    /// The kind the typed entity API stores `type` as: its registered kind, or with
    /// ``acceptsUnregisteredEntities`` the kind a `SelfDescribingEntity` declares, else a kind
    /// named after the type.
    /// - Throws: `CloudantError.Code.unknownEntityType` when the type is not registered and
    ///   unregistered types are refused.
    public func entityKind<Entity: CloudantEntity>(for type: Entity.Type) throws -> EntityKind<Entity> {
        if let kind = registry.kind(for: type) { return kind }
        guard acceptsUnregisteredEntities else { return try registry.requireKind(for: type) }
        if let described = (type as? any SelfDescribingEntity.Type)?.defaultEntityKind.typed(as: type) {
            return described
        }
        return EntityKind(type)
    }

    /// A random 32-character lowercase hex id, as CouchDB generates.
    public static let randomHexID: @Sendable () -> String = {
        UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}
