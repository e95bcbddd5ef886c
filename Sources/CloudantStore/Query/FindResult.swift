public import CloudantCore

/// The answer to a `FindRequest` (CouchDB `_find`).
public struct FindResult: Sendable, Hashable {
    /// How the query ran, when `execution_stats` was asked for.
    public struct ExecutionStats: Sendable, Hashable {
        /// Index keys examined (0 without an index).
        public var totalKeysExamined: Int
        /// Documents read with the index rows and checked against the selector (none for a covering index).
        public var totalDocsExamined: Int
        /// Documents read as CouchDB reads them for `r` above 1 (at the coordinator), instead.
        public var totalQuorumDocsExamined: Int
        /// Documents returned.
        public var resultsReturned: Int
        /// Wall time of the query in milliseconds.
        public var executionTimeMs: Double

        /// CouchDB's `execution_stats` object.
        public var json: JSONValue {
            [
                "total_keys_examined": .number(JSONNumber(totalKeysExamined)),
                "total_docs_examined": .number(JSONNumber(totalDocsExamined)),
                "total_quorum_docs_examined": .number(JSONNumber(totalQuorumDocsExamined)),
                "results_returned": .number(JSONNumber(resultsReturned)),
                "execution_time_ms": .number(JSONNumber(executionTimeMs)),
            ]
        }
    }

    /// The matching documents (projected when `fields` was given).
    public var docs: [JSONObject]
    /// Pass back as `bookmark` with the same query for the next page.
    public var bookmark: String
    /// Advice, as CouchDB gives it (for example when no index could be used).
    public var warning: String?
    /// Statistics, when asked for.
    public var executionStats: ExecutionStats?
    /// False when the selector could match nothing and nothing was read: CouchDB then answers `docs`
    /// alone, without a bookmark, warnings or statistics.
    public var wasRun = true

    /// CouchDB's body: `{"docs":[…],"bookmark":"…","warning"?:…,"execution_stats"?:{…}}`.
    public var json: JSONValue {
        guard wasRun else { return ["docs": .array(docs.map(JSONValue.object))] }
        var object: JSONObject = ["docs": .array(docs.map(JSONValue.object)), "bookmark": .string(bookmark)]
        if let executionStats { object["execution_stats"] = executionStats.json }
        if let warning { object["warning"] = .string(warning) }
        return .object(object)
    }

    /// ``json``'s bytes with `documents` (each one document's JSON) as `docs`: the answer of a page written
    /// from stored bodies, whose ``docs`` are empty.
    func jsonBytes(encodedDocuments documents: [[UInt8]]) -> [UInt8] {
        var shell = self
        shell.docs = []
        let rest = shell.json.jsonBytes()
        let opening = Array(#"{"docs":["#.utf8)
        var bytes = opening
        bytes.reserveCapacity(rest.count + documents.reduce(documents.count) { $0 + $1.count })
        for (index, document) in documents.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += document
        }
        // `docs` is the first member, so the rest follows the empty array's opening bracket.
        bytes += rest.dropFirst(opening.count)
        return bytes
    }
}
