internal import CloudantOnly
internal import Foundation

/// Everything the CLI prints: JSON on standard output, CouchDB-shaped errors on standard error.
enum Output {
    /// Prints one compact JSON value and a newline, unbuffered so a reader sees it at once.
    static func print(_ value: JSONValue) {
        var bytes = value.jsonBytes()
        bytes.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(Data(bytes))
    }

    /// Prints an error as CouchDB's `{"error","reason"}` to standard error, with the store's `code` and what the
    /// error names (`id`, `db`, `field`, `item`, …).
    static func printError(_ error: any Error) {
        let body: JSONValue
        if let error = error as? CloudantError {
            // CouchDB's name for the failure; codes CouchDB has no name for get their category's name.
            let category = ErrorCategory(error)
            let name =
                error.couchDB.status == 500 && category != .internal ? category.couchDBError : error.couchDB.error
            var object: JSONObject = [
                "error": .string(name), "reason": .string(error.couchDBReason), "code": .string(error.code.rawValue),
            ]
            // CouchDB's reason, then what to do about it (for a person at a terminal).
            if error.message != error.couchDBReason { object["advice"] = .string(error.message) }
            if let id = error.context.documentID { object["id"] = .string(id) }
            if let database = error.context.database { object["db"] = .string(database) }
            if let field = error.context.field { object["field"] = .string(field) }
            if let position = error.context.position { object["position"] = .number(JSONNumber(position)) }
            // Which element of an input array was refused (0-based), for `care add`, `bulk` and the like.
            if let item = error.context.itemIndex { object["item"] = .number(JSONNumber(item)) }
            body = .object(object)
        } else if let failure = error as? PeerFailure {
            // A replication peer's answer, as the peer wrote it.
            var object: JSONObject = ["error": .string(failure.error), "reason": .string(failure.reason)]
            if let status = failure.status { object["status"] = .number(JSONNumber(status)) }
            body = .object(object)
        } else {
            body = ["error": .string(ErrorCategory(error).couchDBError), "reason": .string(String(describing: error))]
        }
        var bytes = body.jsonBytes()
        bytes.append(UInt8(ascii: "\n"))
        FileHandle.standardError.write(Data(bytes))
    }
}
