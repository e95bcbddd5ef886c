public import CloudantCore

/// The bytes one SQLite table or index of a store's file takes (`cloudant db stats`, `structures`).
///
/// Measured from SQLite's `dbstat` table over the whole file: every page the structure owns, what its
/// entries hold, and how many entries there are. Indexes carry a copy of the columns they index, so a
/// structure's bytes are what keeping it costs on disk.
public struct StorageStructure: Sendable, Hashable {
    /// The table's or index's name in the file.
    public var name: String
    /// The table the structure belongs to (the table itself for a table).
    public var table: String
    /// Whether it is an index rather than a table.
    public var isIndex: Bool
    /// Bytes of the pages it owns (page size × pages).
    public var bytes: Int64
    /// Bytes of its entries' contents (keys and row payloads) in those pages.
    public var payloadBytes: Int64
    /// Its entries: rows of a table, entries of an index (interior-page cells included).
    public var entries: Int64

    /// The figure as JSON, with snake_case names.
    public var json: JSONValue {
        [
            "name": .string(name), "table": .string(table), "kind": .string(isIndex ? "index" : "table"),
            "bytes": .number(JSONNumber(bytes)), "payload_bytes": .number(JSONNumber(payloadBytes)),
            "entries": .number(JSONNumber(entries)),
        ]
    }
}
