internal import CloudantCore
internal import CloudantStore

/// A `_changes` request's parameters, parsed with CouchDB's errors.
struct ChangesParameters: Sendable {
    /// How results are delivered.
    enum Feed: String, Sendable {
        case normal, longpoll, continuous, eventsource
    }

    var feed: Feed
    /// A design document's filter function (`filter=ddoc/name`) or view (`filter=_view&view=ddoc/name`), which
    /// the endpoint turns into ``ChangesOptions/filter`` once it has read the design document.
    var designFilter: DesignFilter?
    /// The store-level options (since, limit, style, filters, include_docs…).
    var options: ChangesOptions
    /// `since=now`: start at the current update sequence.
    var sinceNow: Bool
    /// The `since` given, with the uuid of the database it came from when it names one: the feed starts from `0`
    /// in another database (``UpdateSequence/Since/start(inDatabase:)``).
    var since: UpdateSequence.Since?
    /// Newline heartbeats while idle (`heartbeat`, ms; `true` is 60 s).
    var heartbeat: Duration?
    /// How long a longpoll or continuous feed waits with nothing to send (`timeout`, default and at most
    /// the server's `changesTimeout`, 60 s).
    var timeout: Duration
    /// `seq_interval` (``seqInterval(_:)``).
    var seqInterval: Int?
    /// What CouchDB's feed counts down from as it sends rows: the `limit` given, as given, or its default.
    private var countdown = 1_000_000_000_000_000

    /// Whether the feed's row at `index` (from 0) shows its `seq`. With `seq_interval`, `fabric_view_changes`
    /// sends `null` instead but where the rows the limit still allows, counting this one, are a multiple of
    /// the interval (`Limit rem Interval == 0`), so a client reading a batch of that size gets one `seq` per
    /// batch; every row shows it otherwise.
    func showsSeq(ofRow index: Int) -> Bool {
        guard let seqInterval else { return true }
        return (countdown - index) % seqInterval == 0
    }

    /// Parses the query string and, for `POST`, the body's `doc_ids` or `selector`.
    ///
    /// - Parameters:
    ///   - maximumWait: CouchDB's `changes_timeout`: `timeout` and `heartbeat` are cut to it, and it is the
    ///     default `timeout` (`couch_changes:get_changes_timeout/2`).
    ///   - limits: Bounds each `$regex` of a `_selector` filter.
    /// - Throws: ``HTTPFailure`` `400` as CouchDB (and 400 where CouchDB answers 500).
    ///   - lastEventID: The `Last-Event-ID` header, which an `eventsource` feed resumes from (a browser
    ///     reconnecting sends it) instead of the query's `since`.
    /// - Parameter posted: The request is a `POST`, whose `doc_ids` and `selector` come from its body only; an
    ///   empty body has none to give (`400 invalid UTF-8 JSON` when a filter asks for them, as CouchDB decodes
    ///   the empty body then).
    init(
        _ given: QueryParameters, body: JSONObject?, posted: Bool = false, lastEventID: String? = nil,
        maximumWait: Duration = .milliseconds(60_000), limits: MatchLimits = .default
    ) throws {
        // `chttpd_db:parse_changes_query/1` matches the names in lower case; `view` and `doc_ids` are read from
        // the query as given.
        let query = given.lowercasingNames()
        // `live` is CouchDB's alias of `continuous`.
        let feedName = query["feed"] == "live" ? "continuous" : query["feed"] ?? "normal"
        guard let feed = Feed(rawValue: feedName) else {
            throw HTTPFailure.badRequest("Supported `feed` types: normal, continuous, live, longpoll, eventsource")
        }
        self.feed = feed
        var options = ChangesOptions()
        // `since` and its synonym `last-event-id`, the later one winning; an eventsource feed's header wins.
        var since = query.lastGiven(of: ["since", "last-event-id"])
        if feed == .eventsource, let lastEventID { since = lastEventID }
        sinceNow = since == "now"
        if let since, !sinceNow {
            let parsed = try Self.parseSeq(since)
            self.since = parsed
            options.since = parsed.seq
        }
        if let limit = try query.int("limit") {
            options.limit = limit < 0 ? nil : limit
            countdown = limit
        }
        // Options are on for `true` only; other values are ignored, as CouchDB's `{Key, "true"}` clauses do.
        options.descending = query.flag("descending")
        if let style = query["style"] {
            guard let parsed = ChangesOptions.Style(rawValue: style) else {
                throw HTTPFailure.badRequest("Invalid style: \(style). Supported styles: main_only, all_docs")
            }
            options.style = parsed
        }
        options.includeDocs = query.flag("include_docs")
        options.conflicts = query.flag("conflicts")
        options.attachments = query.flag("attachments")
        options.attachmentEncodingInfo = query.flag("att_encoding_info")
        seqInterval = try Self.seqInterval(query)
        switch query["filter"] {
        case nil: break
        case "_doc_ids":
            if posted, body == nil { throw HTTPFailure.badRequest("invalid UTF-8 JSON") }
            // `chttpd_db:get_doc_ids/1`: a `POST`'s ids are in its body, a `GET`'s in its query.
            let ids = try posted ? body?["doc_ids"] : given.json("doc_ids")
            guard let list = ids?.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw HTTPFailure.badRequest("`doc_ids` filter parameter is not a list of doc ids.")
            }
            options.documentIDs = list.compactMap(\.stringValue)
        case "_selector":
            // `couch_changes:get_selector_and_fields/1`: a selector comes in a `POST`'s body only, and must be
            // an object; `fields` (an array) trims the documents `include_docs` adds (`mango_fields:extract/2`).
            // The selector's own errors are `bad_request`s with mango's reason (`check_selector/1`).
            if posted, body == nil { throw HTTPFailure.badRequest("invalid UTF-8 JSON") }
            guard let body else { throw HTTPFailure.badRequest("Selector must be specified in POST payload") }
            guard let selectorJSON = body["selector"], case .object = selectorJSON else {
                throw HTTPFailure.badRequest("Selector error: expected a JSON object")
            }
            let selector: MangoSelector
            do {
                selector = try MangoSelector(selectorJSON)
            } catch {
                throw HTTPFailure.badRequest(error.message)
            }
            options.filter = { try selector.matches($0, limits: limits) }
            options.fields = try body["fields"].flatMap(Self.selectorFields)
        case "_design":
            options.filter = { $0["_id"]?.stringValue?.hasPrefix("_design/") == true }
        case "_view":
            let view = given["view"] ?? ""
            guard !view.isEmpty else { throw HTTPFailure.badRequest("`view` filter parameter is not provided.") }
            let parts = view.split(separator: "/").map(String.init)
            guard parts.count == 2 else { throw HTTPFailure.badRequest("`view` must be of the form `designname/viewname`") }
            designFilter = .view(designDocument: parts[0], name: parts[1])
        case let other? where other.hasPrefix("_"):
            throw HTTPFailure.badRequest("unknown builtin filter name")
        case let other?:
            // `designname/filtername`; CouchDB splits at every `/` and drops empty parts.
            let parts = other.split(separator: "/").map(String.init)
            switch parts.count {
            case 0: break
            case 2: designFilter = .filter(designDocument: parts[0], name: parts[1])
            default: throw HTTPFailure.badRequest("`filter` must be of the form `designname/filtername`")
            }
        }
        self.options = options
        heartbeat = try Self.heartbeat(query, maximumWait: maximumWait)
        // CouchDB: timeout = min(changes_timeout, timeout), so no client can hold a feed open longer.
        let requested = try query.int("timeout").map { Duration.milliseconds(max(0, $0)) } ?? maximumWait
        timeout = min(requested, maximumWait)
    }

    /// A `_selector` filter's `fields` (`couch_changes:check_fields/1`): an array of field names, `[]` for
    /// whole documents.
    private static func selectorFields(_ json: JSONValue) throws -> [FieldPath]? {
        guard case .array(let names) = json else { throw HTTPFailure.badRequest("Selector error: fields must be JSON array") }
        var paths: [FieldPath] = []
        for name in names {
            guard case .string(let text) = name else {
                throw HTTPFailure.badRequest("Invalid JSON for field spec: " + ErlangTerm.format(name, printable: false))
            }
            do {
                paths.append(try FieldPath(parsing: text))
            } catch {
                throw HTTPFailure.badRequest(error.message)
            }
        }
        return paths.isEmpty ? nil : paths
    }

    /// `seq_interval`: every row's `seq` is `null` but those where the rows the limit still allows are a
    /// multiple of it (and so, without a limit, every row whose count from CouchDB's default limit is).
    /// - Throws: ``HTTPFailure`` `400 bad_request` "invalid_seq_interval" for anything but a positive integer.
    static func seqInterval(_ query: QueryParameters) throws -> Int? {
        guard let text = query["seq_interval"] else { return nil }
        guard let interval = Int(text), interval > 0 else { throw HTTPFailure.badRequest("invalid_seq_interval") }
        return interval
    }

    /// A design document's function a feed is filtered by.
    enum DesignFilter: Sendable {
        case filter(designDocument: String, name: String)
        case view(designDocument: String, name: String)
    }

    /// `heartbeat`: milliseconds (cut to `maximumWait`), `true` for `maximumWait`, nil without one.
    /// - Throws: ``HTTPFailure`` `400` with `chttpd_db:parse_changes_query/1`'s reasons: a whole number that is
    ///   not positive, or anything else (`false` included) that is not one.
    static func heartbeat(_ query: QueryParameters, maximumWait: Duration) throws -> Duration? {
        guard let heartbeat = query["heartbeat"] else { return nil }
        if heartbeat == "true" { return maximumWait }
        guard let milliseconds = Int(heartbeat) else {
            throw HTTPFailure.badRequest("Invalid heartbeat value. Expecting a positive integer value (in milliseconds).")
        }
        guard milliseconds > 0 else {
            throw HTTPFailure.badRequest("The heartbeat value should be a positive integer (in milliseconds).")
        }
        return min(.milliseconds(milliseconds), maximumWait)
    }

    /// A `since` value in any form `UpdateSequence.since(_:)` reads.
    private static func parseSeq(_ text: String) throws -> UpdateSequence.Since {
        guard let since = UpdateSequence.since(text) else {
            throw HTTPFailure.badRequest("Malformed sequence supplied in 'since' parameter.")
        }
        return since
    }

    /// Starts the feed where `since` says in the database whose uuid is `uuid`: from `0` when it names another.
    mutating func resolveSince(inDatabase uuid: String) {
        if let since { options.since = since.start(inDatabase: uuid) }
    }
}
