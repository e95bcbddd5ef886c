internal import CloudantBase
internal import CloudantCore

/// Turns what a document emitted into the rows its index stores: each key's collation key (under its
/// partition for a partitioned index), and the places of rows a document emitted with the same key.
///
/// CouchDB stores a document's rows with one key as one b-tree entry holding all their values, the
/// document's key-value pairs sorted in Erlang's term order first (`couch_mrview_updater:insert_results`), and
/// lists them in that order whichever way a query reads. The duplicate number here is that place.
struct ViewRowEncoder: Sendable {
    /// The key encoding of each view of the index.
    var encodings: [ViewKeyEncoding]
    /// Whether rows are kept under their document's partition.
    var partitioned: Bool

    func encode(documentID: String, seq: Int64, emitted: [[EmittedRow]]) -> MappedDocument {
        let partition = partitioned ? DocumentPartition.of(documentID) : nil
        var rows: [[EncodedViewRow]] = []
        rows.reserveCapacity(emitted.count)
        for (view, viewRows) in emitted.enumerated() {
            let encoding = view < encodings.count ? encodings[view] : .collation
            rows.append(Self.encode(viewRows, encoding: encoding, partition: partition))
        }
        return MappedDocument(id: documentID, seq: seq, rows: rows)
    }

    /// Encodes one document's rows of one view into a first build's batch (``ViewBuildBatch``): a single row
    /// straight into the batch's buffer, several sorted and numbered first as ``encode(_:encoding:partition:)`` does.
    func encode(_ emitted: [EmittedRow], view: Int, document: Int, documentID: String, into batch: ViewBuildBatch) {
        guard !emitted.isEmpty else { return }
        let encoding = view < encodings.count ? encodings[view] : .collation
        let partition = partitioned ? DocumentPartition.of(documentID) : nil
        guard emitted.count > 1 else {
            let row = emitted[0]
            return batch.appendRow(
                view: view, duplicate: 0, document: document, key: row.key, value: row.value, partition: partition, encoding: encoding)
        }
        for row in Self.encode(emitted, encoding: encoding, partition: partition) { batch.appendRow(row, view: view, document: document) }
    }

    static func encode(_ emitted: [EmittedRow], encoding: ViewKeyEncoding, partition: String?) -> [EncodedViewRow] {
        guard !emitted.isEmpty else { return [] }
        func collationKey(_ row: EmittedRow) -> [UInt8] {
            var key: [UInt8] = []
            if let partition { encoding.append(.string(partition), to: &key) }
            encoding.append(row.key, to: &key)
            return key
        }
        if emitted.count == 1 {
            // Most documents emit one row: nothing to sort or number.
            let row = emitted[0]
            return [EncodedViewRow(key: collationKey(row), duplicate: 0, keyJSON: json(row.key), valueJSON: json(row.value))]
        }
        var keyed: [(key: [UInt8], row: EmittedRow)] = emitted.map { (collationKey($0), $0) }
        keyed.sort { a, b in
            if a.key != b.key { return a.key.lexicographicallyPrecedes(b.key) }
            let byKey = Collation.rawCompare(a.row.key, b.row.key)
            if byKey != 0 { return byKey < 0 }
            return Collation.rawCompare(a.row.value, b.row.value) < 0
        }
        var encoded: [EncodedViewRow] = []
        encoded.reserveCapacity(keyed.count)
        var duplicate = 0
        for (index, entry) in keyed.enumerated() {
            duplicate = index > 0 && keyed[index - 1].key == entry.key ? duplicate + 1 : 0
            encoded.append(
                EncodedViewRow(key: entry.key, duplicate: duplicate, keyJSON: json(entry.row.key), valueJSON: json(entry.row.value)))
        }
        return encoded
    }

    /// A key's or value's JSON, written into a buffer sized for the short keys and values most rows hold
    /// (``JSONValue/jsonBytes(sortedKeys:)`` starts with room for a document).
    private static func json(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter(capacity: 16)
        writer.write(value)
        return writer.output
    }
}
