internal import CloudantCore
internal import HTTPTypes

/// What an answered request comes to for the audit trail: the action, and the database and document it
/// concerned. Read from the method, the path and the status, the way CouchDB lays out its URLs.
struct AuditClassifier {
    /// The kinds of action the trail records.
    enum Action: String, Sendable {
        case read, write, delete, replicate, refused, login, logout
        case sessionRevoked = "session_revoked"
    }

    struct Outcome: Sendable, Equatable {
        var action: Action
        var database: String?
        var documentID: String?
        /// Documents a bulk request named (`_bulk_docs`, `_bulk_get`, `_all_docs` keys, `_revs_diff`).
        var documentIDs: [String] = []
    }

    /// The endpoints of CouchDB's replication protocol: a replicator's reads and checkpoints are recorded as
    /// replication rather than as ordinary reads and writes.
    private static let replicationEndpoints: Set<String> = ["_revs_diff", "_bulk_get", "_ensure_full_commit"]

    /// Classifies an answered request; `nil` for requests that concern no data and no login (`GET /`,
    /// `/_up`, `/_uuids`, `GET /_session`, `/_all_dbs`).
    static func classify(
        method: HTTPRequest.Method, segments: [String], query: QueryParameters, status: Int, body: [UInt8]
    ) -> Outcome? {
        guard let first = segments.first else { return nil }
        switch first {
        case "_up", "_uuids", "_all_dbs": return nil
        case "_utils":
            // The dashboard's pages are not recorded; the API calls they make are, one by one. Its login is.
            guard segments == ["_utils", "login"], method == .post else { return nil }
            return Outcome(action: status == 303 ? .login : .refused)
        case "_session":
            switch method {
            case .post: return Outcome(action: (200..<300).contains(status) ? .login : .refused)
            case .delete: return Outcome(action: .logout)
            default: return nil
            }
        case "_sessions":
            guard method == .delete else { return status == 401 || status == 403 ? Outcome(action: .refused) : nil }
            return Outcome(action: (200..<300).contains(status) ? .sessionRevoked : .refused, documentID: segments.dropFirst().first)
        default:
            break
        }
        let database = first
        let second = segments.count > 1 ? segments[1] : nil
        var outcome = Outcome(action: .read, database: database)
        if let second, !second.hasPrefix("_") || second == "_design" || second == "_local" {
            outcome.documentID = second == "_design" || second == "_local"
                ? segments.dropFirst().prefix(2).joined(separator: "/") : second
        }
        // Parsed once, and only for the endpoints whose body names documents.
        let json = Self.bodyNamingDocuments(body, method: method, endpoint: second)
        let newEdits = query["new_edits"] != "false" && !(second == "_bulk_docs" && json?["new_edits"] == false)
        switch (method, second) {
        case (_, "_bulk_docs"):
            outcome.action = newEdits ? .write : .replicate
            outcome.documentIDs = Self.ids(in: json, list: "docs", key: "_id")
        case (_, "_bulk_get"):
            outcome.action = .replicate
            outcome.documentIDs = Self.ids(in: json, list: "docs", key: "id")
        case (_, "_revs_diff"):
            outcome.action = .replicate
            outcome.documentIDs = json?.objectValue?.keys ?? []
        case (_, let endpoint?) where replicationEndpoints.contains(endpoint):
            outcome.action = .replicate
        case (_, "_local"):
            outcome.action = .replicate
        case (.get, _), (.head, _):
            outcome.action = query["open_revs"] != nil ? .replicate : .read
            if second == "_all_docs" || second == "_changes", let keys = query["keys"] ?? query["doc_ids"],
                let list = try? JSONValue(parsing: Array(keys.utf8)).arrayValue
            {
                outcome.documentIDs = list.compactMap(\.stringValue)
            }
        case (.post, "_find"), (.post, "_explain"), (.post, "_all_docs"), (.post, "_design_docs"), (.post, "_changes"):
            outcome.action = .read
            outcome.documentIDs = Self.ids(in: json, list: "keys", key: nil) + Self.ids(in: json, list: "doc_ids", key: nil)
        case (.delete, _):
            outcome.action = .delete
        default:
            outcome.action = newEdits ? .write : .replicate
        }
        if status == 401 || status == 403 { outcome.action = .refused }
        return outcome
    }

    /// The same, for a method given by name (`"GET"`).
    static func classify(
        methodName: String, segments: [String], query: QueryParameters, status: Int, body: [UInt8]
    ) -> Outcome? {
        guard let method = HTTPRequest.Method(methodName) else { return nil }
        return classify(method: method, segments: segments, query: query, status: status, body: body)
    }

    /// The parsed body of a request whose body lists documents (bulk, `_revs_diff`, POST reads with `keys`).
    private static func bodyNamingDocuments(_ body: [UInt8], method: HTTPRequest.Method, endpoint: String?) -> JSONValue? {
        guard !body.isEmpty, let endpoint else { return nil }
        let lists =
            ["_bulk_docs", "_bulk_get", "_revs_diff"].contains(endpoint)
            || (method == .post && ["_find", "_all_docs", "_design_docs", "_changes"].contains(endpoint))
        return lists ? try? JSONValue(parsing: body) : nil
    }

    /// The `key` member of each object (or each string, without a key) of the body's `list`.
    private static func ids(in json: JSONValue?, list: String, key: String?) -> [String] {
        guard let items = json?[list]?.arrayValue else { return [] }
        return items.compactMap { item in key.map { item[$0]?.stringValue } ?? item.stringValue }
    }
}
