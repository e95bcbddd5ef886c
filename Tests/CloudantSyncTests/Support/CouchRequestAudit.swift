import Foundation
import HTTPTypes
import NIOCore

/// Checks every request a client sends against the rules Apache CouchDB 3.5 enforces (and would refuse with
/// 400 or 415), and records each breach: a replicator that passes the audit can talk to a real CouchDB.
///
/// The rules, from CouchDB's `chttpd_db` and `mango_httpd`: a JSON `POST` carries `Content-Type:
/// application/json` exactly (`validate_ctype`); a JSON body parses; `_bulk_get` takes none of `rev`,
/// `open_revs`, `atts_since`, `new_edits`, `w` in its query; `_changes` takes only CouchDB's `feed` and `style`
/// values; JSON-encoded query values (`open_revs`, `atts_since`, `startkey`, …) are valid JSON.
final class CouchRequestAudit: @unchecked Sendable {
    // `lock` protects `breaches` and `requests`.
    private let lock = NSLock()
    private var breaches: [String] = []
    private var requests = 0

    /// Every breach recorded so far, as "METHOD path: what".
    var recorded: [String] { lock.withLock { breaches } }
    /// How many requests were checked.
    var checked: Int { lock.withLock { requests } }

    private static let jsonPosts: Set<String> = [
        "_bulk_docs", "_bulk_get", "_revs_diff", "_ensure_full_commit", "_changes", "_all_docs", "_find", "_explain",
        "_index", "_purge", "_missing_revs",
    ]
    private static let jsonQueryValues: Set<String> = [
        "open_revs", "atts_since", "startkey", "endkey", "start_key", "end_key", "key", "keys", "doc_ids",
    ]

    func check(method: String, path: String, query rawQuery: String?, headers: HTTPFields, body: ByteBuffer) {
        let segments = path.split(separator: "/").map(String.init)
        var query: [String: String] = [:]
        for pair in (rawQuery ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            query[name] = parts.count > 1 ? (String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "") : ""
        }
        let mediaType = headers[.contentType]?.split(separator: ";").first.map(String.init)
        var found: [String] = []
        if method == "POST", let last = segments.last, segments.count == 1 || Self.jsonPosts.contains(last),
            mediaType != "application/json"
        {
            found.append("a JSON POST without Content-Type: application/json (CouchDB: 415)")
        }
        if mediaType == "application/json", body.readableBytes > 0,
            (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView), options: [.fragmentsAllowed])) == nil
        {
            found.append("a body that is not JSON (CouchDB: 400)")
        }
        if segments.last == "_bulk_get" {
            for name in ["rev", "open_revs", "atts_since", "new_edits", "w"] where query[name] != nil {
                found.append("_bulk_get with the query parameter \(name) (CouchDB: 400)")
            }
        }
        if segments.last == "_changes" {
            if let feed = query["feed"], !["normal", "longpoll", "continuous", "eventsource"].contains(feed) {
                found.append("_changes?feed=\(feed) (CouchDB: 400)")
            }
            if let style = query["style"], !["main_only", "all_docs"].contains(style) {
                found.append("_changes?style=\(style) (CouchDB: 500)")
            }
        }
        for name in Self.jsonQueryValues {
            guard let value = query[name] else { continue }
            if (try? JSONSerialization.jsonObject(with: Data(value.utf8), options: [.fragmentsAllowed])) == nil {
                found.append("\(name)=\(value) is not JSON (CouchDB: 400)")
            }
        }
        lock.withLock {
            requests += 1
            breaches += found.map { "\(method) \(path): \($0)" }
        }
    }
}
