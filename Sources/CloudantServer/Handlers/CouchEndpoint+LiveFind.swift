internal import CloudantCore
internal import CloudantStore
internal import Hummingbird
internal import ServiceLifecycle

extension CouchEndpoint {
    /// `POST /{db}/_find?feed=eventsource|continuous` (the query in the body) and
    /// `GET /{db}/_find?feed=eventsource|continuous&query={…}` (for a browser's `EventSource`, which can only
    /// `GET`): a live query. Not in CouchDB, which answers `_find` once.
    ///
    /// The response streams the query's result now, then each new result after a commit changes it (see
    /// `DocumentStore.observe(_:limits:visibility:)`): with `eventsource`, one server-sent event per
    /// result, `data: {"docs":[…],"seq":N}` with `id: N`; with `continuous`, one JSON line per result.
    /// `heartbeat=ms` (or `true`, 60 s) sends a heartbeat (`event: heartbeat` / an empty line) while idle.
    /// The feed runs until the client goes away or the server shuts down.
    /// - Throws: ``HTTPFailure`` `400` for an unknown feed, a missing or malformed `query`, or a bad query.
    func liveFind(_ request: CouchRequest, database: String, partition: String?) async throws -> Response {
        guard let feed = request.query["feed"], feed == "eventsource" || feed == "continuous" else {
            throw HTTPFailure.badRequest("A live `_find` takes `feed=eventsource` or `feed=continuous`.")
        }
        let body: JSONObject
        switch request.method {
        case .get:
            guard let query = try request.query.json("query") else {
                throw HTTPFailure.badRequest("A live `GET _find` takes the query as JSON in the `query` parameter.")
            }
            guard let object = query.objectValue else { throw HTTPFailure.badRequest("The `query` parameter must be a JSON object.") }
            body = object
        case .post:
            try request.requireJSONContentType()
            body = try request.jsonObjectBody()
        default:
            throw unsupported("GET,POST")
        }
        let store = try await authorizedStore(database, for: request.user, access: .member)
        var find = try Self.findRequest(body, partition: partition)
        let visibility = try await readAccess(of: store, for: request.user).visibility
        // A live query is answered by the store's engine; the one-shot `no_usable_index` rule (CouchDB's
        // refusal of a sort no index serves) would end the feed before it starts for no benefit.
        find.unservedSort = .sortInMemory
        let heartbeat = try ChangesParameters.heartbeat(request.query, maximumWait: .milliseconds(max(1, configuration.changesTimeout)))
        let results = store.observe(find, limits: findLimits, visibility: visibility)
        let eventSource = feed == "eventsource"
        let connection = request.connection
        return streaming(contentType: eventSource ? "text/event-stream" : "application/json") { writer in
            let (events, stop) = FeedEvents.stream(results, tick: heartbeat ?? .seconds(3600))
            let watch = connection?.whenClosed(stop)
            defer { if let watch { connection?.forget(watch) } }
            try await withGracefulShutdownHandler {
                for await event in events {
                    switch event {
                    case .item(let result):
                        let json = result.json.jsonBytes()
                        let frame = eventSource ? Array("data: ".utf8) + json + Array("\nid: \(result.seq)\n\n".utf8) : json + [10]
                        try await writer.write(ByteBuffer(bytes: frame))
                    case .tick:
                        guard heartbeat != nil else { continue }
                        try await writer.write(ByteBuffer(bytes: eventSource ? Array("event: heartbeat\ndata: \n\n".utf8) : [10]))
                    case .failed(let error):
                        // Headers are sent: the error travels in the feed, as CouchDB's continuous feeds do.
                        let reason = (error as? CloudantError)?.message ?? "The live query stopped."
                        let failure: JSONValue = ["error": "query_failed", "reason": .string(reason)]
                        let frame = eventSource ? Array("event: error\ndata: ".utf8) + failure.jsonBytes() + Array("\n\n".utf8) : failure.jsonBytes() + [10]
                        try await writer.write(ByteBuffer(bytes: frame))
                        stop()
                    }
                }
            } onGracefulShutdown: {
                stop()
            }
        }
    }
}
