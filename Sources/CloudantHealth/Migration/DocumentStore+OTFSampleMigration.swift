public import CloudantOnly
public import CloudantStore
internal import CloudantCore
internal import CloudantHealthModule
internal import Foundation

// Converting the `OTFCloudantSample` documents the original OTFCloudantStore wrote (one kind for every
// family, told apart by `type`) into this module's sample kinds. Why convert rather than read in place: every
// health query, the statistics, the quantity projection and the health sync select by the family's kind
// (`HKQuantitySample`…); the original's documents would be invisible to all of them.
/// Converting the health samples the original OTFCloudantStore wrote.
extension DocumentStore {
    /// Converts every `OTFCloudantSample` document (`entityType` or `entity_type`) into a sample of its
    /// family (quantity, category, correlation with its children), each rewritten in place as its next
    /// revision (a sample's id does not change), one transaction per batch; in a dry run, reports what it
    /// would do and writes nothing.
    ///
    /// Every field is kept. `syncIdentifier`/`syncVersion` become the HealthKit metadata they came from
    /// (`HKMetadataKeySyncIdentifier`, `HKMetadataKeySyncVersion`); what only the original had goes into the
    /// metadata under `OTFCloudantStore.` keys: `sourceVersion` (its `revId`, the HealthKit source's version),
    /// `createdDate` and `updatedDate` (when it stored the sample), `patientID` (when not empty). Running it
    /// again converts only what is new.
    ///
    /// ```swift
    /// let report = try await store.migrateOTFSamples()
    /// report.converted["OTFCloudantSample"]   // how many samples
    /// ```
    /// - Returns: What was converted and what was skipped, with reasons (a sample that does not decode, a
    ///   `type` it does not know); a skipped document is left as it is.
    /// - Throws: `CloudantError` when the store cannot be read or a transaction fails.
    @discardableResult
    public func migrateOTFSamples(dryRun: Bool = false, batchSize: Int = 500) async throws -> OTFMigrationReport {
        let original = "OTFCloudantSample"
        var report = OTFMigrationReport(dryRun: dryRun)
        for key in OTFDocuments.kindKeys {
            let ids = try await OTFDocuments.ids(of: original, key: key, in: self)
            for batch in OTFDocuments.batches(ids, of: batchSize) {
                let page = try await OTFDocuments.documents(ids: batch, in: self)
                var groups: [[JSONObject]] = []
                var converted: [(id: String, conflicted: Bool)] = []
                for document in page {
                    guard let id = document["_id"]?.stringValue, let rev = document["_rev"]?.stringValue else { continue }
                    do {
                        var body = try OTFSampleBody.sample(from: document, id: id).storedBody()
                        body["_id"] = .string(id)
                        body["_rev"] = .string(rev)
                        body["migratedFrom"] = ["_rev": .string(rev), "format": "OTFCloudantStore"]
                        groups.append([body])
                        converted.append((id, OTFDocuments.hasConflicts(document)))
                    } catch {
                        report.skipped.append(.init(id: id, entityType: original, reason: "It does not convert: \(error)"))
                    }
                }
                let failed = dryRun ? [] : try await OTFDocuments.write(groups, in: self)
                for failure in failed {
                    report.skipped.append(.init(id: converted[failure.group].id, entityType: original, reason: "Its write failed: \(failure.error)"))
                }
                let failedGroups = Set(failed.map(\.group))
                for (index, entry) in converted.enumerated() where !failedGroups.contains(index) {
                    report.converted[original, default: 0] += 1
                    report.rewrittenInPlace += 1
                    if entry.conflicted { report.conflicted.append(entry.id) }
                }
            }
        }
        return report
    }
}

/// An `OTFCloudantSample` body as the original wrote it (`OTFCloudantSample`'s `Codable` form).
struct OTFSampleBody: Decodable {
    var id: String?
    var uuid: String?
    var revId: String?
    var patientID: String?
    var startDate: Date
    var endDate: Date
    var syncIdentifier: String?
    var syncVersion: Int?
    var type: String?
    var typeIdentifier: String
    var unit: String?
    var value: Double?
    var samples: [OTFSampleBody]?
    var metadata: [String: JSONValue]?
    var createdDate: Date?
    var updatedDate: Date?

    /// The sample a top-level document holds, under the document's id.
    static func sample(from document: JSONObject, id: String) throws -> AnyHealthSample {
        let decoder = CloudantJSONCoding.makeDecoder()
        let body = try decoder.decode(OTFSampleBody.self, from: JSONValue.object(OTFDocuments.body(of: document)).jsonData())
        return try body.sample(id: id)
    }

    /// Which family the sample is: its `type`, or its identifier's prefix when the type is missing.
    var family: HealthSampleType? {
        switch type {
        case "quantity"?: .quantity
        case "category"?: .category
        case "correlation"?: .correlation
        case nil: HealthSampleType(typeIdentifier: typeIdentifier)
        default: nil
        }
    }

    func sample(id: String) throws -> AnyHealthSample {
        switch family {
        case .quantity?: .quantity(quantity(id: id))
        case .category?: .category(category(id: id))
        case .correlation?:
            .correlation(
                CorrelationSample(
                    id: id, uuid: uuid ?? id, typeIdentifier: typeIdentifier, startDate: startDate, endDate: endDate,
                    metadata: mergedMetadata, quantitySamples: children(.quantity).map { $0.quantity(id: $0.id ?? $0.uuid ?? id) },
                    categorySamples: children(.category).map { $0.category(id: $0.id ?? $0.uuid ?? id) }))
        default:
            throw CloudantError(
                .invalidInput, "The sample's type '\(type ?? "")' is none of quantity, category or correlation.",
                context: .init(documentID: id, field: "type"))
        }
    }

    private func children(_ family: HealthSampleType) -> [OTFSampleBody] {
        (samples ?? []).filter { $0.family == family }
    }

    private func quantity(id: String) -> QuantitySample {
        QuantitySample(
            id: id, uuid: uuid ?? id, typeIdentifier: typeIdentifier, value: value ?? 0, unit: unit ?? "",
            startDate: startDate, endDate: endDate, metadata: mergedMetadata)
    }

    private func category(id: String) -> CategorySample {
        CategorySample(
            id: id, uuid: uuid ?? id, typeIdentifier: typeIdentifier, value: value.map { Int($0) }, startDate: startDate,
            endDate: endDate, metadata: mergedMetadata)
    }

    /// The sample's metadata with the original's own fields added back (see `migrateOTFSamples`).
    private var mergedMetadata: [String: JSONValue] {
        var merged = metadata ?? [:]
        if let syncIdentifier { merged["HKMetadataKeySyncIdentifier"] = .string(syncIdentifier) }
        if let syncVersion { merged["HKMetadataKeySyncVersion"] = .number(JSONNumber(syncVersion)) }
        if let revId { merged["OTFCloudantStore.sourceVersion"] = .string(revId) }
        if let patientID, !patientID.isEmpty { merged["OTFCloudantStore.patientID"] = .string(patientID) }
        if let createdDate, let text = ISO8601Timestamp.string(from: createdDate) {
            merged["OTFCloudantStore.createdDate"] = .string(text)
        }
        if let updatedDate, let text = ISO8601Timestamp.string(from: updatedDate) {
            merged["OTFCloudantStore.updatedDate"] = .string(text)
        }
        return merged
    }
}
