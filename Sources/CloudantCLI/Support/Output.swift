internal import CloudantOnly
internal import CloudantServer
internal import Foundation

/// Everything the CLI prints: JSON on standard output, CouchDB-shaped errors on standard error.
enum Output {
    /// Prints one compact JSON value and a newline, unbuffered so a reader sees it at once.
    ///
    /// - Parameter whenClosed: What a reader that went away does to the command: ends it (as SIGPIPE ends a Unix
    ///   tool) unless it says to carry on.
    static func print(_ value: JSONValue, whenClosed: StandardStreams.ClosedOutput = .exit) {
        var bytes = value.jsonBytes()
        bytes.append(UInt8(ascii: "\n"))
        StandardStreams.output(bytes, whenClosed: whenClosed)
    }

    /// Prints an error as CouchDB's `{"error","reason"}` to standard error, named as the HTTP server names it
    /// (``CloudantServer/CouchErrorBody``), with the store's `code` and what the error names (`id`, `db`,
    /// `field`, `item`, …); a peer's failure adds the peer's `status` and the `url` that failed.
    static func printError(_ error: any Error) {
        let body: JSONObject =
            switch error {
            case let error as CloudantError: object(error)
            default:
                ["error": .string(ErrorCategory(of: error).couchDBError), "reason": .string(String(describing: error))]
            }
        var bytes = JSONValue.object(body).jsonBytes()
        bytes.append(UInt8(ascii: "\n"))
        StandardStreams.error(bytes)
    }

    private static func object(_ error: CloudantError) -> JSONObject {
        let couch = CouchErrorBody(error)
        var object: JSONObject = [
            "error": .string(couch.error), "reason": .string(couch.reason), "code": .string(error.code.rawValue),
        ]
        // CouchDB's reason, then what to do about it (for a person at a terminal).
        if error.message != couch.reason { object["advice"] = .string(error.message) }
        if let id = error.context.documentID { object["id"] = .string(id) }
        if let database = error.context.database { object["db"] = .string(database) }
        if let field = error.context.field { object["field"] = .string(field) }
        if let position = error.context.position { object["position"] = .number(JSONNumber(position)) }
        // Which element of an input array was refused (0-based), for `care add`, `bulk` and the like.
        if let item = error.context.itemIndex { object["item"] = .number(JSONNumber(item)) }
        // A peer's failure: the status it answered and the request that failed.
        if let status = error.context.status { object["status"] = .number(JSONNumber(status)) }
        if let url = error.context.url { object["url"] = .string(url.absoluteString) }
        return object
    }
}
