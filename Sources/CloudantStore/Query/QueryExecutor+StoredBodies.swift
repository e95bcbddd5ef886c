internal import CloudantCore
internal import GRDB

/// Pages written from the stored bodies as they are, when the index scan has already decided every match.
///
/// A `_find` answer normally parses each candidate's body, checks it against the selector and writes it
/// back out. When every condition of the selector is an `$eq` that the scan checks on an index key column,
/// the check cannot fail: two collation keys are equal exactly when Mango's `$eq` says the values are
/// (strings when equal at every collation level, canonically equivalent or differing only in ignorable
/// characters, as `Collation.equals` has them; numbers by value, `1 == 1.0`; arrays and objects element by
/// element), and a document's key is computed from the value the matcher would look up, by the same
/// `FieldPath` lookup. The body the store wrote with ``JSONWriter``
/// then reads back to the same bytes, so `{"_id":…,"_rev":…,` followed by the stored members is the
/// document the parsed route would write, byte for byte (`QueryStoredBodiesTests` compares the two).
///
/// One exception: Mango compares `_id` by its bytes, where a key equals the key of any collation-equal
/// string, so an `$eq` on `_id` is checked on each row's id (without parsing anything).
///
/// Only the page's last document is parsed, for the bookmark's keys. Documents with attachments take the
/// parsed route (their stubs are made from the attachment table), as do requests with `fields`,
/// `conflicts`, `execution_stats`, `r` above 1, an in-memory sort or a covering index.
extension QueryExecutor {
    /// Whether the scan alone decides which documents match and the page can be written from stored bodies.
    /// The selector's `$eq` on `_id`, if any, is checked by ``runWritingStoredBodies(_:)``.
    func indexDecidesEveryMatch(_ scan: Scan) throws -> Bool {
        guard visibility == nil, rowLimit == nil, plan.scanIsOrdered, scan.covering == nil, scan.passColumn == nil,
            !request.executionStats, !request.conflicts, request.fields == nil, request.readQuorum == 1,
            case .json(let definition, _) = plan.access, try scanDecidesSelector(scan)
        else { return false }
        // The bookmark's keys are the order fields of the page's last document: index fields, which every
        // document in the index has (`_rev` is never in a stored body, so an index on it holds nothing).
        let fields = try stored(definition).paths
        return plan.order.allSatisfy { field in fields.contains(field.path) && field.path.segments != ["_rev"] }
    }

    /// ``run()`` for a scan that ``indexDecidesEveryMatch(_:)``: each row's document as the bytes of the
    /// answer, the selector left unchecked. Nil when the page's last document lacks an order field, which
    /// the index rules out; the caller then runs the parsed route.
    func runWritingStoredBodies(_ statement: Statement) throws -> Outcome? {
        var outcome = Outcome()
        var page: [[UInt8]] = []
        var skipped = 0
        var lastSkipped: [UInt8]?  // the bookmark of a page that `skip` left empty, as ``run()`` keeps it
        let ids = idArguments()
        try statement.forEachRow(in: db) { row in
            try limits.cancellation?.check()
            outcome.keysExamined += 1
            guard let document = try Self.encodedDocument(from: row) else { return true }
            outcome.docsExamined += 1
            if !ids.isEmpty {
                let id = row.text(Column.id) ?? ""
                guard Self.id(id, isEvery: ids) else { return true }
            }
            if skipped < request.skip {
                skipped += 1
                lastSkipped = document
                return true
            }
            if page.count >= request.limit { return false }
            page.append(document)
            return page.count < request.limit
        }
        if let last = page.last ?? (request.limit > 0 ? lastSkipped : nil) {
            guard case .object(let document) = try JSONValue(parsing: last),
                let keys = Self.keys(of: document, order: plan.order), case .string(let id)? = document["_id"]
            else { return nil }
            outcome.last = FindBookmark(keys: keys, id: id)
        }
        outcome.encodedPage = page
        return outcome
    }

    /// Whether every row the scan yields matches the selector but for its `$eq` on `_id` (``idArguments()``):
    /// each of the selector's conditions is an `$eq` on a field whose key column the scan holds to one
    /// collation key.
    func scanDecidesSelector(_ scan: Scan) throws -> Bool {
        guard !scan.ranked, case .json = plan.access else { return false }
        let conditions = topLevelConditions
        let checked = try equalitiesTheIndexChecks()
        return !conditions.isEmpty && conditions.allSatisfy { node in
            if case .field(let path, .eq) = node { checked.contains(path) } else { false }
        }
    }

    /// Whether a row of a scan that ``scanDecidesSelector(_:)`` matches: its id is every `$eq` on `_id`,
    /// compared by bytes.
    static func id(_ id: String, isEvery ids: [String]) -> Bool {
        ids.allSatisfy { $0.utf8.elementsEqual(id.utf8) }
    }

    /// The selector's conditions that must all hold: the children of its top-level `$and`, or itself.
    private var topLevelConditions: [MangoSelector.Node] {
        if case .and(let children) = request.selector.root { children } else { [request.selector.root] }
    }

    /// The arguments of the selector's `$eq` conditions on `_id` (strings: a key of any other type never
    /// equals an id's).
    func idArguments() -> [String] {
        topLevelConditions.compactMap { node in
            if case .field(let path, .eq(.string(let id))) = node, path.segments == ["_id"] { id } else { nil }
        }
    }

    /// The winning revision as `_find` writes it (see ``document(from:conflicts:)``), without parsing the
    /// body when the document has no attachments; nil when the winner's body was never received.
    static func encodedDocument(from row: DirectRow) throws -> [UInt8]? {
        if row.withBytes(Column.attachments, { $0 != nil }) {
            return try document(from: row, conflicts: false).map { JSONValue.object($0).jsonBytes() }
        }
        let spliced = try row.withBody(Column.body) { body -> [UInt8]? in
            guard let body, body.count >= 2, body[0] == UInt8(ascii: "{") else { return nil }
            // `_id` and `_rev` are written from the row's bytes in place: no String for either.
            var writer = JSONWriter(capacity: body.count + 128)
            writer.appendRaw(#"{"_id":"#)
            row.withBytes(Column.id) { id in writer.write(utf8: id ?? UnsafeBufferPointer(start: nil, count: 0)) }
            writer.appendRaw(#","_rev":"#)
            try row.withWinnerText(Column.tree) { rev in writer.write(utf8: rev) }
            if body[1] == UInt8(ascii: "}") {
                writer.appendRaw("}")
            } else {
                writer.appendRaw(",")
                writer.appendRaw(UnsafeBufferPointer(rebasing: body[1...]))
            }
            return writer.output
        }
        if let spliced { return spliced }
        // No body, or one the store did not write as an object: the parsed route decides.
        return try document(from: row, conflicts: false).map { JSONValue.object($0).jsonBytes() }
    }
}
