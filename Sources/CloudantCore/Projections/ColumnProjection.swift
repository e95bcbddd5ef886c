/// A typed copy of some fields of one kind's documents, kept by the store in its own SQLite table and read
/// without parsing a single document body.
///
/// Mango indexes answer "which documents"; a projection answers "these fields of many documents", fast:
/// a daily-step outcome over a year reads a million samples' dates and values, and parsing a million JSON
/// bodies to read seven fields costs far more than the sums. A kind declares the projections its readers
/// need (``EntityKind/init(_:name:schemaVersion:indexes:projections:validate:upgrade:format:)``); the store
/// creates and fills each one when it opens, keeps it in step with every write in the same transaction
/// (local writes, replication, imports, purges), and serves it through `DocumentStore.projectedRows`.
///
/// ```swift
/// let samples = ColumnProjection(
///     name: "quantity-samples",
///     columns: [
///         .init("typeIdentifier", type: .label),
///         .init("start", path: "startDate", type: .date),
///         .init("value", type: .real),
///     ],
///     orderedBy: ["typeIdentifier", "start"])
/// ```
///
/// Projections are local: they are derived from documents, never replicated, and not part of CouchDB's
/// design documents. One row per live document of the kind (its winning revision); a field that is
/// missing or of another type is `NULL` in its column, except the `orderedBy` fields: a document missing
/// one of those (or holding another type there) has no row, as a Mango index leaves it out.
public struct ColumnProjection: Sendable, Hashable {
    /// How a column holds its field.
    public enum ColumnType: String, Sendable, Hashable, CaseIterable {
        /// A JSON string, as SQLite text.
        case text
        /// A JSON number, as a double.
        case real
        /// A JSON number that is an integer within 64 bits.
        case integer
        /// An ISO 8601 / RFC 3339 string, as seconds since 1970 (a double), so ranges compare instants and
        /// not spellings (`…T01:00:00+01:00` equals `…T00:00:00Z`).
        case date
        /// Any JSON value, as its JSON text.
        case json
        /// A JSON string from a small set (a type identifier, a unit, a source or device name), stored as
        /// a number that stands for it: the store keeps each distinct text once, in a table of labels, so a
        /// million rows naming forty types hold forty strings. It reads back as text. Conditions compare it
        /// for equality only (`equal`, `notEqual`, `isNull`, `isNotNull`), and where it orders rows it
        /// orders them by when each text was first stored, not alphabetically. Use ``text`` for values
        /// that are mostly distinct (identifiers, free text): each distinct label is a row of its own.
        case label
        /// A JSON string that is most often the document's own `_id` (a health sample's `uuid`, which is
        /// also its id): a row does not keep the id a second time, but marks that the field equals it, and
        /// reads back the text either way (the id then costs a lookup by row id). A value that differs from
        /// the id is stored as text. Conditions compare it as text; it cannot order a projection.
        case identifier
    }

    /// One column: its name, the document field it copies, and how.
    public struct Column: Sendable, Hashable {
        /// The column name: letters, digits and `_`, starting with a letter.
        public var name: String
        /// The field's dotted path (`"source.name"`); a literal dot is escaped as `\.`.
        public var path: String
        /// How the field is held.
        public var type: ColumnType

        /// A column copying `path` (the column's name by default).
        public init(_ name: String, path: String? = nil, type: ColumnType) {
            self.name = name
            self.path = path ?? name
            self.type = type
        }
    }

    /// The projection's name, unique in a store: letters, digits, `-` and `_`.
    public var name: String
    /// The columns, in order; a row's values come in this order.
    public var columns: [Column]
    /// The columns that order and narrow reads (equality on leading columns, then a range on the next): the
    /// table is clustered by them, so such a read walks consecutive rows. Empty for none (rows then come in
    /// document order and every read scans the whole projection).
    public var orderedBy: [String]

    /// Describes a projection.
    public init(name: String, columns: [Column], orderedBy: [String] = []) {
        self.name = name
        self.columns = columns
        self.orderedBy = orderedBy
    }

    /// The position of the column named `name`.
    public func columnIndex(_ name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }

    /// Checks names and paths.
    /// - Throws: `CloudantError.Code.invalidInput` naming the first problem.
    public func validate() throws {
        func fail(_ message: String, field: String) throws -> Never {
            throw CloudantError(.invalidInput, message, context: .init(field: field))
        }
        guard !name.isEmpty, name.utf8.allSatisfy({ $0.isProjectionNameByte || $0 == UInt8(ascii: "-") }) else {
            try fail("A projection name is letters, digits, '-' and '_': '\(name)' is not.", field: "name")
        }
        guard !columns.isEmpty else { try fail("Projection \(name) needs at least one column.", field: "columns") }
        var seen: Set<String> = []
        for column in columns {
            guard let first = column.name.utf8.first, first.isASCIILetter,
                column.name.utf8.allSatisfy(\.isProjectionNameByte)
            else {
                try fail("A column name is letters, digits and '_', starting with a letter: '\(column.name)' is not.", field: column.name)
            }
            guard seen.insert(column.name.lowercased()).inserted else {
                try fail("Projection \(name) names column \(column.name) twice.", field: column.name)
            }
            _ = try FieldPath(parsing: column.path)
        }
        for name in orderedBy {
            guard let index = columnIndex(name) else {
                try fail("Projection \(self.name) orders by \(name), which is not one of its columns.", field: name)
            }
            guard columns[index].type != .identifier else {
                try fail("Projection \(self.name) cannot order by \(name): an identifier column's rows do not hold its text.", field: name)
            }
        }
        guard Set(orderedBy).count == orderedBy.count else {
            try fail("Projection \(name) names a column twice in orderedBy.", field: "orderedBy")
        }
    }

    /// The definition as JSON, as the store records it to notice a changed declaration.
    public var definitionJSON: JSONValue {
        .object([
            "name": .string(name),
            "columns": .array(columns.map { .object(["name": .string($0.name), "path": .string($0.path), "type": .string($0.type.rawValue)]) }),
            "orderedBy": .array(orderedBy.map(JSONValue.string)),
        ])
    }

    /// Reads a definition written by ``definitionJSON``; nil when it is not one.
    public init?(definitionJSON json: JSONValue) {
        guard let name = json["name"]?.stringValue, case .array(let columns)? = json["columns"],
            case .array(let ordered)? = json["orderedBy"]
        else { return nil }
        var parsed: [Column] = []
        for column in columns {
            guard let columnName = column["name"]?.stringValue, let path = column["path"]?.stringValue,
                let type = column["type"]?.stringValue.flatMap(ColumnType.init(rawValue:))
            else { return nil }
            parsed.append(Column(columnName, path: path, type: type))
        }
        self.init(name: name, columns: parsed, orderedBy: ordered.compactMap(\.stringValue))
    }
}

extension UInt8 {
    fileprivate var isASCIILetter: Bool { (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
    fileprivate var isProjectionNameByte: Bool { isASCIILetter || (0x30...0x39).contains(self) || self == 0x5F }
}
