internal import CJavaScriptCore
internal import CloudantCore
internal import Foundation

/// One instance of the engine: a JavaScriptCore context group with the query server loaded
/// (``QueryServerScript``), the sandboxes design functions run in, and the design documents and view
/// indexes it has compiled.
///
/// JavaScriptCore lets one thread at a time use a context group; ``ContextPool`` hands each instance to one
/// caller at a time, which is what makes the `@unchecked Sendable` below sound: nothing here is touched
/// outside a checkout. A function that runs past the time limit is stopped inside the engine; the instance
/// is then thrown away (``isBroken``), as CouchDB kills a query server process that timed out.
final class JavaScriptContext: @unchecked Sendable {
    let group: JSContextGroupRef
    let runtime: JSGlobalContextRef
    /// The query server's entry points (`__queryServer`), set once its script has run.
    private var queryServer: JSObjectRef?
    private let hostClass: JSClassRef
    private var hostFunctions: [HostFunction] = []
    private var sandboxes: [Int: JSGlobalContextRef] = [:]
    private var nextSandbox = 1
    private let watchdog: Watchdog
    private let log: @Sendable (String) -> Void

    /// The list function's rows and output while one runs.
    private var listSession: (any ListSession)?
    /// An error `listSession` threw inside `getRow()`, reported once the list function returns.
    private var listFailure: (any Error)?

    /// The design documents this instance has loaded: id → revision.
    private(set) var designDocuments: [String: String] = [:]
    /// The view indexes' map functions this instance has compiled (see ``JavaScriptMapper``).
    private(set) var mapSets: Set<Int> = []
    /// Set once a function ran past the time limit or the query server reported a fatal error.
    private(set) var isBroken = false
    /// The pool's reload count when the pool made this instance (``ContextPool/reload()``); read and written
    /// under the pool's lock.
    var reloadGeneration = 0

    /// - Parameters:
    ///   - timeLimit: How long one call may run.
    ///   - reduceLimit: The query server configuration's reduce limit.
    ///   - log: Where `log()` lines go.
    init(timeLimit: Duration, reduceLimit: JavaScriptEngine.ReduceLimit, log: @escaping @Sendable (String) -> Void) throws {
        self.log = log
        try JavaScriptCoreLibrary.load()
        JavaScriptCoreTiers.configure()
        group = JSContextGroupCreate()
        runtime = JSGlobalContextCreateInGroup(group, nil)
        Self.forbidRuntimeCompilation(in: runtime)
        watchdog = Watchdog()
        var definition = JSClassDefinition()
        definition.callAsFunction = hostCallback
        hostClass = JSClassCreate(&definition)
        let seconds = Double(timeLimit.components.seconds) + Double(timeLimit.components.attoseconds) / 1e18
        JSContextGroupSetExecutionTimeLimit(group, seconds, shouldTerminate, Unmanaged.passUnretained(watchdog).toOpaque())

        let host = JSObjectMake(runtime, nil, nil)
        for kind in HostFunction.Kind.allCases {
            let function = HostFunction(owner: self, kind: kind)
            hostFunctions.append(function)
            let object = JSObjectMake(runtime, hostClass, Unmanaged.passUnretained(function).toOpaque())
            JSText.setProperty(kind.rawValue, of: host, to: object, in: runtime)
        }
        JSText.setProperty("__host", of: JSContextGetGlobalObject(runtime), to: host, in: runtime)
        var exception: JSValueRef?
        _ = JSText.evaluate(QueryServerScript.source, named: "query-server.js", in: runtime, exception: &exception)
        if let exception { throw DesignFunctionError(name: "InternalError", reason: Self.string(of: exception, in: runtime) ?? "", isFatal: true).error }
        guard
            let server = JSText.property("__queryServer", of: JSContextGetGlobalObject(runtime), in: runtime),
            let object = JSValueToObject(runtime, server, nil)
        else { throw DesignFunctionError(name: "InternalError", reason: "The query server did not load.", isFatal: true).error }
        queryServer = object
        JSValueProtect(runtime, object)
        let configuration = reduceLimit.configurationJSON
        _ = try call("configure", [configuration], expectingAnswer: false)
    }

    deinit {
        for (_, sandbox) in sandboxes { JSGlobalContextRelease(sandbox) }
        if let queryServer { JSValueUnprotect(runtime, queryServer) }
        JSGlobalContextRelease(runtime)
        JSClassRelease(hostClass)
        JSContextGroupRelease(group)
    }

    // MARK: Commands

    /// Compiles a function in a throw-away sandbox.
    func compile(_ source: String) throws {
        _ = try call("compile", [source])
    }

    /// Compiles a view index's map functions under `id`.
    func addMapSet(_ id: Int, _ functions: MapFunctionSet) throws {
        let sources = JSONValue.array(functions.sources.map(JSONValue.string)).jsonString()
        _ = try call("addMapSet", [String(id), sources, (functions.lib ?? .null).jsonString()])
        mapSets.insert(id)
    }

    /// Forgets a view index's map functions.
    func dropMapSet(_ id: Int) {
        guard mapSets.remove(id) != nil else { return }
        _ = try? call("dropMapSet", [String(id)], expectingAnswer: false)
    }

    /// Maps a batch of documents (a JSON array's text) with the functions compiled under `id`.
    func map(_ id: Int, documents: [UInt8]) throws -> JSONValue {
        try call("map", [.text(String(id)), .bytes(documents)])
    }

    /// Maps a batch as ``map(_:documents:)`` does and returns the query server's answer as it wrote it,
    /// unread: what the engine alone costs, for the benchmarks' floor.
    func mapText(_ id: Int, documents: [UInt8]) throws -> [UInt8] {
        guard let queryServer,
            let function = JSText.property("map", of: queryServer, in: runtime).flatMap({ JSValueToObject(runtime, $0, nil) })
        else { throw DesignFunctionError(name: "unknown_command", reason: "unknown command 'map'", isFatal: true).error }
        // Each value is protected as it is made: the array's storage is not a root the collector scans, and
        // making the next value may collect.
        let values: [JSValueRef?] = [protected(JSText.value(String(id), in: runtime)), protected(JSText.value(utf8: documents, in: runtime))]
        defer { for value in values { JSValueUnprotect(runtime, value) } }
        var exception: JSValueRef?
        let result = values.withUnsafeBufferPointer { buffer in
            JSObjectCallAsFunction(runtime, function, nil, buffer.count, buffer.baseAddress, &exception)
        }
        guard exception == nil, let result, let bytes = Self.utf8(of: result, in: runtime) else {
            throw DesignFunctionError(name: "InternalError", reason: "The query server gave no answer.", isFatal: true).error
        }
        return bytes
    }

    /// Runs reduce functions over `[[key, id], value]` rows, or rereduces earlier results.
    func reduce(_ sources: [String], input: JSONValue, context: String, rereduce: Bool) throws -> JSONValue {
        let sourceText = JSONValue.array(sources.map(JSONValue.string)).jsonString()
        return try call(rereduce ? "rereduce" : "reduce", [sourceText, input.jsonString(), context])
    }

    /// Runs a design document's function, loading the design document first when this instance has not
    /// seen that revision.
    func callDesignFunction(
        _ designDocument: JSONObject, path: [String], arguments: [JSONValue], session: (any ListSession)?
    ) throws -> JSONValue {
        let id = designDocument["_id"]?.stringValue ?? ""
        let rev = designDocument["_rev"]?.stringValue ?? ""
        if designDocuments[id] != rev {
            _ = try call("newDesignDocument", [id, rev, JSONValue.object(designDocument).jsonString()])
            designDocuments[id] = rev
        }
        listSession = session
        listFailure = nil
        defer {
            listSession = nil
            listFailure = nil
        }
        let pathText = JSONValue.array(path.map(JSONValue.string)).jsonString()
        do {
            return try call("callDesignDocument", [id, rev, pathText, JSONValue.array(arguments).jsonString()])
        } catch {
            // The session's own failure (a row that could not be read) is what the caller must see.
            if let listFailure { throw listFailure }
            throw error
        }
    }

    // MARK: Calling the query server

    private enum Argument: ExpressibleByStringLiteral {
        case text(String)
        case bytes([UInt8])
        init(stringLiteral value: String) { self = .text(value) }
    }

    private func call(_ name: String, _ arguments: [String], expectingAnswer: Bool = true) throws -> JSONValue {
        try call(name, arguments.map(Argument.text), expectingAnswer: expectingAnswer)
    }

    /// Calls one of the query server's entry points and unwraps its `{"ok": …}` or `{"error": […]}` answer.
    private func call(_ name: String, _ arguments: [Argument], expectingAnswer: Bool = true) throws -> JSONValue {
        guard !isBroken else { throw DesignFunctionError(name: "os_process_error", reason: "The query server was stopped.", isFatal: true).error }
        guard let queryServer,
            let function = JSText.property(name, of: queryServer, in: runtime).flatMap({ JSValueToObject(runtime, $0, nil) })
        else { throw DesignFunctionError(name: "unknown_command", reason: "unknown command '\(name)'", isFatal: true).error }
        let values: [JSValueRef?] = arguments.map { argument in
            switch argument {
            case .text(let text): return protected(JSText.value(text, in: runtime))
            case .bytes(let bytes): return protected(JSText.value(utf8: bytes, in: runtime))
            }
        }
        defer { for value in values { JSValueUnprotect(runtime, value) } }
        var exception: JSValueRef?
        watchdog.expired = false
        let result = values.withUnsafeBufferPointer { buffer in
            JSObjectCallAsFunction(runtime, function, nil, buffer.count, buffer.baseAddress, &exception)
        }
        if watchdog.expired {
            isBroken = true
            throw DesignFunctionError.timedOut.error
        }
        if let exception {
            isBroken = true
            throw DesignFunctionError(name: "InternalError", reason: Self.string(of: exception, in: runtime) ?? "", isFatal: true).error
        }
        guard expectingAnswer else { return .null }
        guard let result, let bytes = Self.utf8(of: result, in: runtime) else {
            throw DesignFunctionError(name: "InternalError", reason: "The query server gave no answer.", isFatal: true).error
        }
        let answer = try JSONValue(parsing: bytes)
        if let ok = answer["ok"] { return ok }
        guard case .array(let failure)? = answer["error"], failure.count == 3 else {
            throw DesignFunctionError(name: "InternalError", reason: "The query server gave an answer it should not.", isFatal: true).error
        }
        let fatal = failure[0].stringValue == "fatal"
        if fatal { isBroken = true }
        let reason = failure[2].stringValue ?? failure[2].jsonString()
        throw DesignFunctionError(name: failure[1].stringValue ?? failure[1].jsonString(), reason: reason, isFatal: fatal).error
    }

    // MARK: Host functions (what `host.…` in the query server calls)

    /// Turns off `eval` and the `Function` constructor in `context`, as CouchDB's SpiderMonkey sandbox does, so
    /// a design function cannot compile code at run time (`emit.constructor('return this')()` would otherwise
    /// reach the query server's own global). The host compiles design functions itself, which this leaves alone.
    private static func forbidRuntimeCompilation(in context: JSGlobalContextRef?) {
        guard let context else { return }
        let message = JSStringCreateWithUTF8CString("Code generation from strings is not allowed in design functions")
        JSGlobalContextSetEvalEnabled(context, false, message)
        JSStringRelease(message)
    }

    /// `host.sandbox(globals)`: a new context in the group with `globals`' members as its globals.
    fileprivate func makeSandbox(_ arguments: [JSValueRef?], exception: UnsafeMutablePointer<JSValueRef?>?) -> JSValueRef? {
        guard let globalsValue = arguments.first ?? nil, let globals = JSValueToObject(runtime, globalsValue, nil) else {
            return fail("sandbox needs an object", exception)
        }
        let sandbox = JSGlobalContextCreateInGroup(group, nil)
        Self.forbidRuntimeCompilation(in: sandbox)
        let global = JSContextGetGlobalObject(sandbox)
        let names = JSObjectCopyPropertyNames(runtime, globals)
        for index in 0..<JSPropertyNameArrayGetCount(names) {
            let name = JSPropertyNameArrayGetNameAtIndex(names, index)
            let value = JSObjectGetProperty(runtime, globals, name, nil)
            JSObjectSetProperty(sandbox, global, name, value, JSPropertyAttributes(kJSPropertyAttributeNone), nil)
        }
        JSPropertyNameArrayRelease(names)
        let number = nextSandbox
        nextSandbox += 1
        sandboxes[number] = sandbox
        return JSValueMakeNumber(runtime, Double(number))
    }

    /// `host.evaluate(sandbox, source, name)`: the completion value of `source` in the sandbox; an anonymous
    /// function statement is taken as an expression (``FunctionSource``).
    fileprivate func evaluate(_ arguments: [JSValueRef?], exception: UnsafeMutablePointer<JSValueRef?>?) -> JSValueRef? {
        guard arguments.count >= 2, let number = arguments[0].map({ Int(JSValueToNumber(runtime, $0, nil)) }),
            let sandbox = sandboxes[number], let source = arguments[1].flatMap({ Self.string(of: $0, in: runtime) })
        else { return fail("evaluate needs a sandbox and a source", exception) }
        let name = arguments.count > 2 ? arguments[2].flatMap { Self.string(of: $0, in: runtime) } ?? "" : ""
        var thrown: JSValueRef?
        let value = JSText.evaluate(source, named: name, in: sandbox, exception: &thrown)
        guard let firstError = thrown else { return value }
        guard Self.errorName(of: firstError, in: sandbox) == "SyntaxError" else {
            exception?.pointee = firstError
            return nil
        }
        let rewritten = FunctionSource.parenthesisingLastAnonymousFunction(source) ?? "(" + source + "\n)"
        thrown = nil
        let second = JSText.evaluate(rewritten, named: name, in: sandbox, exception: &thrown)
        if let thrown {
            // The rewritten program's message names the real mistake; the first one only says a function
            // statement needs a name.
            exception?.pointee = FunctionSource.parenthesisingLastAnonymousFunction(source) == nil ? firstError : thrown
            return nil
        }
        return second
    }

    /// `host.release(sandbox)`.
    fileprivate func release(_ arguments: [JSValueRef?]) -> JSValueRef? {
        if let value = arguments.first ?? nil, let sandbox = sandboxes.removeValue(forKey: Int(JSValueToNumber(runtime, value, nil))) {
            JSGlobalContextRelease(sandbox)
        }
        return JSValueMakeUndefined(runtime)
    }

    /// `host.log(message)`.
    fileprivate func logLine(_ arguments: [JSValueRef?]) -> JSValueRef? {
        if let value = arguments.first ?? nil, let message = Self.string(of: value, in: runtime) { log(message) }
        return JSValueMakeUndefined(runtime)
    }

    /// `host.listRow(chunks, start)`: hands the list's output to the session and returns the next row.
    fileprivate func listRow(_ arguments: [JSValueRef?], exception: UnsafeMutablePointer<JSValueRef?>?) -> JSValueRef? {
        guard let session = listSession else { return fail("getRow() is only available in list functions", exception) }
        do {
            let chunksText = arguments.first.flatMap { $0.flatMap { Self.string(of: $0, in: runtime) } } ?? "[]"
            let chunks = try JSONValue(parsing: chunksText).arrayValue?.map { $0.stringValue ?? $0.jsonString() } ?? []
            var start: JSONObject?
            if arguments.count > 1, let value = arguments[1], !JSValueIsNull(runtime, value),
                let text = Self.string(of: value, in: runtime)
            {
                start = try JSONValue(parsing: text).objectValue
            }
            guard let row = try session.nextRow(sending: chunks, start: start) else { return JSValueMakeNull(runtime) }
            return JSText.value(row.jsonString(), in: runtime)
        } catch {
            listFailure = error
            return fail("the list's rows could not be read", exception)
        }
    }

    private func fail(_ message: String, _ exception: UnsafeMutablePointer<JSValueRef?>?) -> JSValueRef? {
        var arguments: [JSValueRef?] = [protected(JSText.value(message, in: runtime))]
        defer { JSValueUnprotect(runtime, arguments[0]) }
        exception?.pointee = arguments.withUnsafeMutableBufferPointer { JSObjectMakeError(runtime, 1, $0.baseAddress, nil) }
        return nil
    }

    /// `value`, kept from the collector until `JSValueUnprotect`.
    private func protected(_ value: JSValueRef?) -> JSValueRef? {
        JSValueProtect(runtime, value)
        return value
    }

    // MARK: Strings

    /// A value as a Swift string (`String(value)` in JavaScript).
    static func string(of value: JSValueRef, in context: JSContextRef) -> String? {
        utf8(of: value, in: context).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A value's string as UTF-8 bytes.
    static func utf8(of value: JSValueRef, in context: JSContextRef) -> [UInt8]? {
        guard let string = JSValueToStringCopy(context, value, nil) else { return nil }
        defer { JSStringRelease(string) }
        let capacity = JSStringGetMaximumUTF8CStringSize(string)
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            let written = buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: capacity) {
                JSStringGetUTF8CString(string, $0, capacity)
            }
            count = max(0, written - 1)
        }
    }

    /// The `name` of a thrown error.
    private static func errorName(of value: JSValueRef, in context: JSContextRef) -> String? {
        guard let object = JSValueToObject(context, value, nil),
            let name = JSText.property("name", of: object, in: context)
        else { return nil }
        return string(of: name, in: context)
    }
}

/// JavaScriptCore strings made from Swift text for one call each.
///
/// A `JSStringRef` must outlive the call it is passed to, and Swift may end an object's lifetime right after
/// its last use (before the call that uses a property read from it returns), so each string here is made,
/// used and released inside one function and never escapes it.
enum JSText {
    /// Calls `body` with a string of `text`, released when `body` returns.
    static func with<T>(_ text: String, _ body: (JSStringRef) throws -> T) rethrows -> T {
        let string = text.withCString { JSStringCreateWithUTF8CString($0) }
        defer { JSStringRelease(string) }
        return try body(string!)
    }

    /// Calls `body` with a string of UTF-8 `bytes` (which hold no NUL: JSON text escapes it).
    static func with<T>(utf8 bytes: [UInt8], _ body: (JSStringRef) throws -> T) rethrows -> T {
        var terminated = bytes
        terminated.append(0)
        let string = terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { JSStringCreateWithUTF8CString($0.baseAddress) }
        }
        defer { JSStringRelease(string) }
        return try body(string!)
    }

    /// A JavaScript string value of `text` (the engine copies the characters).
    static func value(_ text: String, in context: JSContextRef?) -> JSValueRef? {
        with(text) { JSValueMakeString(context, $0) }
    }

    /// A JavaScript string value of UTF-8 `bytes`.
    static func value(utf8 bytes: [UInt8], in context: JSContextRef?) -> JSValueRef? {
        with(utf8: bytes) { JSValueMakeString(context, $0) }
    }

    /// `object[name]`, or nil when reading it threw.
    static func property(_ name: String, of object: JSObjectRef?, in context: JSContextRef?) -> JSValueRef? {
        with(name) { JSObjectGetProperty(context, object, $0, nil) }
    }

    /// `object[name] = value`.
    static func setProperty(_ name: String, of object: JSObjectRef?, to value: JSValueRef?, in context: JSContextRef?) {
        with(name) { JSObjectSetProperty(context, object, $0, value, JSPropertyAttributes(kJSPropertyAttributeNone), nil) }
    }

    /// The completion value of the script `source` (called `name` in stack traces), or nil with `exception` set.
    static func evaluate(
        _ source: String, named name: String, in context: JSContextRef?, exception: UnsafeMutablePointer<JSValueRef?>
    ) -> JSValueRef? {
        with(source) { script in with(name) { url in JSEvaluateScript(context, script, nil, url, 1, exception) } }
    }
}

/// What the engine's time limit calls back into: it records that the limit was reached and stops the script.
final class Watchdog: @unchecked Sendable {
    /// Set from the engine's thread while a call it belongs to runs; read after the call on that thread.
    var expired = false
}

private let shouldTerminate: JSShouldTerminateCallback = { _, context in
    guard let context else { return true }
    Unmanaged<Watchdog>.fromOpaque(context).takeUnretainedValue().expired = true
    return true
}

/// One of the `host` functions the query server calls.
private final class HostFunction {
    enum Kind: String, CaseIterable {
        case sandbox, evaluate, release, log, listRow
    }

    unowned let owner: JavaScriptContext
    let kind: Kind

    init(owner: JavaScriptContext, kind: Kind) {
        self.owner = owner
        self.kind = kind
    }
}

private let hostCallback: JSObjectCallAsFunctionCallback = { _, function, _, count, arguments, exception in
    guard let function, let pointer = JSObjectGetPrivate(function) else { return nil }
    let host = Unmanaged<HostFunction>.fromOpaque(pointer).takeUnretainedValue()
    let values = (0..<count).map { arguments?[$0] }
    switch host.kind {
    case .sandbox: return host.owner.makeSandbox(values, exception: exception)
    case .evaluate: return host.owner.evaluate(values, exception: exception)
    case .release: return host.owner.release(values)
    case .log: return host.owner.logLine(values)
    case .listRow: return host.owner.listRow(values, exception: exception)
    }
}
