internal import CloudantCore
internal import CloudantStore
internal import Foundation

/// Collects sample documents and writes them with `DocumentStore.insertNew(_:comparingExisting:)`, one
/// transaction per batch, while the importer goes on parsing: at most one batch is being written and one
/// filled, so the parser and SQLite work on two cores and memory stays at two batches.
///
/// Each document's revision is minted and its body serialised as it is added, on the parser's side: timed
/// on a 100k-record import, the writing side was busy 7.4 s of 8.7 s while the parser waited 3.9 s for it.
///
/// Workout routes are the exception: their documents are made on the writing side, just before the batch
/// is inserted. An export lists its workouts after its records, so while the parser reads their route
/// files the writer had nothing to do: profiled on a 1M-record export, the last quarter of the import ran
/// on one core, the parser reading GPX files and serialising and hashing route documents of hundreds of
/// points each. Now the parser reads the files and the writer serialises what the parser read.
///
/// A batch ends at ``batchSize`` documents or at ``batchBytes`` of memory, whichever comes first. A queued
/// document is counted as four times its JSON text: it is held as text and as a JSON tree. Workout routes
/// hold a thousand points each; counted at 200 bytes a point, batches of them made a 1M-record import peak
/// at 175 MB while its records held at 88 MB.
///
/// What a batch finds already stored (see ``ImportKey``): the same content is *unchanged*; other content
/// under the key is *changed* and updated to a new revision, unless that document was written by this very
/// import (``startSequence``), in which case the export holds two records the key cannot tell apart and the
/// second is stored beside the first (``ImportKey/alternate(of:revision:startingAt:)``). A first import
/// finds nothing stored, so none of this costs it anything.
struct BatchWriter {
    let store: DocumentStore
    let batchSize: Int
    /// The store's update sequence when the import started: documents changed after it were written by it.
    let startSequence: Int64
    /// Where each batch's checkpoint goes once the batch is committed, when the import keeps one.
    let checkpoints: ImportCheckpointStore?
    static let batchBytes = 4 << 20
    private var pending: [PendingDocument] = []
    /// Samples the store would refuse (a bad id), reported with the batch they were in.
    private var refused: [(String, CloudantError)] = []
    private var pendingBytes = 0
    /// Device and source trees reused from one body to the next.
    private let shared = SampleDocument.SharedValues()
    private var writing: Task<BatchOutcome, any Error>?
    /// Documents written or found already stored so far.
    private(set) var processed = 0

    init(store: DocumentStore, batchSize: Int, startSequence: Int64, checkpoints: ImportCheckpointStore?) {
        self.store = store
        self.batchSize = batchSize
        self.startSequence = startSequence
        self.checkpoints = checkpoints
        pending.reserveCapacity(batchSize)
    }

    var isFull: Bool { pending.count >= batchSize || pendingBytes >= Self.batchBytes }

    /// Queues a sample as the document the entity API would write, so typed reads and queries see imported
    /// samples like any other.
    mutating func add(_ sample: AnyHealthSample) throws {
        if case .workoutRoute(let route) = sample {
            pending.append(.route(route))
            pendingBytes += 4 * Self.routeBytesPerPoint * max(1, route.locations.count)
            return
        }
        let body = try SampleDocument.body(sample, shared: shared)
        let document: NewDocument
        do { document = try NewDocument(id: sample.id, body: body) } catch let error as CloudantError {
            refused.append((sample.id, error))
            return
        }
        pending.append(.ready(document))
        pendingBytes += 4 * document.byteCount
    }

    /// What a route's point counts as in a batch's memory, as JSON text (about 190 bytes on generated exports).
    static let routeBytesPerPoint = 200

    /// A queued document: made as it was added, or a workout route to be made by the writing side.
    enum PendingDocument: Sendable {
        case ready(NewDocument)
        case route(WorkoutRouteSample)
    }

    /// Waits for the batch being written, then starts writing what is queued and returns at once. With a
    /// checkpoint position (the top-level elements read so far and the last one's line), a checkpoint of the
    /// report as it stands is saved once the batch is committed, with the batch's outcome counted in.
    mutating func flush(
        into report: inout HealthImportReport, checkpointAt position: (elements: Int, line: Int?)? = nil
    ) async throws {
        try await settle(into: &report)
        for (id, error) in refused {
            report.skip(.init(element: "document \(id)", reason: "the store refused it: \(error.code)"))
        }
        refused.removeAll()
        let checkpoint = position.map { ImportCheckpoint(elements: $0.elements, line: $0.line, report: report) }
        guard !pending.isEmpty || checkpoint != nil else { return }
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        pendingBytes = 0
        let (store, startSequence, checkpoints) = (store, startSequence, checkpoints)
        // The outcome comes back here so that the batch is freed on the parser's side: freeing two thousand
        // documents' bodies measured 8% of the import, and the writer is the busier side.
        writing = Task {
            let outcome = try await Self.write(batch, to: store, startSequence: startSequence)
            if var checkpoint, let checkpoints {
                outcome.apply(to: &checkpoint.report)
                try await checkpoints.save(checkpoint)
            }
            return outcome
        }
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
        let outcome = try await task.value
        outcome.apply(to: &report)
        processed += outcome.new + outcome.unchanged + outcome.changed
    }

    /// What writing one batch did.
    struct BatchOutcome: Sendable {
        var new = 0
        var unchanged = 0
        var changed = 0
        var refused: [(id: String, reason: String)] = []
        /// The batch, handed back to be freed on the parser's side.
        var batch: [NewDocument] = []

        func apply(to report: inout HealthImportReport) {
            report.documentsNew += new
            report.documentsUnchanged += unchanged
            report.documentsChanged += changed
            report.documentsWritten += new + changed
            for (id, reason) in refused { report.skip(.init(element: "document \(id)", reason: reason)) }
        }
    }

    /// Makes the batch's route documents, then writes the batch (see ``write(_:to:startSequence:)``).
    private static func write(
        _ pending: [PendingDocument], to store: DocumentStore, startSequence: Int64
    ) async throws -> BatchOutcome {
        var batch: [NewDocument] = []
        batch.reserveCapacity(pending.count)
        var refused: [(id: String, reason: String)] = []
        for entry in pending {
            switch entry {
            case .ready(let document): batch.append(document)
            case .route(let route):
                do { batch.append(try SampleDocument.make(.workoutRoute(route))) } catch let error as CloudantError {
                    refused.append((route.id, "the store refused it: \(error.code)"))
                } catch {
                    refused.append((route.id, "a workout route that could not be encoded: \(error)"))
                }
            }
        }
        var outcome = try await write(batch, to: store, startSequence: startSequence)
        outcome.refused = refused + outcome.refused
        outcome.batch = batch
        return outcome
    }

    /// Inserts the new documents, updates the changed ones and stores a second record with a taken key
    /// beside the first.
    private static func write(_ batch: [NewDocument], to store: DocumentStore, startSequence: Int64) async throws -> BatchOutcome {
        guard !batch.isEmpty else { return BatchOutcome() }
        // Two records of one batch with one key (two apps writing the same steps at the same second): the first
        // is inserted, a later one with other content is stored beside it, one with the same content is the
        // same record listed twice.
        var firstIndex: [String: Int] = [:]
        var firsts: [NewDocument] = []
        var alternates: [NewDocument] = []
        var repeatedRecords = 0
        for document in batch {
            if let index = firstIndex[document.id] {
                if firsts[index].rev == document.rev { repeatedRecords += 1 } else { alternates.append(try Self.alternate(of: document)) }
            } else {
                firstIndex[document.id] = firsts.count
                firsts.append(document)
            }
        }
        let inserted = try await store.insertNew(firsts, comparingExisting: true)
        var outcome = BatchOutcome(
            new: inserted.written, unchanged: inserted.alreadyStored.count - inserted.differing.count + repeatedRecords)
        // Built only when something differs: a first import finds nothing stored.
        let byID = inserted.differing.isEmpty ? [:] : Dictionary(firsts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var updates: [(NewDocument, StoredDocumentState)] = []
        for stored in inserted.differing {
            guard let document = byID[stored.id] else { continue }
            let alternate = try Self.alternate(of: document)
            if stored.sequence > startSequence {
                alternates.append(alternate)  // Written by this import: another record with the same key.
            } else if try await store.documentExists(id: alternate.id) {
                outcome.unchanged += 1  // The second of two records with one key, stored by an earlier import.
            } else {
                updates.append((document, stored))
            }
        }
        if !alternates.isEmpty {
            let second = try await store.insertNew(alternates)
            outcome.new += second.written
            outcome.unchanged += second.alreadyStored.count
        }
        guard !updates.isEmpty else { return outcome }
        let bodies = updates.map { document, stored -> JSONValue in
            var body = document.body
            body["_id"] = .string(document.id)
            body["_rev"] = .string(stored.rev)
            return .object(body)
        }
        for (result, update) in zip(try await store.bulkDocs(bodies), updates) {
            switch result {
            case .ok: outcome.changed += 1
            case .failure(_, let error):
                outcome.refused.append((update.0.id, "a changed record the store refused to update: \(error.code)"))
            }
        }
        return outcome
    }

    /// The document of a second record whose key is taken: its id derived from the key and its content.
    private static func alternate(of document: NewDocument) throws -> NewDocument {
        let id = ImportKey.alternate(of: document.id, revision: document.rev)
        var body = document.body
        if body["id"] != nil { body["id"] = .string(id) }
        if body["uuid"] != nil { body["uuid"] = .string(id) }
        return try NewDocument(id: id, body: body)
    }
}

extension DocumentStore {
    /// Whether a live document has this id.
    fileprivate func documentExists(id: String) async throws -> Bool {
        do {
            _ = try await document(id: id)
            return true
        } catch let error as CloudantError where error.code == .notFound {
            return false
        }
    }
}
