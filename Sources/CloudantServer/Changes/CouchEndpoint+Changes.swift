internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird
internal import ServiceLifecycle

extension CouchEndpoint {
    /// `GET|POST /{db}/_changes`: normal, longpoll, continuous and eventsource feeds.
    func changes(_ request: CouchRequest, database: String) async throws -> Response {
        if request.method == .head {
            // `chttpd` answers `HEAD` as the `GET` without its body.
            var get = request
            get.method = .get
            return CouchResponse.head(of: try await changes(get, database: database))
        }
        guard request.method == .get || request.method == .post else { throw unsupported("GET,POST,HEAD") }
        var body: JSONObject?
        // `chttpd_db:handle_changes_req/2` checks a `POST`'s content type before it looks at the body's length.
        if request.method == .post {
            try request.requireJSONContentType()
            // `chttpd:body_length/1`: a body neither sized nor chunked is missing; one sized 0 is no body.
            let sized = request.header(.contentLength) != nil || request.header(.transferEncoding)?.lowercased().contains("chunked") == true
            guard sized else { throw HTTPFailure.badRequest("Missing request body") }
            if !request.body.isEmpty { body = try request.jsonObjectBody() }
        }
        var parameters = try ChangesParameters(
            request.query, body: body, posted: request.method == .post, lastEventID: request.headers[HTTPField.Name("Last-Event-ID")!], maximumWait: .milliseconds(max(1, configuration.changesTimeout)),
            limits: MatchLimits(regexStepLimit: configuration.regexStepLimit))
        let store = try await authorizedStore(database, for: request.user, access: .member)
        if let designFilter = parameters.designFilter {
            parameters.options.filter = try await changesFilter(designFilter, request: request, store: store, database: database)
            parameters.options.filterSeesRevisions = true
        }
        if parameters.sinceNow { parameters.options.since = try await store.info().updateSeq }
        parameters.resolveSince(inDatabase: store.uuid)
        // Newest first lists every change whatever `since` says (`fabric_view_changes:get_start_seq/2` starts a
        // backwards fold at the database's update sequence).
        if parameters.options.descending { parameters.options.since = 0 }
        let rendering = FeedRendering.documents(of: store)
        // With per-document access the store judges each row's winner before the feed's own filter runs, and
        // counts only visible rows in `pending`; every leaf of a visible document is listed (the winner decides,
        // see ``DocumentAccess``).
        parameters.options.visibility = try await readAccess(of: store, for: request.user).visibility
        let feed = parameters
        switch parameters.feed {
        case .normal:
            // `chttpd:etag_respond/3` with an ETag of the database's state (`make_etag({Info, Suffix})`), whatever
            // the query asks: a client whose copy is of an unchanged database gets `304`.
            let etag = try await Self.changesETag(of: store, for: request.user)
            if request.ifNoneMatch(etag) { return CouchResponse.notModified(headers: [("ETag", etag)]) }
            return CouchResponse.json(
                rendering.result(try await store.changes(feed.options), parameters: feed), headers: [("ETag", etag)])
        case .longpoll:
            let first = try await store.changes(feed.options)
            if !first.results.isEmpty || parameters.options.descending {
                return CouchResponse.json(rendering.result(first, parameters: feed))
            }
            let connection = request.connection
            return streaming(contentType: "application/json") { writer in
                try await Self.longpoll(store: store, parameters: feed, connection: connection, rendering: rendering, writer: &writer)
            }
        case .continuous, .eventsource:
            let eventSource = parameters.feed == .eventsource
            let connection = request.connection
            // CouchDB starts these feeds' response when it first flushes them, at the latest once the feed has
            // caught up (`chttpd_db:changes_callback/2`'s delayed response): a failure before, a filter's say,
            // is an ordinary error response. So the changes already there are read before the response starts.
            // Read newest first, these changes are the whole feed (`keep_sending_changes/8` stops a backwards feed
            // at once).
            let firstPage = feed.options.limit != 0 ? try await store.changes(feed.options) : nil
            return streaming(contentType: eventSource ? "text/event-stream" : "application/json") {
                [firstPage] writer in
                try await Self.continuous(
                    store: store, parameters: feed, eventSource: eventSource, connection: connection, rendering: rendering,
                    firstPage: firstPage, writer: &writer)
            }
        }
    }

    /// A design document's filter function, or a view's map function, as the feed's filter: a change passes
    /// when the function returns true for it (CouchDB's `filter_docs`), or when the map function emits for it
    /// (`filter_view`).
    /// - Throws: ``HTTPFailure`` `404` for a missing design document, or one without that function (`missing json
    ///   key: …`), `501` when the server runs no JavaScript.
    private func changesFilter(
        _ filter: ChangesParameters.DesignFilter, request: CouchRequest, store: DocumentStore, database: String
    ) async throws -> @Sendable (JSONObject) throws -> Bool {
        switch filter {
        case .filter(let ddoc, let function):
            // A `POST` with a body gives the filter the parsed body as `req.body` (`chttpd_db:handle_changes_req`).
            let parsedBody: JSONValue? = request.method == .post && !request.body.isEmpty ? .object(try request.jsonObjectBody()) : nil
            let requestObject = try await self.requestObject(request, store: store, database: database, parsedBody: parsedBody)
            return try await store.changesFilter(ddoc + "/" + function, request: requestObject)
        case .view(let name, let view):
            let ddoc = try await designDocument(name, in: store)
            try Self.requireMember(ddoc, ["views", view])
            let runtime = try designRuntime(language: ddoc["language"]?.stringValue ?? "javascript")
            return { document in
                let answer = try runtime.callDesignFunction(ddoc, path: ["views", view, "map"], arguments: [[.object(document)]], session: nil)
                return answer == [true, [true]]
            }
        }
    }

    func streaming(
        contentType: String, headers: [(String, String)] = [],
        _ body: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void
    ) -> Response {
        let openFeeds = openFeeds
        // An event stream is `no-cache`, as `changes_callback(start, …eventsource…)` and `global_changes_httpd`
        // answer it; the other feeds keep the default `must-revalidate`.
        let headers = contentType == "text/event-stream" ? [("Cache-Control", "no-cache")] + headers : headers
        return Response(
            status: .ok, headers: CouchResponse.baseHeaders(contentType: contentType, extra: headers),
            body: ResponseBody { writer in
                openFeeds.withLock { $0 += 1 }
                defer { openFeeds.withLock { $0 -= 1 } }
                try await body(&writer)
                try await writer.finish(nil)
            })
    }

    /// Waits for the first change (sending heartbeats), then answers every change since `since` at once.
    ///
    /// The wait ends early when the client goes away or the server shuts down.
    static func longpoll(
        store: DocumentStore, parameters: ChangesParameters, connection: ClientConnection?,
        rendering: FeedRendering, writer: inout any ResponseBodyWriter
    ) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + parameters.timeout
        let (events, stop) = FeedEvents.changes(store, options: parameters.options, tick: tickInterval(parameters))
        let watch = connection?.whenClosed(stop)
        defer { if let watch { connection?.forget(watch) } }
        var changed = false
        // A graceful shutdown ends the wait early: the client gets the (empty) answer now, not at timeout.
        try await withGracefulShutdownHandler {
            for await event in events {
                switch event {
                case .item: changed = true
                case .failed(let error): throw error
                case .tick:
                    if clock.now >= deadline { break }
                    if parameters.heartbeat != nil { try await writer.write(ByteBuffer(bytes: [UInt8(ascii: "\n")])) }
                    continue
                }
                break
            }
        } onGracefulShutdown: {
            stop()
        }
        let result: JSONValue
        if changed {
            result = rendering.result(try await store.changes(parameters.options), parameters: parameters)
        } else {
            // Timed out: nothing sent, and `pending` counts what the feed left (a `limit` of 0 leaves every change).
            var rest = parameters.options
            rest.limit = 0
            let pending = rendering.countsPending ? try await store.changes(rest).pending : 0
            result = rendering.result(ChangesResult(results: [], lastSeq: parameters.options.since, pending: pending, hasMore: false))
        }
        try await writer.write(ByteBuffer(bytes: result.jsonBytes() + [UInt8(ascii: "\n")]))
    }

    /// One line per change (or one server-sent event), heartbeats while idle, and a final
    /// `{"last_seq","pending"}` line when `limit` or `timeout` ends the feed, or the server shuts down. The
    /// feed stops when the client goes away.
    ///
    /// - Parameter firstPage: The changes read before the response started; the feed goes on after them. When
    ///   they are none, the response starts with a newline, as CouchDB's does once its feed has caught up with
    ///   nothing to send (`changes_callback(waiting_for_updates, …)`).
    static func continuous(
        store: DocumentStore, parameters: ChangesParameters, eventSource: Bool, connection: ClientConnection?,
        rendering: FeedRendering, firstPage: ChangesResult? = nil, writer: inout any ResponseBodyWriter
    ) async throws {
        let clock = ContinuousClock()
        var lastActivity = clock.now
        var lastSeq = parameters.options.since
        var sent = 0
        let limit = parameters.options.limit ?? Int.max
        func line(_ change: Change) -> [UInt8] {
            let shown = parameters.showsSeq(ofRow: sent)
            let json = rendering.row(change, showingSeq: shown).jsonBytes()
            let id = shown ? UpdateSequence.json(change.seq, uuid: rendering.uuid).jsonBytes() : Array("null".utf8)
            return eventSource ? Array("data: ".utf8) + json + Array("\nid: ".utf8) + id + Array("\n\n".utf8) : json + [10]
        }
        var live = parameters.options
        if let firstPage, limit > 0 {
            for change in firstPage.results.prefix(limit) {
                try await writer.write(ByteBuffer(bytes: line(change)))
                lastSeq = change.seq
                sent += 1
            }
            if sent == 0 { try await writer.write(ByteBuffer(bytes: [10])) }
            if sent < limit { lastSeq = max(lastSeq, firstPage.lastSeq) }
            live.since = lastSeq
            live.limit = parameters.options.limit.map { $0 - sent }
        }
        // Newest first has no live part: the listing ends with its closing line.
        if sent < limit, !(parameters.options.descending && firstPage != nil) {
            let (events, stop) = FeedEvents.changes(store, options: live, tick: tickInterval(parameters))
            let watch = connection?.whenClosed(stop)
            defer { if let watch { connection?.forget(watch) } }
            // A graceful shutdown ends the feed as a timeout would: with its last_seq line.
            try await withGracefulShutdownHandler {
                feed: for await event in events {
                    switch event {
                    case .item(let change):
                        try await writer.write(ByteBuffer(bytes: line(change)))
                        lastSeq = change.seq
                        lastActivity = clock.now
                        sent += 1
                        if sent >= limit { break feed }
                    case .tick:
                        if parameters.heartbeat != nil {
                            try await writer.write(ByteBuffer(bytes: eventSource ? Array("event: heartbeat\ndata: \n\n".utf8) : [10]))
                        } else if clock.now - lastActivity >= parameters.timeout {
                            break feed
                        }
                    case .failed(let error):
                        throw error
                    }
                }
            } onGracefulShutdown: {
                stop()
            }
        }
        if !eventSource {
            var last: JSONObject = ["last_seq": UpdateSequence.json(lastSeq, uuid: rendering.uuid)]
            if rendering.countsPending {
                var rest = ChangesOptions(since: lastSeq, limit: 0)
                rest.visibility = parameters.options.visibility
                // A newest-first listing leaves nothing pending; a database deleted under the feed has none to
                // count, and the feed still ends with its closing line.
                let pending = parameters.options.descending ? 0 : (try? await store.changes(rest).pending) ?? 0
                last["pending"] = .number(JSONNumber(pending))
            }
            try await writer.write(ByteBuffer(bytes: JSONValue.object(last).jsonBytes() + [10]))
        }
    }

    /// The ETag of a normal feed: a digest of the database's info (counts, sequences, sizes), its creation time
    /// and the user (whose view of it per-document access may narrow), in base 36, quoted.
    static func changesETag(of store: DocumentStore, for user: UserContext) async throws -> String {
        let info = try await store.info()
        let state = info.json.jsonBytes() + Array(info.instanceStartTime.utf8) + [0] + Array((user.name ?? "").utf8)
        return "\"" + Base36.encode(AttachmentDigest.md5(state)) + "\""
    }

    /// Heartbeats at their interval; without them, check the timeout a few times per period.
    private static func tickInterval(_ parameters: ChangesParameters) -> Duration {
        if let heartbeat = parameters.heartbeat { return heartbeat }
        return max(.milliseconds(10), parameters.timeout / 4)
    }
}

/// How a feed shows its changes: a database's `_changes` shows document changes with `pending`; `/_db_updates`
/// shows database events (``DatabaseUpdates``) without it.
struct FeedRendering: Sendable {
    /// One change as a result row or continuous line.
    var row: @Sendable (Change) -> JSONValue
    /// Whether the closing line and the answer count the changes still pending.
    var countsPending: Bool
    /// The uuid of the database the feed reads, which its sequences carry (``UpdateSequence/string(_:uuid:)``).
    var uuid = ""

    /// A database's `_changes`.
    static func documents(of store: DocumentStore) -> FeedRendering {
        FeedRendering(row: { $0.json }, countsPending: true, uuid: store.uuid)
    }

    /// One change's row, its `seq` `null` unless `showingSeq` (``ChangesParameters/showsSeq(ofRow:)``).
    func row(_ change: Change, showingSeq: Bool) -> JSONValue {
        var json = row(change)
        if case .object(var object) = json, object["seq"] != nil {
            object["seq"] = showingSeq ? UpdateSequence.json(change.seq, uuid: uuid) : .null
            json = .object(object)
        }
        return json
    }

    /// A whole answer: `results` and `last_seq`, and `pending` when counted; with `parameters`, each row shows
    /// its `seq` as ``ChangesParameters/showsSeq(ofRow:)`` says.
    func result(_ changes: ChangesResult, parameters: ChangesParameters? = nil) -> JSONValue {
        let rows = changes.results.enumerated().map { index, change in
            row(change, showingSeq: parameters?.showsSeq(ofRow: index) ?? true)
        }
        var answer: JSONObject = ["results": .array(rows), "last_seq": UpdateSequence.json(changes.lastSeq, uuid: uuid)]
        if countsPending { answer["pending"] = .number(JSONNumber(changes.pending)) }
        return .object(answer)
    }
}
