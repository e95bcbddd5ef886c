import CloudantCore
@testable import CloudantJavaScript
import Testing

@Suite("Functions of design documents (CouchDB's ddoc command)")
struct DesignFunctionTests {
    let ddoc: JSONObject = [
        "_id": "_design/app", "_rev": "1-a",
        "validate_doc_update": """
            function(newDoc, oldDoc, userCtx, secObj) {
              if (newDoc.kind === 'secret') throw({forbidden: 'no secrets'});
              if (!userCtx.name) throw({unauthorized: 'log in'});
              if (newDoc.kind === 'odd') throw({odd: 'odd thing'});
              if (newDoc.kind === 'crash') newDoc.a.b.c = 1;
            }
            """,
        "filters": ["mine": "function(doc, req) { return doc.owner === req.userCtx.name; }"],
        "views": ["typed": ["map": "function(doc) { if (doc.type) emit(doc.type); }"]],
        "shows": [
            "plain": "function(doc, req) { return 'Hello ' + (doc ? doc.name : 'nobody') + ' ' + req.query.x; }",
            "object": "function(doc, req) { return {code: 201, headers: {'X-A': 'b'}, json: {id: doc._id}}; }",
            "typed": """
                function(doc, req) {
                  provides('json', function() { return {json: {name: doc.name}}; });
                  provides('html', function() { return '<p>' + doc.name + '</p>'; });
                }
                """,
            "nothing": "function(doc, req) { return 42; }",
            "broken": "function(doc, req) { return doc.missing.deeper; }",
        ],
        "updates": [
            "stamp": "function(doc, req) { doc = doc || {_id: req.uuid}; doc.stamped = req.body; return [doc, 'stamped ' + doc._id]; }",
            "nochange": "function(doc, req) { return [null, {code: 404, body: 'none'}]; }",
        ],
        "lists": [
            "csv": """
                function(head, req) {
                  start({headers: {'Content-Type': 'text/csv'}});
                  send('total ' + head.total_rows + '\\n');
                  var row;
                  while (row = getRow()) { send(row.key + ',' + row.value + '\\n'); }
                  return 'end\\n';
                }
                """,
            "typed": """
                function(head, req) {
                  provides('json', function() {
                    var out = [], row;
                    while (row = getRow()) out.push(row.key);
                    send(JSON.stringify(out));
                  });
                }
                """,
            "lazy": "function(head, req) { return 'no rows read'; }",
        ],
        "rewrites": "function(req) { if (req.path[3] === 'none') return null; if (req.path[3] === 'str') return 'some/path'; return {path: '_view/x', query: {a: '1'}, method: 'GET'}; }",
    ]

    func call(_ path: [String], _ arguments: [JSONValue], session: (any ListSession)? = nil) throws -> JSONValue {
        try makeEngine().callDesignFunction(ddoc, path: path, arguments: arguments, session: session)
    }

    // MARK: validate_doc_update

    @Test func validationPassesWithOne() throws {
        #expect(try call(["validate_doc_update"], [["_id": "x"], .null, ["name": "ada", "roles": []], [:]]) == 1)
    }

    @Test func validationAnswersWithTheObjectTheFunctionThrew() throws {
        #expect(try call(["validate_doc_update"], [["kind": "secret"], .null, ["name": "ada"], [:]]) == ["forbidden": "no secrets"])
        #expect(try call(["validate_doc_update"], [["kind": "x"], .null, ["name": .null], [:]]) == ["unauthorized": "log in"])
        #expect(try call(["validate_doc_update"], [["kind": "odd"], .null, ["name": "ada"], [:]]) == ["odd": "odd thing"])
    }

    @Test func aValidationThatCrashesIsAnErrorNamedAfterTheException() throws {
        let error = designFailure {
            try call(["validate_doc_update"], [["kind": "crash"], .null, ["name": "ada"], [:]])
        }
        #expect(error?.name == "TypeError")
    }

    // MARK: filters

    @Test func aFilterAnswersTrueOrFalsePerDocument() throws {
        let answer = try call(["filters", "mine"], [[["owner": "ada"], ["owner": "bob"], [:]], ["userCtx": ["name": "ada"]]])
        #expect(answer == [true, [true, false, false]])
    }

    @Test func aViewAsFilterPassesDocumentsItsMapEmitsFor() throws {
        #expect(try call(["views", "typed", "map"], [[["type": "a"], ["x": 1]]]) == [true, [true, false]])
    }

    @Test func aMissingFunctionIsNotFound() throws {
        #expect(designFailure {
            try call(["filters", "nope"], [[], [:]])
        } == DesignFunctionError(name: "not_found", reason: "missing filters function nope on design doc _design/app"))
    }

    // MARK: shows

    @Test func aShowReturningTextAnswersWithItAsBody() throws {
        let answer = try call(["shows", "plain"], [["_id": "d", "name": "Ada"], ["query": ["x": "!"], "headers": [:]]])
        #expect(answer == ["resp", ["body": "Hello Ada !"]])
    }

    @Test func aShowReturningAnObjectAnswersWithIt() throws {
        let answer = try call(["shows", "object"], [["_id": "d"], ["query": [:], "headers": [:]]])
        #expect(answer == ["resp", ["code": 201, "headers": ["X-A": "b"], "json": ["id": "d"]]])
    }

    @Test func providesPicksByAcceptHeaderOrFormat() throws {
        let doc: JSONValue = ["_id": "d", "name": "Ada"]
        let html = try call(["shows", "typed"], [doc, ["query": [:], "headers": ["Accept": "text/html;q=0.9,application/json;q=0.5"]]])
        #expect(html == ["resp", ["body": "<p>Ada</p>", "headers": ["Content-Type": "text/html; charset=utf-8"]]])
        // CouchDB's runShow keeps only the provider's `body`: a `json` member it answers with is dropped.
        let json = try call(["shows", "typed"], [doc, ["query": ["format": "json"], "headers": [:]]])
        #expect(json == ["resp", ["body": "", "headers": ["Content-Type": "application/json"]]])
        let first = try call(["shows", "typed"], [doc, ["query": [:], "headers": [:]]])
        #expect(first == ["resp", ["body": "", "headers": ["Content-Type": "application/json"]]])
    }

    @Test func anAcceptHeaderNothingProvidedMatchesIsNotAcceptable() throws {
        let error = designFailure {
            try call(["shows", "typed"], [["_id": "d", "name": "A"], ["query": [:], "headers": ["Accept": "image/png"]]])
        }
        #expect(error?.name == "not_acceptable")
        // Reading the Accept header reverses the providers in place (`mimeFuns.reverse()` in CouchDB's runProvides),
        // so the types are listed last provided first.
        #expect(error?.reason == "Content-Type image/png not supported, try one of: text/html; charset=utf-8, application/json, text/x-json")
    }

    @Test func aShowAnsweringNeitherTextNorObjectIsARenderError() throws {
        #expect(designFailure {
            try call(["shows", "nothing"], [["_id": "d"], ["query": [:], "headers": [:]]])
        } == DesignFunctionError(name: "render_error", reason: "undefined response from show function"))
    }

    @Test func aShowThatCrashesIsARenderErrorUnlessTheDocumentIsMissing() throws {
        let error = designFailure { try call(["shows", "broken"], [["_id": "d"], ["path": ["db", "_design", "app", "_show", "broken", "d"]]]) }
        #expect(error?.name == "render_error")
        #expect(designFailure {
            try call(["shows", "broken"], [.null, ["path": ["db", "_design", "app", "_show", "broken", "d"]]])
        } == DesignFunctionError(name: "not_found", reason: "document not found"))
    }

    // MARK: updates

    @Test func anUpdateAnswersWithTheDocumentAndTheResponse() throws {
        let answer = try call(["updates", "stamp"], [.null, ["method": "POST", "uuid": "u1", "body": "now"]])
        #expect(answer == ["up", ["_id": "u1", "stamped": "now"], ["body": "stamped u1"]])
        #expect(try call(["updates", "nochange"], [.null, ["method": "PUT"]]) == ["up", .null, ["code": 404, "body": "none"]])
    }

    @Test func anUpdateRefusesGET() throws {
        #expect(designFailure {
            try call(["updates", "stamp"], [.null, ["method": "GET"]])
        } == DesignFunctionError(name: "method_not_allowed", reason: "Update functions do not allow GET"))
    }

    // MARK: lists

    @Test func aListReadsRowsWithGetRowAndSendsChunksAfterItsHead() throws {
        let session = RecordingSession(rows: [["key": "a", "value": 1], ["key": "b", "value": 2]])
        let answer = try call(["lists", "csv"], [["total_rows": 2, "offset": 0], ["query": [:], "headers": [:]]], session: session)
        #expect(session.starts == [["headers": ["Content-Type": "text/csv"]]])
        #expect(session.chunks == ["total 2\n", "a,1\n", "b,2\n"])
        #expect(answer == ["end", ["end\n"]])
        #expect(session.asked == 3)
    }

    @Test func aListThatNeverAsksForARowStillStartsItsResponse() throws {
        let session = RecordingSession(rows: [["key": "a", "value": 1]])
        let answer = try call(["lists", "lazy"], [["total_rows": 1], ["query": [:], "headers": [:]]], session: session)
        #expect(session.starts == [["headers": [:]]])
        #expect(answer == ["end", ["no rows read"]])
    }

    @Test func aListWithProvidesGetsTheChosenContentType() throws {
        let session = RecordingSession(rows: [["key": "a"], ["key": "b"]])
        let answer = try call(["lists", "typed"], [[:], ["query": [:], "headers": ["Accept": "application/json"]]], session: session)
        #expect(session.starts == [["headers": ["Content-Type": "application/json"]]])
        #expect(answer == ["end", [#"["a","b"]"#]])
    }

    // MARK: rewrites

    @Test func aRewriteAnswersWithItsRuleOrNoDispatchRule() throws {
        let request: JSONValue = ["method": "GET", "path": ["db", "_design", "app", "x"]]
        #expect(try call(["rewrites"], [request]) == ["ok", ["path": "_view/x", "query": ["a": "1"], "method": "GET"]])
        #expect(try call(["rewrites"], [["method": "PUT", "path": ["db", "_design", "app", "str"]]]) == ["ok", ["path": "some/path", "method": "PUT"]])
        #expect(try call(["rewrites"], [["method": "GET", "path": ["db", "_design", "app", "none"]]]) == ["no_dispatch_rule"])
    }

    @Test func aNewRevisionOfTheDesignDocumentReplacesTheCompiledFunctions() throws {
        let engine = makeEngine()
        var changed = ddoc
        _ = try engine.callDesignFunction(ddoc, path: ["shows", "plain"], arguments: [.null, ["query": ["x": "1"]]], session: nil)
        changed["_rev"] = "2-b"
        changed["shows"] = ["plain": "function() { return 'v2'; }"]
        #expect(try engine.callDesignFunction(changed, path: ["shows", "plain"], arguments: [.null, ["query": [:]]], session: nil)
            == ["resp", ["body": "v2"]])
    }
}
