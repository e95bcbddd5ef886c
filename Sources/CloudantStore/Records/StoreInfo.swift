internal import GRDB

/// Reads and writes the `store_info` counters and settings.
enum StoreInfo {
    private typealias Info = StoreSchema.StoreInfo

    static func integer(_ key: String, in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM \(Info.table) WHERE \(Info.key) = ?", arguments: [key]) ?? 0
    }

    static func string(_ key: String, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM \(Info.table) WHERE \(Info.key) = ?", arguments: [key])
    }

    static func set(_ key: String, to value: some DatabaseValueConvertible, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO \(Info.table) (\(Info.key), \(Info.value)) VALUES (?, ?) "
                + "ON CONFLICT(\(Info.key)) DO UPDATE SET \(Info.value) = excluded.\(Info.value)",
            arguments: [key, value])
    }
}

/// Hands out update sequence numbers within one write transaction and stores the last one at the end.
struct SequenceAllocator {
    private(set) var current: Int64
    private let start: Int64

    init(db: Database) throws {
        current = try StoreInfo.integer(StoreSchema.StoreInfo.updateSeq, in: db)
        start = current
    }

    mutating func next() -> Int64 {
        current += 1
        return current
    }

    func commit(in db: Database) throws {
        if current != start { try StoreInfo.set(StoreSchema.StoreInfo.updateSeq, to: current, in: db) }
    }
}
