public import CloudantCore

/// A view defined in Swift: a map closure, and a built-in or Swift reduce, kept by the store like a design
/// document's view (incrementally, from the documents changed since it was last brought up to date) and
/// queried with the same parameters and rows.
///
/// ```swift
/// static let readingsByDay = SwiftView(name: "readings-by-day", version: 1, reduce: .builtIn(.count)) { doc, emit in
///     guard doc["type"] == "reading", case .string(let day)? = doc["day"] else { return }
///     emit(.string(day), doc["bpm"] ?? .null)
/// }
/// var query = ViewQuery()
/// query.group = true
/// let perDay = try await store.queryView(readingsByDay, query: query)
/// ```
///
/// The version is part of the index's identity: change it whenever the closure emits differently, and the
/// store builds the view again; an index of an older version is removed by ``DocumentStore/cleanupViewIndexes()``.
/// Like CouchDB's map functions, the closure sees each live document (design documents only with
/// `includeDesignDocuments`) and must emit the same rows for the same document every time. A document it
/// throws for emits nothing.
public struct SwiftView: Sendable {
    /// Emits a row: a key and a value.
    public typealias Emit = (_ key: JSONValue, _ value: JSONValue) -> Void
    /// The map closure: called for each document with what to emit through.
    public typealias Map = @Sendable (_ document: ViewDocument, _ emit: Emit) throws -> Void

    /// The view's name (unique among the store's Swift views).
    public var name: String
    /// The version of the map closure: a new version is a new index.
    public var version: Int
    /// The reduce function, if the view reduces.
    public var reduce: SwiftReduce?
    /// How keys collate: CouchDB's collation, or Erlang's term order (`"collation": "raw"`).
    public var collation: ViewKeyEncoding
    /// Whether design documents are mapped too (CouchDB's `options.include_design`).
    public var includeDesignDocuments: Bool
    /// The map closure.
    public var map: Map

    /// Creates a view.
    public init(
        name: String, version: Int, reduce: SwiftReduce? = nil, collation: ViewKeyEncoding = .collation,
        includeDesignDocuments: Bool = false, map: @escaping Map
    ) {
        self.name = name
        self.version = version
        self.reduce = reduce
        self.collation = collation
        self.includeDesignDocuments = includeDesignDocuments
        self.map = map
    }

    /// The index's signature: its name, version, collation and whether it maps design documents.
    var signature: String {
        "swift:\(name):\(version):\(collation == .raw ? "raw" : "collation")\(includeDesignDocuments ? ":design" : "")"
    }
}

/// A Swift view's reduce: a built-in, or closures with CouchDB's reduce and rereduce contract.
public struct SwiftReduce: Sendable {
    /// Reduces rows: `[[key, documentID], value]` each, as CouchDB passes them to a reduce function.
    public typealias Reduce = @Sendable (_ keys: [JSONValue], _ values: [JSONValue]) throws -> JSONValue
    /// Reduces earlier reductions.
    public typealias Rereduce = @Sendable (_ values: [JSONValue]) throws -> JSONValue

    let builtIn: BuiltInReduce?
    let reduceRows: Reduce?
    let rereduceValues: Rereduce?

    /// A built-in reduce (`.sum`, `.count`, `.stats`, …), run as CouchDB runs it.
    public static func builtIn(_ function: BuiltInReduce) -> SwiftReduce {
        SwiftReduce(builtIn: function, reduceRows: nil, rereduceValues: nil)
    }

    /// A reduce of your own: `reduce` over rows (keys are `[key, documentID]`), `rereduce` over its results.
    public static func custom(reduce: @escaping Reduce, rereduce: @escaping Rereduce) -> SwiftReduce {
        SwiftReduce(builtIn: nil, reduceRows: reduce, rereduceValues: rereduce)
    }

    func reduce(rows: [JSONValue]) throws -> JSONValue {
        let keys = rows.map { $0.arrayValue?.first ?? .null }
        let values = rows.map { $0.arrayValue?.last ?? .null }
        return try reduceRows?(keys, values) ?? .null
    }

    func rereduce(values: [JSONValue]) throws -> JSONValue {
        try rereduceValues?(values) ?? .null
    }
}

/// A document as a Swift view's map closure sees it: its id and revision, and its members, parsed as they
/// are read (a closure that reads two members of a large document parses only those).
public struct ViewDocument: Sendable {
    /// The document's JSON as CouchDB hands it to map functions, or its stored body followed by its revision
    /// tree (``bodyEnd`` says where the body ends): most documents reach a map that way, and `_id` and `_rev`
    /// are made only if it asks for them.
    let json: [UInt8]
    /// Where the body ends in ``json`` when the revision tree follows it; nil when ``json`` is the whole document.
    let bodyEnd: Int?

    /// The document's id.
    public let id: String

    init(id: String, json: [UInt8]) {
        self.id = id
        self.json = json
        bodyEnd = nil
    }

    init(_ document: ViewSourceDocument) {
        id = document.id
        json = document.json ?? []
        bodyEnd = document.bodyEnd
    }

    /// A top-level member (`_rev`, `_conflicts` and `_attachments` included), or nil when the document
    /// has none.
    public subscript(member: String) -> JSONValue? {
        // A map closure reads a member or two of every document: the name's bytes are read in place.
        var member = member
        return member.withUTF8 { name in
            json.withUnsafeBufferPointer { buffer in
                guard let bodyEnd else { return Self.member(name, in: buffer) }
                // The body holds no member whose name starts with `_`; the document's are made here.
                guard name.first == UInt8(ascii: "_") else { return Self.member(name, in: UnsafeBufferPointer(rebasing: buffer[..<bodyEnd])) }
                return Self.metadata(name, id: id, tree: UnsafeBufferPointer(rebasing: buffer[bodyEnd...]))
            }
        }
    }

    /// The whole document, parsed.
    public var object: JSONObject {
        guard let bodyEnd else { return (try? JSONValue(parsing: json))?.objectValue ?? JSONObject() }
        return json.withUnsafeBufferPointer { buffer in
            let body = (try? JSONValue(parsing: UnsafeBufferPointer(rebasing: buffer[..<bodyEnd])))?.objectValue ?? JSONObject()
            let tree = UnsafeBufferPointer(rebasing: buffer[bodyEnd...])
            let revision = Self.revision(tree)
            return body.prepending([("_id", .string(id))] + (revision.map { [("_rev", $0)] } ?? []))
        }
    }

    private static func member(_ name: UnsafeBufferPointer<UInt8>, in json: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        guard let range = JSONMemberScan.valueRange(of: name, in: json) else { return nil }
        return try? JSONValue(parsing: UnsafeBufferPointer(rebasing: json[range]))
    }

    /// `_id` and `_rev` of a document with one revision and no attachments: it has no other `_` member.
    private static func metadata(_ name: UnsafeBufferPointer<UInt8>, id: String, tree: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        if name.elementsEqual("_id".utf8) { return .string(id) }
        return name.elementsEqual("_rev".utf8) ? revision(tree) : nil
    }

    /// The winning revision's text, as `_rev` holds it.
    private static func revision(_ tree: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        let text = try? RevisionTree.withWinnerText(encoded: tree) { String(decoding: $0, as: UTF8.self) }
        return (text ?? nil).map(JSONValue.string)
    }
}
