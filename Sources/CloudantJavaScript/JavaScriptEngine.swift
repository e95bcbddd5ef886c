public import CloudantCore
internal import Foundation

/// The JavaScript engine design functions run in: JavaScriptCore, through the C API that Debian's
/// `libjavascriptcoregtk-4.1` and Apple's JavaScriptCore framework share, with a query server that behaves
/// as CouchDB 3.5's (see the CloudantJavaScript documentation for how it was chosen and measured).
///
/// Give one to a store (`StoreOptions.designFunctions`) or a server to run the views, validation functions,
/// filters, shows, lists, updates and rewrites of design documents written in JavaScript:
///
/// ```swift
/// let engine = JavaScriptEngine()
/// var options = StoreOptions()
/// options.designFunctions = engine
/// let store = try DocumentStore.open(name: "clinic", options: options)
/// ```
///
/// Functions run with CouchDB's helpers and nothing else: no file, network or process access, no timers.
/// Each call may run for ``Configuration/timeLimit``; a function that runs longer (a loop that never ends)
/// is stopped inside the engine, its call fails with CouchDB's `os_process_error`, and the instance that ran
/// it is replaced, as CouchDB replaces a query server process that timed out. Instances are made as calls
/// need them, up to ``Configuration/maximumInstances`` at once.
public final class JavaScriptEngine: DesignFunctionRuntime {
    /// What CouchDB's `[query_server_config] reduce_limit` says about reduce output that does not shrink.
    public enum ReduceLimit: Sendable, Hashable {
        /// Refuse it with `reduce_overflow_error` (CouchDB's default), when the output is longer than
        /// `threshold` characters and more than `1 / ratio` of the input.
        case enforced(threshold: Int = 5000, ratio: Double = 2.0)
        /// Log it and keep the output.
        case logged(threshold: Int = 5000, ratio: Double = 2.0)
        /// Never check.
        case off

        var configurationJSON: String {
            let (mode, threshold, ratio): (String, Int, Double) =
                switch self {
                case .enforced(let threshold, let ratio): ("true", threshold, ratio)
                case .logged(let threshold, let ratio): ("log", threshold, ratio)
                case .off: ("false", 5000, 2.0)
                }
            let object: JSONValue = [
                "reduce_limit": .string(mode), "reduce_limit_threshold": .number(JSONNumber(threshold)),
                "reduce_limit_ratio": .number(JSONNumber(ratio)),
            ]
            return object.jsonString()
        }
    }

    /// How the engine runs functions.
    public struct Configuration: Sendable {
        /// How long one call may run: a map over one document, a reduce, a show, a validation
        /// (CouchDB's `os_process_timeout`, 5 s).
        public var timeLimit: Duration
        /// The reduce output check (CouchDB's `reduce_limit`).
        public var reduceLimit: ReduceLimit
        /// The most engine instances that run at once; further calls wait for one.
        public var maximumInstances: Int
        /// Where `log()` lines and the exceptions of map functions go (CouchDB writes them to its log).
        public var log: @Sendable (String) -> Void

        /// Creates a configuration with CouchDB's defaults; `log` lines go to standard error.
        public init(
            timeLimit: Duration = .seconds(5), reduceLimit: ReduceLimit = .enforced(),
            maximumInstances: Int = JavaScriptEngine.defaultMaximumInstances,
            log: @escaping @Sendable (String) -> Void = JavaScriptEngine.standardErrorLog
        ) {
            self.timeLimit = timeLimit
            self.reduceLimit = reduceLimit
            self.maximumInstances = maximumInstances
            self.log = log
        }
    }

    /// Two instances, or one per processor core when there are more.
    public static var defaultMaximumInstances: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }

    /// Writes a `log()` line to standard error, as `[javascript] message`.
    public static let standardErrorLog: @Sendable (String) -> Void = { message in
        FileHandle.standardError.write(Data(("[javascript] " + message + "\n").utf8))
    }

    /// How this engine runs functions.
    public let configuration: Configuration
    let pool: ContextPool

    /// Creates an engine; instances are made when the first call needs one.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        pool = ContextPool(configuration: configuration)
    }

    /// `["javascript"]`.
    public var languages: Set<String> { ["javascript"] }

    /// Drops the engine's instances: those at rest now, those lent to a call when it returns. Later calls
    /// make new ones (see `DesignFunctionRuntime.reload()`).
    public func reload() {
        pool.reload()
    }

    /// `{"name": "javascriptcore", "version": "2.44.3"}`: WebKitGTK's JavaScriptCore and its version
    /// (`"unavailable"` where the library cannot be loaded; every call then fails with `os_process_error`).
    public var engineDescription: JSONValue {
        ["name": "javascriptcore", "version": .string(JavaScriptCoreLibrary.version ?? "unavailable")]
    }

    /// Compiles one function in a sandbox of its own.
    ///
    /// - Throws: `CloudantError` `.designFunctionFailed`, named `compilation_error` with the engine's message.
    public func compile(_ source: String) throws {
        try pool.withContext { try $0.compile(source) }
    }

    /// Compiles a view index's map functions, once per engine instance that runs them.
    ///
    /// - Throws: `CloudantError` `.designFunctionFailed`, named `compilation_error`.
    public func makeMapper(_ functions: MapFunctionSet) throws -> any DocumentMapper {
        let mapper = JavaScriptMapper(pool: pool, functions: functions)
        try mapper.prepare()
        return mapper
    }

    /// Runs reduce functions (CouchDB's `reduce` command).
    ///
    /// - Throws: `CloudantError` `.designFunctionFailed`, named `compilation_error`, `reduce_overflow_error`, or
    ///   `os_process_error` past the time limit.
    public func reduce(_ sources: [String], rows: [JSONValue], context: String) throws -> [JSONValue] {
        try results(of: pool.withContext { try $0.reduce(sources, input: .array(rows), context: context, rereduce: false) })
    }

    /// Runs reduce functions over earlier reductions (CouchDB's `rereduce` command).
    ///
    /// - Throws: as ``reduce(_:rows:context:)``.
    public func rereduce(_ sources: [String], values: [JSONValue], context: String) throws -> [JSONValue] {
        try results(of: pool.withContext { try $0.reduce(sources, input: .array(values), context: context, rereduce: true) })
    }

    /// Runs a function of a design document (CouchDB's `ddoc` command).
    ///
    /// - Throws: `CloudantError` `.designFunctionFailed`, named as the function's failure is reported by CouchDB's
    ///   query server.
    public func callDesignFunction(
        _ designDocument: JSONObject, path: [String], arguments: [JSONValue], session: (any ListSession)?
    ) throws -> JSONValue {
        try pool.withContext { try $0.callDesignFunction(designDocument, path: path, arguments: arguments, session: session) }
    }

    /// Maps documents (each one's JSON, joined into one array per `batch`) with `functions` and returns the
    /// engine's answers as it wrote them, unread: the engine's own share of a view build, which the benchmarks
    /// compare the store's build with.
    package func mapText(_ functions: MapFunctionSet, documents: [[UInt8]], batch: Int = 1000) throws -> Int {
        let mapper = JavaScriptMapper(pool: pool, functions: functions)
        try mapper.prepare()
        return try mapper.mapText(documents: documents, batch: batch)
    }

    private func results(of answer: JSONValue) throws -> [JSONValue] {
        guard case .array(let pair) = answer, pair.count == 2, case .array(let reductions) = pair[1] else {
            throw DesignFunctionError(name: "InternalError", reason: "The query server gave an answer it should not.").error
        }
        return reductions
    }
}
