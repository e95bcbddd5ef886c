/// Runs the functions design documents hold (map and reduce functions, `validate_doc_update`, filters,
/// shows, lists, updates and rewrites): what CouchDB's query server does, in the process.
///
/// The store and the server know design functions only through this protocol, so a program that never runs
/// them links no engine: the JavaScript engine is its own product, `CloudantJavaScript`, and a store or
/// server opts in by being given one (`JavaScriptEngine` there conforms). The commands are CouchDB's
/// query-server protocol (`add_fun` + `map_doc`, `reduce`, `rereduce`, `ddoc`), and their results are the
/// JSON that protocol answers with, so the rules that read them (couch_query_servers, chttpd_show) are
/// written once, in the store and the server, whatever the engine.
///
/// ```swift
/// let mapper = try runtime.makeMapper(MapFunctionSet(sources: ["function(doc) { emit(doc.type, 1) }"]))
/// let rows = try mapper.map(documents: [#"{"_id":"a","type":"walk"}"#.utf8].map(Array.init))
/// // rows[0][0] == [EmittedRow(key: "walk", value: 1)]
/// ```
public protocol DesignFunctionRuntime: AnyObject, Sendable {
    /// The `language` values of design documents this runtime runs (CouchDB's default is `javascript`).
    var languages: Set<String> { get }

    /// Compiles one function as CouchDB does when a design document is saved, to refuse one that cannot run.
    ///
    /// - Throws: a `CloudantError` with code `designFunctionFailed`, whose `designFunctionError` is named `compilation_error` whose reason is the engine's message.
    func compile(_ source: String) throws

    /// Compiles the map functions of one view index, to run over documents batch after batch.
    ///
    /// - Throws: a `CloudantError` with code `designFunctionFailed`, whose `designFunctionError` is `compilation_error` for a function that does not compile.
    func makeMapper(_ functions: MapFunctionSet) throws -> any DocumentMapper

    /// Runs reduce functions over rows (CouchDB's `reduce` command): one result per function.
    ///
    /// A function that throws gives `null`, as CouchDB's query server does; a result that does not shrink
    /// fast enough is a `CloudantError` with code `designFunctionFailed`, whose `designFunctionError` is `reduce_overflow_error`.
    /// - Parameters:
    ///   - sources: The reduce functions' source, one result each.
    ///   - rows: `[[key, docid], value]` per row, as CouchDB sends them.
    ///   - context: Names the view in messages (`"ddoc/view"`).
    func reduce(_ sources: [String], rows: [JSONValue], context: String) throws -> [JSONValue]

    /// Runs reduce functions over earlier reductions (CouchDB's `rereduce` command): one result per function.
    func rereduce(_ sources: [String], values: [JSONValue], context: String) throws -> [JSONValue]

    /// Runs a function of a design document (CouchDB's `ddoc` command) and returns the query server's answer.
    ///
    /// `path` names the function (`["shows", "detail"]`, `["validate_doc_update"]`, `["filters", "mine"]`,
    /// `["views", "by_type", "map"]` for a view used as a changes filter, `["updates", "touch"]`,
    /// `["lists", "csv"]`, `["rewrites"]`), and `arguments` are the command's. The answer is the JSON the query
    /// server prints: `1` or a thrown object for validation, `[true, [bool…]]` for filters, `["resp", {…}]` for
    /// shows, `["up", doc, {…}]` for updates, `["ok", {…}]` or `["no_dispatch_rule"]` for rewrites, and for lists
    /// `["end", [chunk…]]` after `session` was asked for every row.
    ///
    /// - Parameters:
    ///   - designDocument: The design document the function belongs to.
    ///   - path: The function's place in it (above).
    ///   - arguments: The command's arguments.
    ///   - session: For lists, what `getRow()` reads rows from and where the chunks sent go.
    /// - Throws: a `CloudantError` with code `designFunctionFailed`, whose `designFunctionError` is: the `["error", name, reason]` a function's failure becomes.
    func callDesignFunction(
        _ designDocument: JSONObject, path: [String], arguments: [JSONValue], session: (any ListSession)?
    ) throws -> JSONValue

    /// The engine as `/_node/{node}/_versions` names it in `javascript_engine` (`{"name": …, "version": …}`).
    var engineDescription: JSONValue { get }

    /// Starts afresh, as CouchDB's `POST /_reload_query_servers` restarts its query servers: instances at
    /// rest are dropped and those running a call are dropped when it returns, so every later call runs in a new
    /// instance (a function's global state, a module read by `require`, are gone). Calls in flight finish.
    func reload()
}

extension DesignFunctionRuntime {
    /// An engine that does not name itself: `{"name": "unknown"}`.
    public var engineDescription: JSONValue { ["name": "unknown"] }

    /// A runtime that keeps nothing between calls has nothing to start afresh.
    public func reload() {}
}

/// The map functions of one view index, with the design document's CommonJS modules (`views.lib`).
public struct MapFunctionSet: Sendable, Hashable {
    /// The functions' source text, in the index's view order.
    public var sources: [String]
    /// `views.lib` of the design document, which `require("views/lib/…")` reads; nil when it has none.
    public var lib: JSONValue?

    /// Creates a set of map functions.
    public init(sources: [String], lib: JSONValue? = nil) {
        self.sources = sources
        self.lib = lib
    }
}

/// One row a map function emitted.
public struct EmittedRow: Sendable, Hashable {
    /// The row's key (`null` when the function emitted `undefined`).
    public var key: JSONValue
    /// The row's value (`null` when the function emitted none).
    public var value: JSONValue

    /// Creates a row.
    public init(key: JSONValue, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// Map functions compiled once and run over documents in batches.
///
/// A mapper is used by one task at a time (a view index's updater); it is `Sendable` so that task may move
/// between threads.
public protocol DocumentMapper: AnyObject, Sendable {
    /// Runs every function over each document (CouchDB's `map_doc`), in order.
    ///
    /// A function that throws for a document emits nothing for it, and the failure is logged, as CouchDB does;
    /// the other documents and functions are not affected.
    /// - Parameter documents: Each document's JSON text (an object with `_id` and `_rev`).
    /// - Returns: For each document, for each function, the rows it emitted.
    /// - Throws: a `CloudantError` with code `designFunctionFailed`, whose `designFunctionError` is when a function runs past the time limit (`os_process_error`) or
    ///   raises CouchDB's `fatal_error`; nothing of the batch is returned then.
    func map(documents: [[UInt8]]) throws -> [[[EmittedRow]]]
}

/// Where a list function's rows come from and its output goes: `getRow()` in the function asks for the next
/// row, handing over what it sent since.
public protocol ListSession: AnyObject {
    /// The list function asked for a row.
    ///
    /// - Parameters:
    ///   - chunks: The text the function sent (`send`) since it last asked.
    ///   - start: The first time only: the response head from `start({…})` (code and headers, with the
    ///     content type `provides` chose), which must go out before any chunk.
    /// - Returns: The next row (`{"id","key","value"}` and maybe `"doc"`), or nil after the last.
    func nextRow(sending chunks: [String], start: JSONObject?) throws -> JSONValue?
}
