public import CloudantCore
public import Foundation

/// How a store is opened. Every source of time, randomness and identity is injectable so tests are
/// deterministic; the defaults are the live ones.
public struct StoreOptions: Sendable {
    /// The entity kinds the store knows (see ``EntityRegistry``).
    public var registry: EntityRegistry
    /// Makes document ids for writes that have none (CouchDB: 32 lowercase hex characters).
    public var makeDocumentID: @Sendable () -> String
    /// The current time, for entity timestamps.
    public var now: @Sendable () -> Date
    /// Open the store read-only (no migrations, no writes).
    public var readOnly: Bool
    /// Which attachments are kept gzip-compressed; CouchDB's defaults unless changed.
    public var attachmentCompression: AttachmentCompression

    /// Creates options.
    public init(
        registry: EntityRegistry = EntityRegistry(),
        makeDocumentID: @escaping @Sendable () -> String = StoreOptions.randomHexID,
        now: @escaping @Sendable () -> Date = { Date() },
        readOnly: Bool = false,
        attachmentCompression: AttachmentCompression = .couchDB
    ) {
        self.registry = registry
        self.makeDocumentID = makeDocumentID
        self.now = now
        self.readOnly = readOnly
        self.attachmentCompression = attachmentCompression
    }

    /// A random 32-character lowercase hex id, as CouchDB generates.
    public static let randomHexID: @Sendable () -> String = {
        UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}
