internal import ArgumentParser
internal import CloudantOnly
internal import CloudantServer
internal import Foundation

/// `cloudant bulk --db NAME FILE.jsonl`: write a file of documents, one JSON object per line, in batched
/// transactions. After each batch commits it prints that batch's `_bulk_docs` results as one JSON line,
/// so a line printed is a batch on disk.
///
/// It exits 0 only when every document was written; when any was refused (a conflict, a validation
/// error) the others are still written, and it ends with a summary on standard error and the exit status of
/// the first refusal's category (4 for a conflict).
struct BulkCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "bulk",
        abstract: "Write documents from a JSON Lines file (or - for standard input) in batched transactions.",
        discussion: """
            Prints each batch's _bulk_docs results as one JSON line once the batch is committed.

            Example: cloudant bulk --db notes notes.jsonl --batch-size 500
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(name: .customLong("batch-size"), help: "Documents per transaction.") var batchSize = 1000
    @Flag(
        name: .customLong("replicated"),
        help: "Write replicated revisions (new_edits=false): each line needs _rev or _revisions.")
    var replicated = false
    @Option(
        name: .customLong("queue-for"),
        help: "Also queue every revision written for this remote database URL (see cloudant queue), in the same transaction.")
    var queueFor: String?
    @Argument(help: "The JSON Lines file.") var file: String

    func execute() async throws {
        guard batchSize > 0 else {
            throw CloudantError(.invalidInput, "--batch-size must be at least 1.", context: .init(field: "batch-size"))
        }
        if queueFor != nil && replicated {
            throw CloudantError(
                .invalidInput, "--queue-for queues new writes; replicated revisions (--replicated) are not queued.",
                context: .init(field: "queue-for"))
        }
        let remote = try queueFor.map(QueueRemote.identity)
        let handle: FileHandle
        if file == "-" {
            handle = .standardInput
        } else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
                throw CloudantError(
                    .invalidInput, "\(file) is a folder; give a JSON Lines file, or - for standard input.",
                    context: .init(field: "file"))
            }
            guard let opened = FileHandle(forReadingAtPath: file) else {
                throw CloudantError(.notFound, "Cannot read \(file).", context: .init(field: "file"))
            }
            handle = opened
        }
        let store = try global.openOrCreate(database.db)
        var batch: [JSONValue] = []
        var lineNumber = 0
        var reader = LineReader(handle, name: file == "-" ? "standard input" : file)
        var tally = Tally()
        // One batch is written while the next is read and parsed; a batch's results are printed once it is
        // committed, in order, so a line printed is still a batch on disk. A bad line ends the command after
        // the batch being written is committed and printed (its documents are on disk).
        var writing: (results: Task<[BulkDocsResult], any Error>, documents: Int)?
        func finishWriting() async throws {
            guard let pending = writing else { return }
            writing = nil
            let results = try await pending.results.value
            Output.print(.array(results.map(\.json)))
            // With --replicated only refusals come back, so the batch says how many documents there were.
            tally.count(results, of: pending.documents)
        }
        do {
            while let line = try reader.nextLine() {
                lineNumber += 1
                if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
                    continue
                }
                do {
                    batch.append(try JSONValue(parsing: line))
                } catch let error as CloudantError {
                    throw error.adding { $0.itemIndex = lineNumber }
                }
                if batch.count == batchSize {
                    try await finishWriting()
                    writing = (write(batch, to: store, queueFor: remote), batch.count)
                    batch = []
                    batch.reserveCapacity(batchSize)
                }
            }
        } catch {
            try await finishWriting()
            throw error
        }
        try await finishWriting()
        if !batch.isEmpty {
            writing = (write(batch, to: store, queueFor: remote), batch.count)
            try await finishWriting()
        }
        if let refusal = tally.refusal { throw refusal }
    }

    /// Starts writing `batch` in one transaction.
    private func write(_ batch: [JSONValue], to store: DocumentStore, queueFor remote: String?) -> Task<[BulkDocsResult], any Error> {
        let replicated = replicated
        return Task {
            if let remote { try await store.bulkDocs(batch, enqueueingFor: remote) } else {
                try await store.bulkDocs(batch, newEdits: !replicated)
            }
        }
    }

    /// Written and refused documents, for the exit status.
    private struct Tally {
        var documents = 0
        /// Refusals by CouchDB error name, for the summary.
        var refused: [String: Int] = [:]
        /// The first refusal's code: the command ends with its category.
        var firstCode: CloudantError.Code?

        mutating func count(_ results: [BulkDocsResult], of batchSize: Int) {
            documents += batchSize
            for error in results.compactMap(\.error) {
                refused[CouchErrorBody(error).error, default: 0] += 1
                firstCode = firstCode ?? error.code
            }
        }

        /// The error that ends the command when some documents were not written, in the first refusal's code
        /// (and so its category and exit status).
        var refusal: CloudantError? {
            let total = refused.values.reduce(0, +)
            guard total > 0, let firstCode else { return nil }
            let kinds = refused.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            return CloudantError(
                firstCode,
                "\(total) of \(documents) documents were not written (\(kinds)); the others were. Their results "
                    + "above name each refused document and why.")
        }
    }
}
