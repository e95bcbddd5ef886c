internal import CloudantCore
internal import Foundation

/// A view index's map functions, compiled in each engine instance that runs them.
///
/// A batch is mapped in one call into the engine: the documents go in as one JSON array and the rows come
/// back as one, so crossing between Swift and JavaScript costs per batch, not per document. The time limit
/// applies to a call, and CouchDB's applies to each document: a batch that runs out of time is mapped again
/// one document at a time, so only a document whose functions alone run past the limit fails the batch.
final class JavaScriptMapper: DocumentMapper, @unchecked Sendable {
    private let pool: ContextPool
    private let functions: MapFunctionSet
    private let id: Int
    /// The instance that mapped the last batch (it has the functions compiled). Touched only by the one
    /// task that uses the mapper at a time (``DocumentMapper``).
    private var lastContext: ObjectIdentifier?

    init(pool: ContextPool, functions: MapFunctionSet) {
        self.pool = pool
        self.functions = functions
        id = pool.registerMapSet()
    }

    deinit { pool.unregisterMapSet(id) }

    /// Compiles the functions now, so a function that does not compile fails here.
    func prepare() throws {
        try pool.withContext(preferring: lastContext) { context in
            try compiled(in: context)
        }
    }

    func map(documents: [[UInt8]]) throws -> [[[EmittedRow]]] {
        guard !documents.isEmpty else { return [] }
        do {
            return try map(batch: documents)
        } catch let error as CloudantError where error.designFunctionError == .timedOut && documents.count > 1 {
            var results: [[[EmittedRow]]] = []
            results.reserveCapacity(documents.count)
            for document in documents { results += try map(batch: [document]) }
            return results
        }
    }

    private func map(batch documents: [[UInt8]]) throws -> [[[EmittedRow]]] {
        var text = [UInt8]()
        text.reserveCapacity(documents.reduce(2) { $0 + $1.count + 1 })
        text.append(UInt8(ascii: "["))
        for (index, document) in documents.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            text += document
        }
        text.append(UInt8(ascii: "]"))
        let answer = try pool.withContext(preferring: lastContext) { context in
            try compiled(in: context)
            return try context.map(id, documents: text)
        }
        return try Self.rows(of: answer, documents: documents.count, functions: functions.sources.count)
    }

    /// Maps every document in batches and returns how many bytes of answers the engine wrote (``JavaScriptEngine/mapText(_:documents:batch:)``).
    func mapText(documents: [[UInt8]], batch: Int) throws -> Int {
        var written = 0
        for start in stride(from: 0, to: documents.count, by: batch) {
            var text: [UInt8] = [UInt8(ascii: "[")]
            for (index, document) in documents[start..<min(documents.count, start + batch)].enumerated() {
                if index > 0 { text.append(UInt8(ascii: ",")) }
                text += document
            }
            text.append(UInt8(ascii: "]"))
            written += try pool.withContext(preferring: lastContext) { context in
                try compiled(in: context)
                return try context.mapText(id, documents: text).count
            }
        }
        return written
    }

    private func compiled(in context: JavaScriptContext) throws {
        lastContext = ObjectIdentifier(context)
        if !context.mapSets.contains(id) { try context.addMapSet(id, functions) }
    }

    /// `[[[key, value]…] per function] per document]` as rows.
    static func rows(of answer: JSONValue, documents: Int, functions: Int) throws -> [[[EmittedRow]]] {
        guard case .array(let perDocument) = answer, perDocument.count == documents else { throw malformed }
        return try perDocument.map { document in
            guard case .array(let perFunction) = document, perFunction.count == functions else { throw malformed }
            return try perFunction.map { emitted in
                guard case .array(let pairs) = emitted else { throw malformed }
                return try pairs.map { pair in
                    guard case .array(let members) = pair, members.count == 2 else { throw malformed }
                    return EmittedRow(key: members[0], value: members[1])
                }
            }
        }
    }

    private static var malformed: CloudantError {
        DesignFunctionError(name: "InternalError", reason: "The query server's map answer has the wrong shape.").error
    }
}
