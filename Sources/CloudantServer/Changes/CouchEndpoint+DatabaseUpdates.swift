internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `GET /_db_updates` (server admins): the databases created, updated and deleted, as `global_changes_httpd`
    /// answers: `normal` (`{"results":[{"db_name","type","seq"}],"last_seq"}`), `longpoll`, `continuous` (a line per
    /// event, then `{"last_seq"}`) and `eventsource` feeds, with `since` (`now` too), `limit`, `descending`,
    /// `heartbeat` and `timeout`.
    func databaseUpdates(_ request: CouchRequest) async throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET") }
        try requireServerAdmin(request.user)
        guard ["normal", "longpoll", "continuous", "eventsource"].contains(request.query["feed"] ?? "normal") else {
            throw HTTPFailure.badRequest("Supported `feed` types: normal, continuous, longpoll, eventsource")
        }
        // `to_non_neg_int/1`, which reads `heartbeat` too (but for `true` and `false`).
        for name in ["limit", "timeout", "heartbeat"] {
            guard let text = request.query[name], !(name == "heartbeat" && (text == "true" || text == "false")) else { continue }
            if (Int(text) ?? -1) < 0 { throw HTTPFailure.badRequest("invalid_integer") }
        }
        // Only the parameters `global_changes_httpd:parse_global_changes_query/1` reads, by their exact names; the
        // rest are ignored, as there, and so is `heartbeat=false`.
        let read: Set<String> = ["feed", "descending", "since", "limit", "heartbeat", "timeout"]
        let query = request.query.filter { name, value in read.contains(name) && !(name == "heartbeat" && value == "false") }
        var parameters = try ChangesParameters(
            query, body: nil, lastEventID: request.headers[HTTPField.Name("Last-Event-ID")!],
            maximumWait: .milliseconds(max(1, configuration.changesTimeout)))
        // Every write committed before this request is in the feed.
        await registry.tellCommits()
        await databaseUpdatesLog.settle()
        let store = databaseUpdatesLog.store
        if parameters.sinceNow { parameters.options.since = try await store.info().updateSeq }
        parameters.resolveSince(inDatabase: store.uuid)
        let rendering = FeedRendering(row: DatabaseUpdates.row, countsPending: false, uuid: store.uuid)
        let feed = parameters
        switch parameters.feed {
        case .normal:
            return CouchResponse.json(rendering.result(try await store.changes(feed.options)))
        case .longpoll:
            let first = try await store.changes(feed.options)
            if !first.results.isEmpty || feed.options.descending { return CouchResponse.json(rendering.result(first)) }
            let connection = request.connection
            return streaming(contentType: "application/json") { writer in
                try await Self.longpoll(
                    store: store, parameters: feed, connection: connection, rendering: rendering,
                    writer: &writer)
            }
        case .continuous, .eventsource:
            let eventSource = parameters.feed == .eventsource
            let connection = request.connection
            return streaming(contentType: eventSource ? "text/event-stream" : "application/json") { writer in
                try await Self.continuous(
                    store: store, parameters: feed, eventSource: eventSource, connection: connection,
                    rendering: rendering, writer: &writer)
            }
        }
    }
}
