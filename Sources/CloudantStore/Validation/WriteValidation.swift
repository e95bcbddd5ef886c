internal import CloudantCore
internal import Foundation
internal import GRDB

/// Runs design documents' `validate_doc_update` functions on a write, as CouchDB's `couch_db` does before
/// it stores a revision: every function of every design document, with the new revision, the revision it
/// replaces (or null), `userCtx` and `secObj`. Design documents and local documents are not validated so
/// (a design document's own functions are compiled instead).
struct WriteValidation: Sendable {
    let runtime: any DesignFunctionRuntime
    let userContext: JSONValue
    /// The security object the writer named; nil reads the store's (`{}` when it has none).
    let securityObject: JSONObject?
    /// The security object when the store keeps none; `{}` when nil.
    let defaultSecurityObject: JSONObject?
    let cache: ValidationFunctionsCache

    /// The design documents that have a validation function now, with `_id` and `_rev`: read once per write
    /// transaction and passed to ``check(newDocument:oldDocument:functions:in:)`` for each of its writes.
    func functions(in db: Database) throws -> [JSONObject] {
        try cache.functions(in: db)
    }

    /// Checks one revision about to be written.
    ///
    /// - Parameters:
    ///   - newDocument: The revision as written (with `_id`, the `_rev` it edits and `_revisions`).
    ///   - oldDocument: The revision it replaces, with `_revisions`, or nil for a new document.
    ///   - functions: The transaction's validation functions (``functions(in:)``); none means nothing to check.
    /// - Throws: `CloudantError` `CloudantError.Code.validationForbidden` (403),
    ///   `CloudantError.Code.validationUnauthorized` (401) or
    ///   `CloudantError.Code.validationFailed` (500 `unknown_error`) with the function's message;
    ///   `CloudantError` `.designFunctionFailed` when a function fails (throws an exception, runs too long).
    func check(newDocument: JSONObject, oldDocument: JSONObject?, functions: [JSONObject], in db: Database) throws {
        guard !functions.isEmpty else { return }
        let security: JSONValue
        if let securityObject {
            security = .object(securityObject)
        } else if let stored = try StoreInfo.string(StoreSchema.StoreInfo.securityObject, in: db) {
            security = try JSONValue(parsing: stored)
        } else {
            security = .object(defaultSecurityObject ?? JSONObject())
        }
        let arguments: [JSONValue] = [.object(newDocument), oldDocument.map(JSONValue.object) ?? .null, userContext, security]
        let id = newDocument["_id"]?.stringValue
        for designDocument in functions {
            let answer = try runtime.callDesignFunction(designDocument, path: ["validate_doc_update"], arguments: arguments, session: nil)
            switch answer {
            case .number(let number) where number == JSONNumber(1):
                continue
            case .bool(true):
                continue
            case .object(let object) where object.members.count == 1:
                let (name, message) = object.members[0]
                let reason = message.stringValue ?? message.jsonString()
                let code: CloudantError.Code =
                    switch name {
                    case "forbidden": .validationForbidden
                    case "unauthorized": .validationUnauthorized
                    default: .validationFailed
                    }
                var context = CloudantError.Context(documentID: id)
                if message.stringValue == nil { context.reasonValue = message }
                throw CloudantError(code, reason, context: context)
            case .string(let message):
                throw CloudantError(.validationFailed, message, context: .init(documentID: id))
            default:
                throw CloudantError(.validationFailed, answer.jsonString(), context: .init(documentID: id))
            }
        }
    }
}

/// The design documents with a `validate_doc_update` function, read again only when design documents
/// changed: a write's transaction compares a fingerprint of them (how many there are and their highest
/// sequence, one step of the id index) with the one they were read at.
final class ValidationFunctionsCache: @unchecked Sendable {
    private typealias Columns = StoreSchema.Documents
    // `lock` protects the two below.
    private let lock = NSLock()
    private var fingerprint: (Int, Int64)?
    private var cached: [JSONObject] = []

    func functions(in db: Database) throws -> [JSONObject] {
        let range = "\(Columns.id) >= '_design/' AND \(Columns.id) < '_design0'"
        // Asked once per write transaction: a cached statement read in place (``DirectRow``), as GRDB's
        // `fetchOne` with SQL text prepares the statement anew each time.
        let statement = try db.cachedStatement(
            sql: "SELECT COUNT(*), COALESCE(MAX(\(Columns.seq)), 0) FROM \(Columns.table) WHERE \(range)")
        let current: (Int, Int64) = try statement.fetchFirstRow(in: db) { row in
            (Int(row.integer(0) ?? 0), row.integer(1) ?? 0)
        } ?? (0, 0)
        if let known = lock.withLock({ fingerprint }), known == current { return lock.withLock { cached } }
        var found: [JSONObject] = []
        for record in try Row.fetchAll(
            db, sql: "SELECT \(DocumentRecord.selectColumns) FROM \(Columns.table) WHERE \(range) AND \(Columns.deleted) = 0 ORDER BY \(Columns.id)")
        {
            let document = try DocumentRecord(row: record, in: db)
            guard let body = try IndexMaintainer.parse(document.body), body["validate_doc_update"] != nil else { continue }
            found.append(body.prepending([("_id", .string(document.id)), ("_rev", .string(document.winnerRev.description))]))
        }
        lock.withLock {
            fingerprint = current
            cached = found
        }
        return found
    }
}
