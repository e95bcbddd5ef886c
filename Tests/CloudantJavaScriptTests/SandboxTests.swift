import CloudantCore
@testable import CloudantJavaScript
import Testing

@Suite("The sandbox design functions run in")
struct SandboxTests {
    @Test func functionsSeeCouchDBsHelpersAndNoIO() throws {
        let probe = """
            function(doc) {
              var names = ['print', 'readline', 'quit', 'gc', 'evalcx', '__host', '__queryServer', 'fetch', 'XMLHttpRequest',
                           'setTimeout', 'setInterval', 'process', 'Deno', 'Bun', 'importScripts', 'load', 'read', 'os', 'std'];
              var present = names.filter(function (name) { return typeof globalThis[name] !== 'undefined'; });
              var helpers = ['emit', 'sum', 'log', 'toJSON', 'isArray', 'provides', 'registerType', 'start', 'send', 'getRow',
                             'require', 'JSON'].map(function (name) { return typeof globalThis[name]; });
              emit(present, helpers);
            }
            """
        let rows = try map(makeEngine(), [probe], [["_id": "a"]])
        #expect(rows[0][0] == [EmittedRow(
            key: [], value: ["function", "function", "function", "function", "function", "function", "function", "function",
                             "function", "function", "function", "object"])])
    }

    /// CouchDB's SpiderMonkey sandbox refuses to compile code at run time; a map function that tries throws,
    /// and the document it was mapping is skipped.
    @Test func codeCannotBeCompiledAtRunTime() throws {
        let attempts = [
            "function(doc) { var glob = emit.constructor('return this')(); emit(doc._id, null); }",
            "function(doc) { emit(eval('doc._id'), null); }",
            "function(doc) { emit(new Function('return 1')(), null); }",
            "function(doc) { emit(Object.getPrototypeOf(async function () {}).constructor('return 1'), null); }",
        ]
        let rows = try map(makeEngine(), attempts + ["function(doc) { emit(doc._id, 'plain'); }"], [["_id": "a"]])
        #expect(rows[0] == [[], [], [], [], [EmittedRow(key: "a", value: "plain")]])
    }

    @Test func aGlobalOneIndexSetsIsNotSeenByAnother() throws {
        let engine = makeEngine()
        _ = try map(engine, ["function(doc) { leaked = 42; emit(1, 1); }"], [["_id": "a"]])
        let rows = try map(engine, ["function(doc) { emit(typeof leaked, 1); }"], [["_id": "a"]])
        #expect(rows[0][0] == [EmittedRow(key: "undefined", value: 1)])
    }

    @Test func aHelperCannotBeChangedForOtherDesignDocuments() throws {
        let engine = makeEngine()
        _ = try map(engine, ["function(doc) { emit.evil = true; sum.evil = true; emit(emit.evil === true, 1); }"], [["_id": "a"]])
        let rows = try map(engine, ["function(doc) { emit(emit.evil === true || sum.evil === true, 1); }"], [["_id": "a"]])
        #expect(rows[0][0] == [EmittedRow(key: false, value: 1)])
    }

    @Test func aFunctionThatNeverEndsIsStoppedAndTheEngineGoesOn() throws {
        let engine = makeEngine(timeLimit: .milliseconds(300))
        let clock = ContinuousClock()
        let started = clock.now
        #expect(designFailure {
            try map(engine, ["function(doc) { while (true) {} }"], [["_id": "a"]])
        } == DesignFunctionError.timedOut)
        #expect(clock.now - started < .seconds(60))
        let rows = try map(engine, ["function(doc) { emit(doc._id, 1); }"], [["_id": "b"]])
        #expect(rows[0][0] == [EmittedRow(key: "b", value: 1)])
    }

    @Test func aSlowBatchIsRetriedDocumentByDocumentSoOnlyOneSlowDocumentCounts() throws {
        // Each document takes about a third of the limit: the batch together runs out of time, each alone does not.
        let engine = makeEngine(timeLimit: .milliseconds(900))
        let source = "function(doc) { var end = Date.now() + 300; while (Date.now() < end) {} emit(doc._id, 1); }"
        let rows = try map(engine, [source], (0..<6).map { ["_id": .string("d\($0)")] })
        #expect(rows.map { $0[0] } == (0..<6).map { [EmittedRow(key: .string("d\($0)"), value: 1)] })
    }

    @Test func aTimeOutInADesignFunctionIsCouchDBsOSProcessError() throws {
        let engine = makeEngine(timeLimit: .milliseconds(300))
        let ddoc: JSONObject = ["_id": "_design/x", "_rev": "1-a", "shows": ["loop": "function(doc, req) { for (;;) {} }"]]
        #expect(designFailure {
            try engine.callDesignFunction(ddoc, path: ["shows", "loop"], arguments: [.null, ["path": []]], session: nil)
        } == DesignFunctionError(name: "os_process_error", reason: "OS process timed out.", isFatal: true))
    }
}
