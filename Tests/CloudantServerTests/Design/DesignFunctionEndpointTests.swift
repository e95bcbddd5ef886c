import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Validation, filters, shows, lists, updates and rewrites over HTTP")
struct DesignFunctionEndpointTests {
    let ddoc: JSONValue = [
        "_id": "_design/app", "language": "javascript",
        "validate_doc_update": """
            function(newDoc, oldDoc, userCtx) {
              if (newDoc.kind === 'forbidden') throw({forbidden: 'nope'});
              if (newDoc.kind === 'unauthorized') throw({unauthorized: 'who are you'});
              if (newDoc.kind === 'odd') throw({odd: 'strange'});
              if (newDoc.kind === 'detailed') throw({forbidden: {field: 'kind', why: ['not', 'allowed']}});
            }
            """,
        "filters": [
            "odd": "function(doc, req) { return doc.n % 2 === (req.query.rest ? 0 : 1); }",
            "owner": "function(doc, req) { return doc.n === req.body.n; }",
            "broken": "function(doc, req) { return doc.missing.field; }",
        ],
        "views": ["with_n": ["map": "function(doc) { if (doc.n) emit(doc.n); }"]],
        "shows": [
            "hello": "function(doc, req) { return {body: 'Hello ' + (doc ? doc.n : 'none') + ' ' + req.query.who, headers: {'X-Show': 'yes'}}; }",
            "json": "function(doc, req) { return {json: {id: doc._id, revs: doc._revisions.ids.length}}; }",
            "host": "function(doc, req) { return {body: req.headers.Host}; }",
            "body": "function(doc, req) { return {body: typeof req.body + ':' + req.body}; }",
            "query": "function(doc, req) { return {body: JSON.stringify(req.query)}; }",
        ],
        "updates": [
            "bump": "function(doc, req) { if (!doc) return [null, 'missing']; doc.n = (doc.n || 0) + 1; return [doc, {json: {n: doc.n}}]; }",
            "create": "function(doc, req) { return [{_id: req.uuid, made: true}, 'made ' + req.method]; }",
            "teapot": "function(doc, req) { return [null, {code: 418, body: 'teapot'}]; }",
            "anonymous": "function(doc, req) { return [{made: true}, 'oops']; }",
            "form": "function(doc, req) { for (var field in req.form) doc[field] = req.form[field]; return [doc, 'from form']; }",
            "put": "function(doc, req) { return [JSON.parse(req.body), 'put']; }",
        ],
        "lists": [
            "csv": """
                function(head, req) {
                  start({headers: {'Content-Type': 'text/csv'}});
                  send('total,' + head.total_rows + '\\n');
                  var row;
                  while (row = getRow()) { send(row.id + ',' + row.key + '\\n'); }
                }
                """,
            "bodyKeys": "function(head, req) { send(JSON.stringify(req.body.keys)); }",
            "lateStart": "function(head, req) { getRow(); start({code: 400, headers: {'X-Late': 'yes'}}); send('bad request'); }",
            "tooLate": "function(head, req) { send('sent'); getRow(); start({code: 400, headers: {'X-Late': 'yes'}}); send(' more'); }",
        ],
        "rewrites": "function(req) { if (req.path[4] === 'n') return {path: '_view/with_n', query: {limit: '2'}}; if (req.path[4] === 'teapot') return {code: 418, body: 'short and stout'}; return null; }",
    ]

    func filled(_ client: TestClient) async throws { try await client.storeApp(ddoc, documents: 5) }

    @Test func validationAnswersForbidden403Unauthorized401AndOther500() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let forbidden = try await client.put("/db/x", ["kind": "forbidden"])
            #expect(forbidden.status == 403 && forbidden.json == ["error": "forbidden", "reason": "nope"])
            let unauthorized = try await client.put("/db/x", ["kind": "unauthorized"])
            #expect(unauthorized.status == 401 && unauthorized.json == ["error": "unauthorized", "reason": "who are you"])
            let odd = try await client.put("/db/x", ["kind": "odd"])
            #expect(odd.status == 500 && odd.json == ["error": "unknown_error", "reason": "strange"])
            let bulk = try await client.post("/db/_bulk_docs", ["docs": [["_id": "a", "kind": "forbidden"], ["_id": "b"]]])
            #expect(bulk.json.arrayValue?.first?["error"] == "forbidden" && bulk.json.arrayValue?.first?["reason"] == "nope")
            #expect(bulk.json.arrayValue?.last?["ok"] == true)
            // A reason that is no string is answered as given (`couch_query_servers:validate_doc_update/6`).
            let detailed = try await client.put("/db/x", ["kind": "detailed"])
            #expect(detailed.status == 403 && detailed.json == ["error": "forbidden", "reason": ["field": "kind", "why": ["not", "allowed"]]])
            let detailedRow = try await client.post("/db/_bulk_docs", ["docs": [["_id": "c", "kind": "detailed"]]])
            #expect(detailedRow.json.arrayValue?.first?["reason"] == ["field": "kind", "why": ["not", "allowed"]])
        }
    }

    @Test func changesFilteredByAFilterFunctionOrAView() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let odd = try await client.get("/db/_changes?filter=app/odd")
            #expect(odd.json["results"]?.arrayValue?.map { $0["id"] } == ["d1", "d3", "d5"])
            let even = try await client.get("/db/_changes?filter=app/odd&rest=1")
            #expect(even.json["results"]?.arrayValue?.map { $0["id"] } == ["d2", "d4"])
            let view = try await client.get("/db/_changes?filter=_view&view=app/with_n")
            #expect(view.json["results"]?.arrayValue?.count == 5)
            #expect(try await client.get("/db/_changes?filter=app/none").status == 404)
            #expect(try await client.get("/db/_changes?filter=nothing/odd").status == 404)
            let bad = try await client.get("/db/_changes?filter=a/b/c")
            #expect(bad.status == 400 && bad.json["reason"] == "`filter` must be of the form `designname/filtername`")
            #expect(try await client.get("/db/_changes?filter=_view").json["reason"] == "`view` filter parameter is not provided.")
            #expect(try await client.get("/db/_changes?filter=_weird").json["reason"] == "unknown builtin filter name")
        }
    }

    /// CouchDB starts a continuous or eventsource feed's response when it first flushes it, once the feed has
    /// caught up at the latest (`chttpd_db:changes_callback/2`'s delayed response): a filter that fails on the
    /// changes already there gets the ordinary error response, as the normal feed does.
    @Test func aFilterFailingBeforeALiveFeedHasCaughtUpIsAnErrorResponse() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let normal = try await client.get("/db/_changes?filter=app/broken")
            #expect(normal.status == 500 && normal.json["error"] != nil)
            for feed in ["continuous", "eventsource"] {
                let live = try await client.get("/db/_changes?feed=\(feed)&filter=app/broken&timeout=1")
                #expect(live.status == normal.status && live.json == normal.json, "\(feed): \(live.text)")
            }
        }
    }

    @Test func showsAnswerWithTheFunctionsResponse() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let hello = try await client.get("/db/_design/app/_show/hello/d2?who=ada")
            #expect(hello.status == 200 && hello.text == "Hello 2 ada")
            #expect(hello.header("Content-Type") == "text/html; charset=utf-8")
            #expect(hello.header("X-Show") == "yes" && hello.header("Vary") == "Accept" && hello.header("ETag") != nil)
            #expect(try await client.get("/db/_design/app/_show/hello?who=x").text == "Hello none x")
            let json = try await client.get("/db/_design/app/_show/json/d1")
            #expect(json.json == ["id": "d1", "revs": 1])
            let missing = try await client.get("/db/_design/app/_show/nope/d1")
            #expect(missing.status == 404 && missing.json["reason"] == "missing json key: nope")
            let cached = try await client.get("/db/_design/app/_show/hello/d2?who=ada", headers: ["If-None-Match": hello.header("ETag") ?? ""])
            #expect(cached.status == 304)
        }
    }

    @Test func updatesWriteWhatTheFunctionReturns() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let bumped = try await client.send("POST", "/db/_design/app/_update/bump/d1")
            #expect(bumped.status == 201 && bumped.json == ["n": 2])
            #expect(bumped.header("X-Couch-Update-NewRev")?.hasPrefix("2-") == true && bumped.header("X-Couch-Id") == "d1")
            #expect(try await client.get("/db/d1").json["n"] == 2)
            let created = try await client.send("PUT", "/db/_design/app/_update/create")
            #expect(created.status == 201 && created.text == "made PUT")
            let teapot = try await client.send("POST", "/db/_design/app/_update/teapot")
            #expect(teapot.status == 418 && teapot.text == "teapot")
            let get = try await client.get("/db/_design/app/_update/bump/d1")
            #expect(get.status == 405 && get.json["error"] == "method_not_allowed")
        }
    }

    @Test func anUpdateFunctionWritesAsTheUserWouldSoOnlyAnAdminWritesADesignDocument() async throws {
        try await withDesignServer { server, admin in
            try await filled(admin)
            let user: JSONValue = ["name": "mia", "password": "pw", "roles": ["staff"], "type": "user"]
            #expect(try await admin.put("/_users/org.couchdb.user:mia", user).status == 201)
            #expect(try await admin.put("/db/_security", ["members": ["roles": ["staff"]]]).status == 200)
            let mia = server.client("mia", "pw")
            // `couch_db:validate_doc_update/3` checks for an admin on every design-document write.
            let body = Data(#"{"_id":"_design/evil","validate_doc_update":"function(){}"}"#.utf8)
            try await mia.send("POST", "/db/_design/app/_update/put", body: body, contentType: "application/json")
                .expectCouchError(403, "forbidden", "You are not a db or server admin.")
            #expect(try await admin.get("/db/_design/evil").status == 404)
            // An ordinary document is hers to write.
            let plain = try await mia.send("POST", "/db/_design/app/_update/put", body: Data(#"{"_id":"note"}"#.utf8), contentType: "application/json")
            #expect(plain.status == 201 && plain.header("X-Couch-Id") == "note")
            // An admin may write the design document through the same function.
            #expect(try await admin.send("POST", "/db/_design/app/_update/put", body: body, contentType: "application/json").status == 201)
        }
    }

    @Test func aHeadIsAnsweredAsTheGetCouchDBAliasesItTo() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let before = try await client.get("/db/d1").json["_rev"]
            // An update function never sees HEAD: it refuses the GET it is, and writes nothing.
            let update = try await client.send("HEAD", "/db/_design/app/_update/bump/d1")
            #expect(update.status == 405 && update.text.isEmpty)
            #expect(try await client.get("/db/d1").json["_rev"] == before)
            // A show answers with the GET's status and headers, without its body.
            let show = try await client.send("HEAD", "/db/_design/app/_show/hello/d1?who=you")
            #expect(show.status == 200 && show.header("X-Show") == "yes" && show.text.isEmpty)
        }
    }

    @Test func aFunctionSeesTheBodyAsCouchDBHandsItOver() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            // No body at all reads as mochiweb's `undefined`; an empty one as an empty string.
            #expect(try await client.get("/db/_design/app/_show/body").text == "string:undefined")
            #expect(try await client.send("POST", "/db/_design/app/_show/body", body: Data(), contentType: "text/plain").text == "string:")
            #expect(try await client.send("POST", "/db/_design/app/_show/body", body: Data("hi".utf8), contentType: "text/plain").text == "string:hi")
            // A list's and a filter's `POST` bodies arrive parsed.
            let listed = try await client.post("/db/_design/app/_list/bodyKeys/with_n", ["keys": [2, 3]])
            #expect(listed.status == 200 && listed.text == "[2,3]")
            let changes = try await client.post("/db/_changes?filter=app/owner", ["n": 4])
            #expect(changes.json["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["d4"])
        }
    }

    @Test func aFunctionSeesTheHostHeaderAmongTheRequestsHeaders() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            #expect(try await client.get("/db/_design/app/_show/host").text == "127.0.0.1")
        }
    }

    @Test func anUpdateThatReturnsADocumentWithoutAnIdWritesNothing() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let before = try await client.get("/db").json["doc_count"]
            let refused = try await client.send("PUT", "/db/_design/app/_update/anonymous/foo")
            refused.expectCouchError(400, "illegal_docid", "Document id must not be empty")
            #expect(try await client.get("/db").json["doc_count"] == before)
        }
    }

    @Test func anUpdatePutWithAFormGivesTheFunctionItsFields() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            // A `PUT` under a design document to a name starting with `_` is no attachment upload: its body
            // reaches the function.
            let answer = try await client.send(
                "PUT", "/db/_design/app/_update/form/d2", body: Data("formfoo=bar&formbar=foo".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(answer.status == 201 && answer.text == "from form")
            let document = try await client.get("/db/d2").json
            #expect(document["formfoo"] == "bar" && document["formbar"] == "foo")
        }
    }

    @Test func listsRenderViewRows() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let csv = try await client.get("/db/_design/app/_list/csv/with_n?limit=2")
            #expect(csv.status == 200)
            #expect(csv.header("Content-Type") == "text/csv")
            #expect(csv.text == "total,5\nd1,1\nd2,2\n")
            let allDocs = try await client.get("/db/_design/app/_list/csv/_all_docs?limit=1")
            #expect(allDocs.text == "total,6\n_design/app,_design/app\n")
        }
    }

    /// CouchDB starts a list's response with its first chunks: a `start()` after `getRow()` but before any
    /// `send()` still sets the code and headers; one after output has gone changes nothing.
    @Test func aListsStartCountsUntilItsFirstChunkIsSent() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let late = try await client.get("/db/_design/app/_list/lateStart/with_n")
            #expect(late.status == 400)
            #expect(late.header("X-Late") == "yes")
            #expect(late.text == "bad request")
            let tooLate = try await client.get("/db/_design/app/_list/tooLate/with_n")
            #expect(tooLate.status == 200)
            #expect(tooLate.header("X-Late") == nil)
            #expect(tooLate.text == "sent more")
        }
    }

    @Test func rewritesAnswerAtTheNewPathOrDirectly() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let rewritten = try await client.get("/db/_design/app/_rewrite/n")
            #expect(rewritten.json["rows"]?.arrayValue?.count == 2 && rewritten.json["total_rows"] == 5)
            let direct = try await client.get("/db/_design/app/_rewrite/teapot")
            #expect(direct.status == 418 && direct.text == "short and stout")
            let none = try await client.get("/db/_design/app/_rewrite/none")
            #expect(none.status == 404 && none.json == ["error": "rewrite_error", "reason": "Invalid path."])
        }
    }

    @Test func rewriteRulesInAListMatchFromAndBindVariables() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let rules: JSONValue = [
                "_id": "_design/rules",
                "rewrites": [
                    ["from": "doc/:id", "to": "../../:id"],
                    ["from": "view/:key", "to": "../app/_view/with_n", "query": ["key": ":key"], "formats": ["key": "int"]],
                ],
            ]
            #expect(try await client.put("/db/_design/rules", rules).status == 201)
            #expect(try await client.get("/db/_design/rules/_rewrite/doc/d3").json["n"] == 3)
            #expect(try await client.get("/db/_design/rules/_rewrite/view/4").json["rows"]?.arrayValue?.first?["id"] == "d4")
            #expect(try await client.get("/db/_design/rules/_rewrite/nothing").status == 404)
            // `"method": "*"` matches any method.
            let anyMethod: JSONValue = ["_id": "_design/any", "rewrites": [["from": "doc/:id", "to": "../../:id", "method": "*"]]]
            #expect(try await client.put("/db/_design/any", anyMethod).status == 201)
            #expect(try await client.get("/db/_design/any/_rewrite/doc/d2").json["n"] == 2)
            // A rewrite function answering neither false nor an object is a bad rewrite (`couch_query_servers:rewrite/3`).
            #expect(try await client.put("/db/_design/bad", ["rewrites": "function(req) { return 42; }"]).status == 201)
            try await client.get("/db/_design/bad/_rewrite/x").expectCouchError(500, "rewrite_error", "bad rewrite")
            // A bound value is one path part whatever it holds (`do_rewrite` URL-encodes each part).
            for id in ["a/b", "c?d", "100%", "é e"] {
                let encoded = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
                #expect(try await client.put("/db/\(encoded)", ["name": .string(id)]).status == 201)
                let read = try await client.get("/db/_design/rules/_rewrite/doc/\(encoded)")
                #expect(read.status == 200 && read.json["name"] == .string(id), "\(id)")
            }
        }
    }

    /// `chttpd_rewrite`'s `bind_path/3`, `try_bind_path/4` and `maybe_encode_bindings/1`.
    @Test func aRuleBindsAStarBeforeTheEndAsOnePartAndWritesTheQueryInCouchDBsOrder() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let rules: JSONValue = [
                "_id": "_design/order",
                "rewrites": [
                    ["from": "q/:a/:b", "to": "../app/_show/query", "query": ["r1": "x", "r2": ":a"]],
                    ["from": "star/*/end", "to": "../app/_show/query"],
                    ["from": "joined", "to": "../app/_show/query", "query": ["name": ["a", "b"]]],
                    ["from": "number", "to": "../app/_show/query", "query": ["limit": 10]],
                ],
            ]
            #expect(try await client.put("/db/_design/order", rules).status == 201)
            // The rule's query in its order, the request's parameters last first, the path's variables in order.
            let ordered = try await client.get("/db/_design/order/_rewrite/q/A/B?z=1&y=2")
            #expect(ordered.text == #"{"r1":"x","r2":"A","y":"2","z":"1","a":"A","b":"B"}"#)
            // A `*` that is not the last part of `from` matches one part, and is no parameter.
            let star = try await client.get("/db/_design/order/_rewrite/star/anything/end")
            #expect(star.status == 200 && star.text == "{}")
            #expect(try await client.get("/db/_design/order/_rewrite/star/a/b/end").status == 404)
            // A value that is not a key is the iolist it must be: an array of strings joins, a number fails.
            #expect(try await client.get("/db/_design/order/_rewrite/joined").text == #"{"name":"ab"}"#)
            try await client.get("/db/_design/order/_rewrite/number").expectCouchError(500, "unknown_error", "badarg")
        }
    }

    /// `chttpd/secure_rewrites` (on by default): a rule may reach the database (`../..`), not the server.
    @Test func aRewriteRuleThatClimbsOutOfTheDatabaseFailsUnlessSecureRewritesIsOff() async throws {
        try await withDesignServer { _, client in
            let rules: JSONValue = ["_id": "_design/out", "rewrites": [["from": "uuids", "to": "../../../_uuids"], ["from": "x", "to": "../../x"]]]
            #expect(try await client.put("/db/_design/out", rules).status == 201)
            let refused = try await client.get("/db/_design/out/_rewrite/uuids")
            #expect(refused.json == ["error": "insecure_rewrite_rule", "reason": "too many ../.. segments"])
            #expect(refused.status == 500)
            // Every rule is read before any matches, so the other rule fails too.
            #expect(try await client.get("/db/_design/out/_rewrite/x").status == 500)
            #expect(try await client.send("PUT", "/_node/_local/_config/chttpd/secure_rewrites", body: Data("\"false\"".utf8)).status == 200)
            #expect(try await client.get("/db/_design/out/_rewrite/uuids").json["uuids"]?.arrayValue?.count == 1)
        }
    }
}
