internal import CloudantBase
internal import CloudantCore

/// One batch of a first build's rows, encoded back to back into a buffer the batch owns: each row's collation
/// key, key JSON and value JSON, and each document's id. ``ViewBuildRows`` hands SQLite every column in place
/// (`SQLITE_STATIC`), and a row costs no allocation of its own: the buffer, the row list and the scratch space
/// the keys are encoded in are kept from batch to batch.
///
/// Measured over a million documents before this, each row was three byte arrays in an array per view in an
/// array per document, and SQLite copied each column it was handed: allocation and reference counting were
/// about a third of the build's first pass.
final class ViewBuildBatch {
    /// Where bytes of the batch are: an offset into its buffer and a length.
    struct Span {
        var start: Int
        var count: Int
    }

    /// One row: its view, its place among the document's rows with the same key, its document (an index into
    /// ``documents``), and its encoded columns.
    struct Row {
        var view: Int
        var duplicate: Int
        var document: Int
        var key: Span
        var keyJSON: Span
        var valueJSON: Span
    }

    /// A document with rows in the batch: its id's bytes and its sequence.
    struct Document {
        var id: Span
        var seq: Int64
    }

    // Not checked for overlapping access at run time (Swift checks a class's stored properties on every access):
    // a batch belongs to one build's cursor, is used on that build's thread only, and none of its methods
    // calls back out while it holds a property, so no two accesses can overlap. The checks were a tenth of
    // the build's first pass.
    @exclusivity(unchecked) private(set) var rows: [Row] = []
    @exclusivity(unchecked) private(set) var documents: [Document] = []
    @exclusivity(unchecked) private var storage: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var used = 0
    /// Scratch space a row's collation key is encoded in before it is copied into the buffer.
    @exclusivity(unchecked) private var keyScratch: [UInt8] = []
    @exclusivity(unchecked) private var writer = JSONWriter(capacity: 64)

    init(capacity: Int = 64 * 1024) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(capacity, 16), alignment: 1)
    }

    deinit { storage.deallocate() }

    /// Empties the batch, keeping its buffers. Pointers handed out before (``bytes(_:)``) are no longer valid.
    func removeAll() {
        rows.removeAll(keepingCapacity: true)
        documents.removeAll(keepingCapacity: true)
        used = 0
    }

    /// The bytes of `span`, valid until the batch is emptied or grows (it grows only while rows are added).
    func bytes(_ span: Span) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[span.start..<(span.start + span.count)])
    }

    /// Starts a document's rows; returns its index for ``appendRow(view:duplicate:document:key:value:partition:encoding:)``.
    func addDocument(id: String, seq: Int64) -> Int {
        var id = id
        let span = id.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        documents.append(Document(id: span, seq: seq))
        return documents.count - 1
    }

    /// Adds a row, encoding its collation key (under `partition` when given) and its key and value as JSON.
    func appendRow(
        view: Int, duplicate: Int, document: Int, key: JSONValue, value: JSONValue, partition: String?, encoding: ViewKeyEncoding
    ) {
        keyScratch.removeAll(keepingCapacity: true)
        if let partition { encoding.append(.string(partition), to: &keyScratch) }
        encoding.append(key, to: &keyScratch)
        let keySpan = keyScratch.withUnsafeBytes { append($0) }
        rows.append(Row(view: view, duplicate: duplicate, document: document, key: keySpan, keyJSON: json(key), valueJSON: json(value)))
    }

    /// Adds a row already encoded (a document's rows that had to be sorted first).
    func appendRow(_ encoded: EncodedViewRow, view: Int, document: Int) {
        let key = encoded.key.withUnsafeBytes { append($0) }
        let keyJSON = encoded.keyJSON.withUnsafeBytes { append($0) }
        let valueJSON = encoded.valueJSON.withUnsafeBytes { append($0) }
        rows.append(Row(view: view, duplicate: encoded.duplicate, document: document, key: key, keyJSON: keyJSON, valueJSON: valueJSON))
    }

    private func json(_ value: JSONValue) -> Span {
        writer.removeAll()
        writer.write(value)
        return writer.output.withUnsafeBytes { append($0) }
    }

    private func append(_ bytes: UnsafeRawBufferPointer) -> Span {
        if used + bytes.count > storage.count {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(storage.count * 2, used + bytes.count), alignment: 1)
            grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[..<used]))
            storage.deallocate()
            storage = grown
        }
        if let base = bytes.baseAddress, bytes.count > 0 {
            (storage.baseAddress! + used).copyMemory(from: base, byteCount: bytes.count)
        }
        defer { used += bytes.count }
        return Span(start: used, count: bytes.count)
    }
}
