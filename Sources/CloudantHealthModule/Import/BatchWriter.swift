internal import CloudantCore
internal import CloudantStore

/// Collects sample documents and writes them with ``DocumentStore/insertNew(_:)``, one transaction per
/// batch, while the importer goes on parsing: at most one batch is being written and one filled, so the
/// parser and SQLite work on two cores and memory stays at two batches.
///
/// Each document's revision is minted and its body serialised as it is added, on the parser's side: timed
/// on a 100k-record import, the writing side was busy 7.4 s of 8.7 s while the parser waited 3.9 s for it.
///
/// A batch ends at ``batchSize`` documents or at ``batchBytes`` of memory, whichever comes first. A queued
/// document is counted as four times its JSON text: it is held as text and as a JSON tree. Workout routes
/// hold a thousand points each; counted at 200 bytes a point, batches of them made a 1M-record import peak
/// at 175 MB while its records held at 88 MB.
struct BatchWriter {
    let store: DocumentStore
    let batchSize: Int
    static let batchBytes = 4 << 20
    private var pending: [NewDocument] = []
    /// Samples the store would refuse (a bad id), reported with the batch they were in.
    private var refused: [(String, CloudantError)] = []
    private var pendingBytes = 0
    private var writing: Task<(NewDocumentsOutcome, written: [NewDocument]), any Error>?
    /// Documents written or found already stored so far.
    private(set) var processed = 0

    init(store: DocumentStore, batchSize: Int) {
        self.store = store
        self.batchSize = batchSize
        pending.reserveCapacity(batchSize)
    }

    var isFull: Bool { pending.count >= batchSize || pendingBytes >= Self.batchBytes }

    /// Queues a sample as the document the entity API would write, so typed reads and queries see imported
    /// samples like any other.
    mutating func add(_ sample: AnyHealthSample) throws {
        let body = try SampleDocument.body(sample)
        let document: NewDocument
        do { document = try NewDocument(id: sample.id, body: body) } catch let error as CloudantError {
            refused.append((sample.id, error))
            return
        }
        pending.append(document)
        pendingBytes += 4 * document.byteCount
    }

    /// Waits for the batch being written, then starts writing what is queued and returns at once. Ids
    /// already stored are left unchanged and counted.
    mutating func flush(into report: inout HealthImportReport) async throws {
        try await settle(into: &report)
        for (id, error) in refused {
            report.skip("document \(id)", line: nil, reason: "the store refused it: \(error.code)")
        }
        refused.removeAll()
        guard !pending.isEmpty else { return }
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        pendingBytes = 0
        let store = store
        // The batch comes back with the outcome so that it is freed here, on the parser's side: freeing two
        // thousand documents' bodies measured 8% of the import, and the writer is the busier side.
        writing = Task { (try await store.insertNew(batch), batch) }
    }

    /// Writes what is queued and waits until every batch is written.
    mutating func finish(into report: inout HealthImportReport) async throws {
        try await flush(into: &report)
        try await settle(into: &report)
    }

    /// After a failure elsewhere: lets the batch being written commit (or fail) before the import returns,
    /// so nothing is still writing once the caller sees the error.
    mutating func abandon() async {
        if let task = writing { _ = await task.result }
        writing = nil
    }

    private mutating func settle(into report: inout HealthImportReport) async throws {
        guard let task = writing else { return }
        writing = nil
        let (outcome, _) = try await task.value
        report.documentsWritten += outcome.written
        report.documentsAlreadyStored += outcome.alreadyStored.count
        processed += outcome.written + outcome.alreadyStored.count
    }
}
