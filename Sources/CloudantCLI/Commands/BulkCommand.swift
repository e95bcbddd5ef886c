internal import ArgumentParser
internal import CloudantOnly
internal import Foundation

/// `cloudant bulk --db NAME FILE.jsonl`: write a file of documents, one JSON object per line, in batched
/// transactions. After each batch commits it prints that batch's `_bulk_docs` results as one JSON line,
/// so a line printed is a batch on disk.
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
    @Argument(help: "The JSON Lines file.") var file: String

    func execute() async throws {
        guard batchSize > 0 else {
            throw CloudantError(.invalidValue, "--batch-size must be at least 1.", context: .init(field: "batch-size"))
        }
        let store = try global.openOrCreate(database.db)
        let handle: FileHandle
        if file == "-" {
            handle = .standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: file) else {
                throw CloudantError(.notFound, "Cannot read \(file).", context: .init(field: "file"))
            }
            handle = opened
        }
        var batch: [JSONValue] = []
        var lineNumber = 0
        for line in LineReader(handle) {
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
                try await write(batch, to: store)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try await write(batch, to: store) }
    }

    private func write(_ batch: [JSONValue], to store: DocumentStore) async throws {
        let results = try await store.bulkDocs(batch, newEdits: !replicated)
        Output.print(.array(results.map(\.json)))
    }
}
