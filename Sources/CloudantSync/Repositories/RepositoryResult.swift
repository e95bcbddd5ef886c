public import CloudantCore
public import CloudantStore
public import Foundation

/// The two sources a ``RepositoryProxy`` combines (Evocation's `RepositoryType`).
public enum RepositorySource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The store on this device.
    case local
    /// The CouchDB-compatible database over HTTP.
    case remote
}

/// Where an answer came from: the rule's target, or its fallback after the target failed.
public struct RepositoryOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The source that answered.
    public var source: RepositorySource
    /// Whether it answered as the fallback, after the target failed (or, for `findOne`, did not have it).
    public var isFallback: Bool

    /// Creates an origin.
    public init(source: RepositorySource, isFallback: Bool) {
        self.source = source
        self.isFallback = isFallback
    }

    /// The store answered as the target.
    public static let local = RepositoryOrigin(source: .local, isFallback: false)
    /// The remote answered as the target.
    public static let remote = RepositoryOrigin(source: .remote, isFallback: false)
    /// The remote failed and the store answered.
    public static let localAfterRemoteFailed = RepositoryOrigin(source: .local, isFallback: true)
    /// The store failed (or had nothing) and the remote answered.
    public static let remoteAfterLocalFailed = RepositoryOrigin(source: .remote, isFallback: true)

    /// `local`, `remote`, `local after remote failed` or `remote after local failed`.
    public var description: String {
        let other: RepositorySource = source == .local ? .remote : .local
        return isFallback ? "\(source.rawValue) after \(other.rawValue) failed" : source.rawValue
    }
}

/// What one source did for an answer (Evocation's per-repository `metadata`).
public struct RepositoryMetadata: Sendable {
    /// The revision of each entity the source returned or wrote, by document id.
    public var revisions: [String: String]
    /// When the source answered (or failed).
    public var date: Date
    /// Why the source failed, when it did; the other source's data is then the answer.
    public var failure: CloudantError?

    /// Creates metadata.
    public init(revisions: [String: String] = [:], date: Date, failure: CloudantError? = nil) {
        self.revisions = revisions
        self.date = date
        self.failure = failure
    }
}

/// A repository's answer: the data, where it came from, and what each source did.
///
/// ```swift
/// let result = try await notes.find(.all)
/// if result.origin == .localAfterRemoteFailed { showOfflineBanner(result.metadata[.remote]?.failure) }
/// ```
public struct RepositoryResult<Value: Sendable>: Sendable {
    /// The entities.
    public var value: Value
    /// Which source answered.
    public var origin: RepositoryOrigin
    /// What each source that took part did: the answering one, a target that failed, a source written
    /// to synchronize.
    public var metadata: [RepositorySource: RepositoryMetadata]
    /// Writes of this call that the remote does not hold yet: they are queued on this device and replayed
    /// when the remote can be reached (see ``OfflineWriteQueue``).
    public var pendingWrites: [PendingWrite]

    /// Creates a result.
    public init(
        value: Value, origin: RepositoryOrigin, metadata: [RepositorySource: RepositoryMetadata] = [:],
        pendingWrites: [PendingWrite] = []
    ) {
        self.value = value
        self.origin = origin
        self.metadata = metadata
        self.pendingWrites = pendingWrites
    }

    /// The same answer with its value transformed.
    public func map<Other: Sendable>(_ transform: (Value) -> Other) -> RepositoryResult<Other> {
        RepositoryResult<Other>(value: transform(value), origin: origin, metadata: metadata, pendingWrites: pendingWrites)
    }
}

extension RepositoryResult {
    /// The one element of a one-element answer.
    func single<Element: Sendable>() throws(CloudantError) -> RepositoryResult<Element> where Value == [Element] {
        guard let first = value.first, value.count == 1 else {
            throw CloudantError(.invariantBroken, "Expected one entity in the answer, found \(value.count).")
        }
        return map { _ in first }
    }
}
