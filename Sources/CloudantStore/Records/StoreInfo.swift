internal import GRDB

/// Reads and writes the `store_info` counters and settings.
enum StoreInfo {
    private typealias Info = StoreSchema.StoreInfo

    private static let integerSQL = "SELECT \(Info.value) FROM \(Info.table) WHERE \(Info.key) = ?"

    static func integer(_ key: String, in db: Database) throws -> Int64 {
        let statement = try db.cachedStatement(sql: integerSQL)
        return try statement.fetchInteger(in: db) { $0.text(key) } ?? 0
    }

    static func string(_ key: String, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM \(Info.table) WHERE \(Info.key) = ?", arguments: [key])
    }

    static func set(_ key: String, to value: some DatabaseValueConvertible, in db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO \(Info.table) (\(Info.key), \(Info.value)) VALUES (?, ?) "
                + "ON CONFLICT(\(Info.key)) DO UPDATE SET \(Info.value) = excluded.\(Info.value)")
        try statement.execute(arguments: [key, value])
    }
}

/// Hands out update sequence numbers within one write transaction.
///
/// The latest sequence is the highest `documents.seq` (one step down the sequence index), so an ordinary
/// write transaction touches no counter row. `store_info.update_seq` is a floor, written only when a purge
/// removes the document that held the highest sequence, so sequences never go backwards.
struct SequenceAllocator {
    private(set) var current: Int64

    init(db: Database) throws {
        current = try Self.latest(in: db)
    }

    /// Starts after `latest`, the sequence ``WriterSettings`` read.
    init(latest: Int64) {
        current = latest
    }

    mutating func next() -> Int64 {
        current += 1
        return current
    }

    /// Records the current sequence as the floor (after a purge).
    func recordFloor(in db: Database) throws {
        try StoreInfo.set(StoreSchema.StoreInfo.updateSeq, to: current, in: db)
    }

    /// The latest update sequence of the store.
    static func latest(in db: Database) throws -> Int64 {
        let documents = StoreSchema.Documents.self
        let statement = try db.cachedStatement(sql: "SELECT MAX(\(documents.seq)) FROM \(documents.table)")
        let highest = try Int64.fetchOne(statement) ?? 0
        return max(highest, try StoreInfo.integer(StoreSchema.StoreInfo.updateSeq, in: db))
    }
}

/// What every write transaction reads before it writes: the revision limit, whether the database is
/// partitioned, the last sequence and the expiry field, in one statement (measured: four separate lookups were a tenth of a
/// single-document write's CPU).
struct WriterSettings {
    var revsLimit: Int
    var partitioned: Bool
    var latestSequence: Int64
    /// The member holding documents' expiry times, when they expire.
    var expiryField: String?

    private typealias Info = StoreSchema.StoreInfo
    private static let sql: String = {
        let documents = StoreSchema.Documents.self
        let value = "(SELECT \(Info.value) FROM \(Info.table) WHERE \(Info.key) = ?)"
        return "SELECT (SELECT MAX(\(documents.seq)) FROM \(documents.table)), \(value), \(value), \(value), \(value)"
    }()

    init(db: Database) throws {
        let statement = try db.cachedStatement(sql: Self.sql)
        let row = try statement.fetchFirstRow(in: db) {
            $0.text(Info.updateSeq)
            $0.text(Info.revsLimit)
            $0.text(Info.partitioned)
            $0.text(Info.expiryField)
        } read: { row in
            (highest: row.integer(0) ?? 0, floor: row.integer(1) ?? 0, revsLimit: row.integer(2) ?? 0,
             partitioned: row.integer(3) ?? 0, expiryField: row.text(4))
        }
        latestSequence = max(row?.highest ?? 0, row?.floor ?? 0)
        revsLimit = Int(row?.revsLimit ?? 0)
        partitioned = (row?.partitioned ?? 0) != 0
        expiryField = row?.expiryField
    }
}
