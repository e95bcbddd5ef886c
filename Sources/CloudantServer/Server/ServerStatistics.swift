internal import CloudantCore
internal import Foundation

/// The counters `/_node/{node}/_stats` reports, in CouchDB's shape (`couchdb.httpd.requests`,
/// `couchdb.httpd_request_methods.*`, `couchdb.httpd_status_codes.*`), counted as requests are answered.
final class ServerStatistics: Sendable {
    private struct Counts {
        var requests = 0
        var methods: [String: Int] = [:]
        var statuses: [Int: Int] = [:]
    }

    // `counts` is only touched under its lock.
    private let counts = Locked(Counts())
    /// When the server started, for `_system`'s `uptime`.
    let started = Date()

    /// Counts one answered request.
    func record(method: String, status: Int) {
        counts.withLock {
            $0.requests += 1
            $0.methods[method, default: 0] += 1
            $0.statuses[status, default: 0] += 1
        }
    }

    private static func counter(_ value: Int, _ description: String) -> JSONValue {
        ["value": .number(JSONNumber(value)), "type": "counter", "desc": .string(description)]
    }

    /// CouchDB's `_stats` object for what this server counts.
    var json: JSONValue {
        let snapshot = counts.withLock { $0 }
        let methods = ["COPY", "DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"].map { method in
            (method, Self.counter(snapshot.methods[method] ?? 0, "number of HTTP \(method) requests"))
        }
        let statuses = [200, 201, 202, 204, 206, 301, 304, 400, 401, 403, 404, 405, 406, 409, 412, 413, 414, 415, 416, 417, 500, 501, 503]
            .map { status in
                (String(status), Self.counter(snapshot.statuses[status] ?? 0, "number of HTTP \(status) responses"))
            }
        return [
            "couchdb": [
                "httpd": ["requests": Self.counter(snapshot.requests, "number of HTTP requests")],
                "httpd_request_methods": .object(JSONObject(methods)),
                "httpd_status_codes": .object(JSONObject(statuses)),
            ]
        ]
    }
}
