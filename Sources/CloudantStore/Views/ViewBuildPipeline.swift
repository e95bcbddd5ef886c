internal import CloudantBase
internal import CloudantCore
internal import Foundation
internal import GRDB

/// A first build's documents read on a thread and a connection of their own, while the build's connection
/// maps them and sorts their rows: the pass's two halves run on two cores.
///
/// Measured over a million documents with a Swift map, the build's thread was busy for the whole pass and
/// SQLite's helper threads were nearly idle: reading and decompressing documents took about two fifths of it,
/// mapping and encoding rows a fifth, SQLite's sorter the rest. (Mapping a batch ahead on a thread of its own,
/// with the reading left on the statement's thread, had not helped: there the reading and the sorting shared
/// one thread.) Here the reader thread only reads, and the sorting thread maps each batch as SQLite asks for
/// its rows.
///
/// A few batches of documents go back and forth between the threads; their buffers are reused, so no
/// document's memory is allocated on one thread and freed on the other. The reader's snapshot is the build's:
/// its sequence and purge sequence are read in it, and the sorting connection reads nothing of the store's
/// file meanwhile. Only a mapper that maps in Swift document by document (``ViewDocumentMapper``) is run
/// this way: a design function's engine maps whole batches on the build's thread.
final class ViewBuildPipeline: ViewBuildBatchSupply, @unchecked Sendable {
    // The sorting thread's side: what maps, the batch of rows SQLite reads, and one array each document's JSON
    // is copied into for its map (reused while the map keeps no copy of the document).
    private let mapping: ViewBuildMapping
    private let mapper: any ViewDocumentMapper
    private let progress: ViewIndexProgress
    private let rows = ViewBuildBatch()
    @exclusivity(unchecked) private var json: [UInt8] = []

    /// What the two threads share, read and changed only under `condition`.
    private struct HandOver {
        /// Batches read, for the sorting thread to map.
        var ready: [ViewBuildDocumentBatch] = []
        /// Batches mapped, for the reader to fill again.
        var free: [ViewBuildDocumentBatch]
        var readerStarted = false
        var reading = false
        /// Set when the sorting has ended: the reader stops at its next batch.
        var stopped = false
        var readFailure: (any Error)?
    }
    private let condition = NSCondition()
    private var shared: HandOver
    private let readerEnded = DispatchSemaphore(value: 0)

    /// The sorting thread's failure (SQLite's), set by the cursor.
    var failure: (any Error)?

    /// The reader's snapshot: its sequence and purge sequence, safe to read after ``stop()``.
    private(set) var snapshotSeq: Int64 = 0
    private(set) var purgeSeq: Int64 = 0
    /// Per view, the rows mapped and the sequence of the last document that emitted one.
    var emitted: [Int: (rows: Int, seq: Int64)] { mapping.emitted }

    /// Three batches of documents: one being mapped, one read and waiting, one being read.
    init(mapper: any ViewDocumentMapper, encoder: ViewRowEncoder, progress: ViewIndexProgress, batches: Int = 3) {
        self.mapper = mapper
        mapping = ViewBuildMapping(mapper: mapper, encoder: encoder)
        self.progress = progress
        shared = HandOver(free: (0..<batches).map { _ in ViewBuildDocumentBatch() })
    }

    /// Starts reading the store's documents the way `spec` maps them through `reader`, in one snapshot, on a
    /// thread of its own.
    func start(reader: DatabaseQueue, spec: ViewIndexSpec) {
        condition.withLock {
            shared.reading = true
            shared.readerStarted = true
        }
        let form = mapper.documentForm
        // Named for `top` and debuggers (Linux keeps 15 bytes of a thread's name).
        NamedThread.start("view-build-read") { [self] in
            defer { readerEnded.signal() }
            do {
                try reader.inDatabase { db in try read(db, spec: spec, form: form) }
                finishReading(nil)
            } catch {
                finishReading(error)
            }
        }
    }

    /// Stops the reader (when the sorting ended early) and waits for its thread to end. Called once the
    /// statement that reads the rows is done, whatever its outcome.
    func stop() {
        let started = condition.withLock {
            shared.stopped = true
            condition.broadcast()
            return shared.readerStarted
        }
        guard started else { return }
        readerEnded.wait()
        condition.withLock { shared.readerStarted = false }
    }

    func start() throws {}

    /// Maps the next batch of documents read into the batch of rows SQLite reads (it has read `used`, the same
    /// batch, by now).
    func next(after used: ViewBuildBatch?) throws -> ViewBuildBatch? {
        rows.removeAll()
        while let documents = try takeReady() {
            for entry in documents.entries { mapping.map(documents.document(entry, json: &json), with: mapper, into: rows) }
            let count = documents.entries.count
            giveBack(documents)
            progress.advance(by: count)
            if !rows.rows.isEmpty { return rows }
        }
        return nil
    }

    /// The next batch the reader has read, nil after the last; the reader's failure is thrown here.
    private func takeReady() throws -> ViewBuildDocumentBatch? {
        try condition.withLock {
            while shared.ready.isEmpty, shared.reading, shared.readFailure == nil { condition.wait() }
            if let failure = shared.readFailure { throw failure }
            return shared.ready.isEmpty ? nil : shared.ready.removeFirst()
        }
    }

    private func giveBack(_ batch: ViewBuildDocumentBatch) {
        condition.withLock {
            shared.free.append(batch)
            condition.broadcast()
        }
    }

    // MARK: The reader's thread

    private func read(_ db: Database, spec: ViewIndexSpec, form: ViewSourceDocuments.Form) throws {
        try db.execute(sql: "BEGIN DEFERRED")
        // The reader only reads: ending its transaction either way lets the store's log be checkpointed again.
        defer { try? db.execute(sql: "ROLLBACK") }
        snapshotSeq = try SequenceAllocator.latest(in: db)
        purgeSeq = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db)
        var position: Int64 = 0
        while let batch = takeFree() {
            batch.removeAll()
            try ViewSourceDocuments.forEach(
                after: position, by: .rowID, limit: ViewIndexUpdater.batchSize, includeDesign: spec.includesDesignDocuments,
                localSeq: spec.includesLocalSequence, form: form, reusingBuffer: true, in: db
            ) { batch.append($0) }
            guard let last = batch.entries.last?.rowID else {
                condition.withLock { shared.free.append(batch) }
                return
            }
            position = last
            publish(batch)
        }
    }

    /// A batch to fill, or nil when the sorting has stopped.
    private func takeFree() -> ViewBuildDocumentBatch? {
        condition.withLock {
            while shared.free.isEmpty, !shared.stopped { condition.wait() }
            return shared.stopped ? nil : shared.free.removeLast()
        }
    }

    private func publish(_ batch: ViewBuildDocumentBatch) {
        condition.withLock {
            shared.ready.append(batch)
            condition.broadcast()
        }
    }

    private func finishReading(_ error: (any Error)?) {
        condition.withLock {
            shared.reading = false
            shared.readFailure = error
            condition.broadcast()
        }
    }
}

/// A batch of documents as a ``ViewBuildPipeline``'s reader read them, for the sorting thread to map: their
/// ids and JSON back to back in one array the batch keeps from batch to batch.
final class ViewBuildDocumentBatch {
    /// One document: where its id and JSON are in the batch's bytes (no JSON for a document the index does not
    /// map), and what ``ViewSourceDocument`` says of it besides.
    struct Entry {
        var rowID: Int64
        var seq: Int64
        var id: Range<Int>
        var json: Range<Int>?
        var bodyEnd: Int?
    }

    // One thread at a time uses a batch (the condition of its pipeline hands it over).
    @exclusivity(unchecked) private(set) var entries: [Entry] = []
    @exclusivity(unchecked) private var bytes: [UInt8] = []

    func removeAll() {
        entries.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
    }

    func append(_ document: ViewSourceDocument) {
        let idStart = bytes.count
        bytes.append(contentsOf: document.id.utf8)
        let id = idStart..<bytes.count
        var json: Range<Int>?
        if let body = document.json {
            let start = bytes.count
            bytes.append(contentsOf: body)
            json = start..<bytes.count
        }
        entries.append(Entry(rowID: document.rowID, seq: document.seq, id: id, json: json, bodyEnd: document.bodyEnd))
    }

    /// The document of `entry`, its JSON copied into `json` (whose storage is reused when nothing else holds it).
    func document(_ entry: Entry, json: inout [UInt8]) -> ViewSourceDocument {
        let id = bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[entry.id]), as: UTF8.self) }
        guard let range = entry.json else { return ViewSourceDocument(rowID: entry.rowID, id: id, seq: entry.seq, json: nil) }
        json.removeAll(keepingCapacity: true)
        bytes.withUnsafeBufferPointer { json.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        return ViewSourceDocument(rowID: entry.rowID, id: id, seq: entry.seq, json: json, bodyEnd: entry.bodyEnd)
    }
}
