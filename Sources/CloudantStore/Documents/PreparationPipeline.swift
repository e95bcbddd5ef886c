internal import CloudantCore
internal import Dispatch
internal import Foundation
internal import Synchronization

/// Prepares a large batch's writes (``PreparedWrite``: bodies serialised, revisions minted) while the
/// writer is already writing the ones prepared before them.
///
/// Preparing first and writing after left one of two cores idle for the whole transaction: a single caller
/// of `bulkDocs` paid for the minting and the writing one after the other (the bulk-insert benchmark 1.9× raw SQLite, with the
/// writer alone at 1.1×). Here the batch is cut into chunks. Helper tasks claim chunks from the front and
/// prepare them; the writer takes the chunks in order and, when it reaches one nobody has claimed yet,
/// claims and prepares it itself. So the writer never waits for a helper that has not started, and the
/// batch completes even when no cooperative thread is free to run a helper (the writer may be blocking one
/// of them, and another store's writer the other). When it reaches a chunk a helper is still preparing, it
/// prepares the next unclaimed one meanwhile instead of waiting idle: preparing costs about as much as
/// writing, and waiting for the helper was a sixth of the writer's time in the bulk-insert benchmark with one caller.
///
/// A batch given as JSON is also split into metadata and body here, chunk by chunk: split before the
/// transaction, the whole batch was a serial step (about 5 % of the bulk-insert benchmark) during which the writer had nothing to
/// write. A malformed document then surfaces when the writer reaches it, and the transaction it throws from
/// leaves nothing written: as before, one malformed document rejects the batch.
final class PreparationPipeline: Sendable {
    /// The batch: documents already split, or JSON values to split as they are prepared.
    enum Source: Sendable {
        case documents([IncomingDocument])
        case json([JSONValue])

        var count: Int {
            switch self {
            case .documents(let documents): documents.count
            case .json(let values): values.count
            }
        }
    }

    /// One document of the batch, ready for the writer.
    enum Entry: Sendable {
        /// An interactive write, prepared.
        case interactive(PreparedWrite)
        /// A `_local` document (not prepared: it has no revision tree or attachments).
        case local(IncomingDocument)
        /// A replicated revision (`new_edits: false`), merged into its tree by the writer; never pipelined.
        case replicated(IncomingDocument)

        /// The document, split.
        var document: IncomingDocument {
            switch self {
            case .interactive(let ready): ready.incoming
            case .local(let document), .replicated(let document): document
            }
        }
    }

    /// A prepared chunk: each document's entry, or why it is not a document (not an object, a bad id or
    /// member), which refuses the batch.
    fileprivate typealias Chunk = [Result<Entry, any Error>]

    private let source: Source
    private let compression: AttachmentCompression
    private let indexes: IndexSnapshot?
    private let chunkSize: Int
    private let chunkCount: Int
    /// The first chunk nobody has claimed; may run past `chunkCount` (then nothing is left).
    private let nextUnclaimed = Atomic<Int>(0)
    private let abandoned = Atomic<Bool>(false)
    private let preparedWhileWaiting = Atomic<Int>(0)
    private let finished: Mutex<[Chunk?]>
    /// Chunks the writer is done with, freed with the pipeline after the transaction: freeing them in it,
    /// on the writer's thread, contended for the allocator's lock with the helpers allocating the next ones
    /// (measured: the writer waited for that lock 58 ms of a 1.3 s bulk-insert run).
    private let retired = Mutex<[Chunk]>([])
    private let ready: [DispatchSemaphore]

    /// The smallest batch worth a pipeline: below it, preparing on both cores before the transaction is
    /// as quick and holds the writer for less time.
    static let minimumBatch = 128

    /// - Parameter indexes: The catalogue to compute index entries against (see ``IndexSnapshot``).
    init(_ source: Source, compression: AttachmentCompression, indexes: IndexSnapshot? = nil, chunkSize: Int = 32) {
        self.source = source
        self.compression = compression
        self.indexes = indexes
        self.chunkSize = chunkSize
        chunkCount = (source.count + chunkSize - 1) / chunkSize
        finished = Mutex(Array(repeating: nil, count: chunkCount))
        ready = (0..<chunkCount).map { _ in DispatchSemaphore(value: 0) }
    }

    /// Starts `count` helper tasks (by default one per core besides the writer's).
    func startHelpers(count: Int = max(0, PreparedWrite.cores - 1)) {
        for _ in 0..<min(count, chunkCount) {
            Task { [self] in
                while !abandoned.load(ordering: .relaxed), let chunk = claimNext() { prepare(chunk) }
            }
        }
    }

    /// Claims the first chunk nobody has claimed, if one is left.
    func claimNext() -> Int? {
        let chunk = nextUnclaimed.wrappingAdd(1, ordering: .relaxed).oldValue
        return chunk < chunkCount ? chunk : nil
    }

    /// Whether every chunk has been claimed.
    var allClaimed: Bool { nextUnclaimed.load(ordering: .relaxed) >= chunkCount }

    /// Chunks the writer prepared while a helper was preparing the one it needed (for tests).
    var chunksPreparedWhileWaiting: Int { preparedWhileWaiting.load(ordering: .relaxed) }

    /// Tells the helpers to stop claiming chunks (the write failed or ended; what is left is not needed).
    func abandon() { abandoned.store(true, ordering: .relaxed) }

    /// The writer's view: the entries in the documents' order.
    func makeCursor() -> Cursor { Cursor(pipeline: self) }

    /// Reads the entries in order, one chunk at a time.
    struct Cursor {
        fileprivate let pipeline: PreparationPipeline
        private var chunk: Chunk = []
        private var position = 0
        private var chunkIndex = -1

        fileprivate init(pipeline: PreparationPipeline) { self.pipeline = pipeline }

        /// The next document's entry, or nil after the last.
        /// - Throws: What splitting the document threw (the batch is refused).
        mutating func next() throws -> Entry? {
            if position == chunk.count {
                if !chunk.isEmpty { pipeline.retire(chunk) }
                chunkIndex += 1
                guard chunkIndex < pipeline.chunkCount else { return nil }
                chunk = pipeline.take(chunkIndex)
                position = 0
            }
            defer { position += 1 }
            return try chunk[position].get()
        }
    }

    fileprivate func retire(_ chunk: Chunk) {
        retired.withLock { $0.append(chunk) }
    }

    /// Chunk `index`, prepared by this thread if nobody has claimed it, else waited for.
    private func take(_ index: Int) -> Chunk {
        var claimed = nextUnclaimed.load(ordering: .relaxed)
        // Chunks are claimed in order and taken in order, so an unclaimed `index` is the next to claim.
        while claimed <= index {
            let exchange = nextUnclaimed.compareExchange(
                expected: claimed, desired: claimed + 1, ordering: .relaxed)
            if exchange.exchanged {
                if claimed == index { return prepareNow(index) }
                prepare(claimed)  // Not reached in order-taking use; kept so any caller stays correct.
            }
            claimed = exchange.exchanged ? claimed + 1 : exchange.original
        }
        // A helper is preparing `index`: rather than wait idle, prepare the next unclaimed chunk meanwhile (the
        // helper goes on to the one after), so the two cores share the preparing whatever its cost.
        while ready[index].wait(timeout: .now()) == .timedOut {
            guard let next = claimNext() else {
                ready[index].wait()
                break
            }
            prepare(next)
            preparedWhileWaiting.wrappingAdd(1, ordering: .relaxed)
        }
        return finished.withLock { slots in
            defer { slots[index] = nil }
            return slots[index] ?? []
        }
    }

    private func prepareNow(_ index: Int) -> Chunk {
        let range = index * chunkSize..<min((index + 1) * chunkSize, source.count)
        var chunk: Chunk = []
        chunk.reserveCapacity(range.count)
        // The documents of a batch tend to be alike: each body's buffer starts at the size of the one before.
        var capacity = 256
        for position in range {
            let entry = Result {
                let document =
                    switch source {
                    case .documents(let documents): documents[position]
                    case .json(let values): try IncomingDocument(batchMember: values[position], at: position)
                    }
                return Self.entry(document, compression: compression, capacity: capacity, indexes: indexes)
            }
            if case .success(.interactive(let prepared)) = entry { capacity = prepared.body.count + prepared.body.count / 16 + 16 }
            chunk.append(entry)
        }
        return chunk
    }

    /// A document's entry: prepared unless it is a local document.
    static func entry(
        _ document: IncomingDocument, compression: AttachmentCompression, capacity: Int = 256, indexes: IndexSnapshot? = nil
    ) -> Entry {
        if let id = document.id, DocumentID.isLocal(id) { return .local(document) }
        return .interactive(PreparedWrite(document, compression: compression, capacity: capacity, indexes: indexes))
    }

    /// Prepares chunk `index`, which the caller claimed, for the writer to take.
    func prepare(_ index: Int) {
        let writes = prepareNow(index)
        finished.withLock { $0[index] = writes }
        ready[index].signal()
    }
}
