import CloudantCore
@testable import CloudantJavaScript
import Testing

@Suite("JavaScript map functions (CouchDB's map_doc)")
struct MapFunctionTests {
    @Test func eachFunctionEmitsItsRowsPerDocumentInOrder() throws {
        let engine = makeEngine()
        let rows = try map(
            engine, ["function(doc) { emit(doc.type, 1); emit([doc.type, doc.n]); }", "function(doc) { if (doc.n > 1) emit(doc._id, doc); }"],
            [["_id": "a", "_rev": "1-x", "type": "walk", "n": 1], ["_id": "b", "_rev": "1-y", "type": "run", "n": 2]])
        #expect(rows.count == 2)
        #expect(rows[0][0] == [EmittedRow(key: "walk", value: 1), EmittedRow(key: ["walk", 1], value: .null)])
        #expect(rows[0][1] == [])
        #expect(rows[1][1] == [EmittedRow(key: "b", value: ["_id": "b", "_rev": "1-y", "type": "run", "n": 2])])
    }

    @Test func undefinedKeysAndValuesBecomeNullAsJSONStringifyWritesThem() throws {
        let rows = try map(makeEngine(), ["function(doc) { emit(doc.missing, undefined); emit(NaN, function(){}); }"], [["_id": "a"]])
        #expect(rows[0][0] == [EmittedRow(key: .null, value: .null), EmittedRow(key: .null, value: .null)])
    }

    @Test func anErrorEmittedAsValueIsWrittenAsItsNameAndMessage() throws {
        let rows = try map(makeEngine(), ["function(doc) { emit(1, new TypeError('bad')); }"], [["_id": "a"]])
        #expect(rows[0][0] == [EmittedRow(key: 1, value: ["error": "TypeError", "message": "bad"])])
    }

    @Test func aFunctionThatThrowsSkipsThatDocumentAndLogsIt() throws {
        let log = LogLines()
        let rows = try map(
            makeEngine(log: log), ["function(doc) { emit(doc.a.b, 1); }", "function(doc) { emit(doc._id, 2); }"],
            [["_id": "bad"], ["_id": "good", "a": ["b": "x"]]])
        #expect(rows[0] == [[], [EmittedRow(key: "bad", value: 2)]])
        #expect(rows[1] == [[EmittedRow(key: "x", value: 1)], [EmittedRow(key: "good", value: 2)]])
        #expect(log.all.count == 1)
        #expect(log.all[0].hasPrefix("function raised exception TypeError"))
        #expect(log.all[0].hasSuffix("with doc._id bad"))
    }

    @Test func throwingFatalErrorFailsTheWholeMap() throws {
        #expect(designFailure {
            try map(makeEngine(), ["function(doc) { throw 'fatal_error'; }"], [["_id": "a"]])
        } == DesignFunctionError(name: "map_runtime_error", reason: "function raised 'fatal_error'"))
    }

    @Test func documentsAreSealedSoAFunctionCannotChangeWhatTheNextSees() throws {
        let rows = try map(
            makeEngine(),
            ["function(doc) { doc.type = 'changed'; doc.list.push(3); emit(doc.type, 1); }", "function(doc) { emit(doc.type, doc.list.length); }"],
            [["_id": "a", "type": "walk", "list": [1, 2]]])
        // The first function's assignment is ignored (sloppy mode) and its push throws: it emits nothing.
        #expect(rows[0][0] == [])
        #expect(rows[0][1] == [EmittedRow(key: "walk", value: 2)])
    }

    @Test func helpersSumToJSONIsArrayAndLogAreThere() throws {
        let log = LogLines()
        let rows = try map(
            makeEngine(log: log),
            ["function(doc) { log('seen ' + doc._id); log({n: 1}); emit(sum(doc.v), [toJSON(doc.v), isArray(doc.v), isArray(doc)]); }"],
            [["_id": "a", "v": [1, 2, 3.5]]])
        #expect(rows[0][0] == [EmittedRow(key: 6.5, value: ["[1,2,3.5]", true, false])])
        #expect(log.all == ["seen a", #"{"n":1}"#])
    }

    @Test func requireReadsCommonJSModulesFromViewsLib() throws {
        let lib: JSONValue = [
            "math": "exports.double = function(x) { return 2 * x; }; exports.name = require('./names').name;",
            "names": "exports.name = 'lib';",
            "nested": ["deep": "exports.up = require('../math').double(21);"],
        ]
        let rows = try map(
            makeEngine(),
            ["function(doc) { var m = require('views/lib/math'); emit(m.name, [m.double(doc.n), require('views/lib/nested/deep').up]); }"],
            lib: lib, [["_id": "a", "n": 4]])
        #expect(rows[0][0] == [EmittedRow(key: "lib", value: [8, 42])])
    }

    @Test func aMissingModuleIsTheFunctionsExceptionForThatDocument() throws {
        let log = LogLines()
        let rows = try map(makeEngine(log: log), ["function(doc) { emit(require('views/lib/nope'), 1); }"], lib: ["x": "1"], [["_id": "a"]])
        #expect(rows[0][0] == [])
        #expect(log.all.first?.contains("invalid_require_path") == true)
    }

    @Test func modernJavaScriptRuns() throws {
        let source = """
            (doc) => {
              const {n, ...rest} = doc;
              const deep = rest.a?.b ?? 'none';
              emit([n ** 2, deep, [1, [2, [3]]].flat(Infinity).length, Object.fromEntries([['k', 1]]).k,
                    'a-b-c'.replaceAll('-', ''), [5, 6].at(-1), String(2n ** 64n), Object.hasOwn(doc, '_id')], null);
            }
            """
        let rows = try map(makeEngine(), [source], [["_id": "a", "n": 3]])
        #expect(rows[0][0] == [EmittedRow(key: [9, "none", 3, 1, "abc", 6, "18446744073709551616", true], value: .null)])
    }

    @Test func manyDocumentsInOneBatchKeepTheirOrder() throws {
        let documents: [JSONValue] = (0..<2_000).map { ["_id": .string("d\($0)"), "n": .number(JSONNumber($0))] }
        let rows = try map(makeEngine(), ["function(doc) { emit(doc.n, null); }"], documents)
        #expect(rows.count == 2_000)
        #expect(rows.enumerated().allSatisfy { $0.element[0] == [EmittedRow(key: .number(JSONNumber($0.offset)), value: .null)] })
    }
}
