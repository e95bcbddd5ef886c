public import Foundation

/// A revision written to this store that a remote database has not acknowledged yet: an offline write.
///
/// Repositories record one in the same transaction as the local write (so it survives `kill -9` exactly
/// when the write does) and remove it once the remote holds the revision. Replaying sends the revision
/// itself, with its history, so a write the remote already applied (the connection died after the server
/// committed) is recognised there and never applied twice.
public struct PendingWrite: Sendable, Hashable, Identifiable {
    /// What the write did to the document.
    public enum Action: String, Sendable, Hashable, Codable {
        /// Created the document.
        case store
        /// Edited an existing revision.
        case update
        /// Deleted the document (the revision is a tombstone).
        case remove
    }

    /// The queue position: increasing in the order writes were made, never reused.
    public var id: Int64
    /// The remote database the write is for (its URL without credentials).
    public var remote: String
    /// The document written.
    public var documentID: String
    /// The revision the write made, which the remote must end up holding.
    public var rev: String
    /// What the write did.
    public var action: Action
    /// The entity kind of the document, when it is an entity.
    public var kind: String?
    /// When the write was made.
    public var enqueuedAt: Date
    /// How many replays have tried to send it.
    public var attempts: Int
    /// Why the last replay did not send it.
    public var lastError: String?
    /// When the last replay tried.
    public var lastAttemptAt: Date?

    /// Creates a pending write (the store makes these; tests and tools may too).
    public init(
        id: Int64, remote: String, documentID: String, rev: String, action: Action, kind: String? = nil,
        enqueuedAt: Date, attempts: Int = 0, lastError: String? = nil, lastAttemptAt: Date? = nil
    ) {
        self.id = id
        self.remote = remote
        self.documentID = documentID
        self.rev = rev
        self.action = action
        self.kind = kind
        self.enqueuedAt = enqueuedAt
        self.attempts = attempts
        self.lastError = lastError
        self.lastAttemptAt = lastAttemptAt
    }
}
