internal import CloudantCore
internal import CloudantStore

/// Collects sample documents and writes them with `bulkDocs`, one transaction per batch.
struct BatchWriter {
    let store: DocumentStore
    let batchSize: Int
    private var pending: [JSONValue] = []
    /// Documents written or found already stored so far.
    private(set) var processed = 0

    init(store: DocumentStore, batchSize: Int) {
        self.store = store
        self.batchSize = batchSize
        pending.reserveCapacity(batchSize)
    }

    var isFull: Bool { pending.count >= batchSize }

    /// Queues a sample as the document the entity API would write (`entityType`, `entitySchemaVersion`,
    /// no `revId`), so typed reads and queries see imported samples like any other.
    mutating func add(_ sample: AnyHealthSample) throws {
        guard case .object(var body) = try JSONValue(encoding: sample.sample) else { return }
        body.removeValue(forKey: "revId")
        body["_id"] = .string(sample.id)
        // The entity API's member names (CloudantStore's internal EntityField).
        body["entityType"] = .string(sample.sampleType.kindName)
        body["entitySchemaVersion"] = .number(JSONNumber(1))
        pending.append(.object(body))
    }

    /// Writes what is queued; an id already stored is a conflict that leaves the stored document unchanged.
    mutating func flush(into report: inout HealthImportReport) async throws {
        guard !pending.isEmpty else { return }
        let results = try await store.bulkDocs(pending)
        for result in results {
            switch result {
            case .ok: report.documentsWritten += 1
            case .failure(_, let error) where error.code == .conflict:
                report.documentsAlreadyStored += 1
            case .failure(let id, let error):
                report.skip("document \(id ?? "?")", line: nil, reason: "the store refused it: \(error.code)")
            }
        }
        processed += pending.count
        pending.removeAll(keepingCapacity: true)
    }
}
