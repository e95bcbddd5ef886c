internal import CloudantCore
internal import GRDB

extension DocumentStore {
    private typealias Columns = StoreSchema.Documents

    /// Lists documents by id in raw byte order, deleted and local documents excluded.
    public func allDocs(_ options: AllDocsOptions = AllDocsOptions()) async throws -> AllDocsResult {
        try await read(.storeUnreadable) { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(Columns.table) WHERE \(Columns.deleted) = 0") ?? 0
            if let keys = options.keys {
                let rows = try keys.dropFirst(options.skip).prefix(options.limit ?? Int.max).map { key in
                    try Self.keyedRow(key, options: options, in: db)
                }
                // CouchDB reports no offset for a multi-key request: the keys are not one range.
                return AllDocsResult(
                    totalRows: total, offset: nil, rows: rows,
                    updateSeq: options.updateSeq ? try SequenceAllocator.latest(in: db) : nil)
            }
            let range = options.idRangeConditions(column: Columns.id)
            let conditions = ["\(Columns.deleted) = 0"] + range.conditions
            var arguments = range.arguments
            let sql =
                "SELECT \(DocumentRecord.selectColumns) FROM \(Columns.table) WHERE \(conditions.joined(separator: " AND ")) "
                + "ORDER BY \(Columns.id) \(options.descending ? "DESC" : "ASC") LIMIT ? OFFSET ?"
            arguments += [options.limit ?? -1, options.skip]
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                try Self.row(for: DocumentRecord(row: row, in: db), options: options, in: db)
            }
            // The offset is the number of rows before the first one returned, in the direction read, skipped
            // rows included, as CouchDB's view engine counts it (never more than the total).
            var before = 0
            if let start = options.startKey {
                before =
                    try Int.fetchOne(
                        db,
                        sql: "SELECT COUNT(*) FROM \(Columns.table) WHERE \(Columns.deleted) = 0 AND \(Columns.id) "
                            + (options.descending ? "> ?" : "< ?"),
                        arguments: [start]) ?? 0
            }
            return AllDocsResult(
                totalRows: total, offset: min(total, before + options.skip), rows: rows,
                updateSeq: options.updateSeq ? try SequenceAllocator.latest(in: db) : nil)
        }
    }

    private static func row(for record: DocumentRecord, options: AllDocsOptions, in db: Database) throws -> JSONValue {
        var row: JSONObject = [
            "id": .string(record.id), "key": .string(record.id), "value": ["rev": .string(record.winnerRev.description)],
        ]
        if options.includeDocs {
            var documentOptions = options.documentOptions
            documentOptions.rev = nil
            documentOptions.conflicts = options.conflicts
            let document = try DocumentAssembler(db: db, record: record).document(
                rev: record.winnerRev, options: documentOptions)
            row["doc"] = document.map(JSONValue.object) ?? .null
        }
        return .object(row)
    }

    private static func keyedRow(_ key: String, options: AllDocsOptions, in db: Database) throws -> JSONValue {
        guard let record = try DocumentRecord.fetch(id: key, in: db) else {
            return ["key": .string(key), "error": "not_found"]
        }
        guard record.deleted else { return try row(for: record, options: options, in: db) }
        var row: JSONObject = [
            "id": .string(record.id), "key": .string(key),
            "value": ["rev": .string(record.winnerRev.description), "deleted": true],
        ]
        if options.includeDocs { row["doc"] = .null }
        return .object(row)
    }
}
