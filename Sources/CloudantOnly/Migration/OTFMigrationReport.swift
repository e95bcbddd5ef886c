/// What converting the documents the original OTFCloudantStore wrote did (or, in a dry run, would do).
///
/// The Care and Health flavours each convert their kinds (`CareStore.migrateOTFDocuments`,
/// `DocumentStore.migrateOTFSamples`); `cloudant migrate otf --db NAME` runs both and prints the sum as JSON.
public struct OTFMigrationReport: Sendable, Hashable, Codable {
    /// Whether nothing was written.
    public var dryRun: Bool
    /// Documents converted (or to convert), by the `entityType` the original gave them.
    public var converted: [String: Int]
    /// Of those, documents rewritten as a new revision of themselves (their id was already the version's).
    public var rewrittenInPlace: Int
    /// Of those, documents whose version now lives at its uuid: the new document names the old one in
    /// `migratedFrom`, and the old id keeps its history, ending in a deleted revision that names the new id
    /// in `migratedTo`.
    public var moved: Int
    /// Documents left as they are, with the reason: they do not decode, their version's id is taken by
    /// another document, or the write failed. Nothing of theirs was changed.
    public var skipped: [Skipped]
    /// Ids of converted documents that had conflicting revisions: their winning revision was converted; the
    /// losing ones stay, for the app to resolve.
    public var conflicted: [String]

    /// A document left as it is.
    public struct Skipped: Sendable, Hashable, Codable {
        /// The document's id.
        public var id: String
        /// Its `entityType`.
        public var entityType: String
        /// Why it was left.
        public var reason: String

        /// Creates an entry.
        public init(id: String, entityType: String, reason: String) {
            self.id = id
            self.entityType = entityType
            self.reason = reason
        }
    }

    /// An empty report.
    public init(dryRun: Bool) {
        self.dryRun = dryRun
        converted = [:]
        rewrittenInPlace = 0
        moved = 0
        skipped = []
        conflicted = []
    }

    /// How many documents were converted.
    public var convertedCount: Int { converted.values.reduce(0, +) }

    /// This report and `other` together (the Care and the Health parts of one run).
    public func merged(with other: OTFMigrationReport) -> OTFMigrationReport {
        var sum = self
        sum.converted.merge(other.converted, uniquingKeysWith: +)
        sum.rewrittenInPlace += other.rewrittenInPlace
        sum.moved += other.moved
        sum.skipped += other.skipped
        sum.conflicted += other.conflicted
        return sum
    }
}
