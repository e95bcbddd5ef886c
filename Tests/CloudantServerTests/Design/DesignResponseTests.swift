import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// The responses design functions write themselves, as CouchDB sends them: `chttpd_external:
/// send_external_response/2` for shows and updates, `couch_mrview_show`'s chunked responses for lists, and
/// `chttpd_rewrite:do_rewrite/2` for a rewrite function's own `code`.
@Suite("Design function responses: headers, empty and failing lists, direct rewrites")
struct DesignResponseTests {
    let ddoc: JSONValue = [
        "_id": "_design/app", "language": "javascript",
        "views": ["with_n": ["map": "function(doc) { if (doc.n) emit(doc.n); }"]],
        "shows": [
            "text": "function(doc, req) { return {body: 'plain'}; }",
            "typed": "function(doc, req) { return {json: {a: 1}, headers: {'Content-Type': 'application/vnd.api+json'}}; }",
            "json": "function(doc, req) { return {json: {a: 1}}; }",
            "cached": "function(doc, req) { return {json: {a: 1}, headers: {'Cache-Control': 'no-cache'}}; }",
            "unknown": "function(doc, req) { return {body: 'x', foo: {bar: [1, 2.5, null]}}; }",
            "stopped": "function(doc, req) { return {body: 'x', stop: true}; }",
            "stopOne": "function(doc, req) { return {body: 'x', stop: 1}; }",
        ],
        "updates": ["text": "function(doc, req) { return [null, 'written']; }"],
        "lists": [
            "silent": "function(head, req) { start({code: 302, headers: {Location: '/elsewhere'}}); }",
            "emptySends": "function(head, req) { start({code: 302, headers: {Location: '/elsewhere'}}); send(''); }",
            "failsMidway": "function(head, req) { send('a'); var row; while (row = getRow()) { if (row.key == 2) throw 'boom'; send(row.key); } }",
            "failsBeforeOutput": "function(head, req) { start({code: 201, headers: {'Content-Type': 'text/csv'}}); getRow(); throw 'boom'; }",
            "failsAtOnce": "function(head, req) { send('never'); throw 'boom'; }",
            "plain": "function(head, req) { send('rows'); }",
        ],
        "rewrites": "function(req) { return req.path[4] === 'echo' ? {code: 202, headers: {'X-Echo': 'yes'}} : {code: 200, body: 'own'}; }",
    ]

    @Test func aShowsTextAnswerCarriesOnlyItsOwnHeadersAndAJSONAnswerCouchDBsDefaults() async throws {
        try await withDesignServer { _, client in
            try await client.storeApp(ddoc, documents: 3)
            // `chttpd:send_response` adds no Cache-Control to a body the function wrote.
            let text = try await client.get("/db/_design/app/_show/text/d1")
            #expect(text.text == "plain" && text.header("Content-Type") == "text/html; charset=utf-8")
            #expect(text.header("Cache-Control") == nil && text.header("Content-Security-Policy") == "sandbox")
            // `chttpd:send_json` merges its defaults under the function's own headers.
            let json = try await client.get("/db/_design/app/_show/json/d1")
            #expect(json.header("Content-Type") == "application/json" && json.header("Cache-Control") == "must-revalidate")
            let typed = try await client.get("/db/_design/app/_show/typed/d1")
            #expect(typed.header("Content-Type") == "application/vnd.api+json" && typed.json == ["a": 1])
            #expect(try await client.get("/db/_design/app/_show/cached/d1").header("Cache-Control") == "no-cache")
            let update = try await client.send("POST", "/db/_design/app/_update/text")
            #expect(update.text == "written" && update.header("Cache-Control") == nil)
            let list = try await client.get("/db/_design/app/_list/plain/with_n")
            #expect(list.text == "rows" && list.header("Cache-Control") == nil)
        }
    }

    /// `chttpd_external:parse_external_response/1` knows `code`, `json`, `body`, `base64`, `headers` and
    /// `{"stop": true}`; any other member fails with the member written as Erlang's `~p` writes the term.
    @Test func anUnknownMemberOfAFunctionsAnswerIsAnExternalResponseErrorNamingItAsErlangWritesIt() async throws {
        try await withDesignServer { _, client in
            try await client.storeApp(ddoc, documents: 1)
            try await client.get("/db/_design/app/_show/unknown/d1").expectCouchError(
                500, "external_response_error", "Invalid data from external server: {<<\"foo\">>,{[{<<\"bar\">>,[1,2.5,null]}]}}")
            #expect(try await client.get("/db/_design/app/_show/stopped/d1").text == "x")
            try await client.get("/db/_design/app/_show/stopOne/d1").expectCouchError(
                500, "external_response_error", "Invalid data from external server: {<<\"stop\">>,1}")
        }
    }

    /// `couch_mrview_show:last_chunk/2`: a list that never sends a non-empty batch never starts its response.
    @Test func aListThatSendsNothingIsABare200WithoutTheHeadItsStartGave() async throws {
        try await withDesignServer { _, client in
            try await client.storeApp(ddoc, documents: 3)
            let silent = try await client.get("/db/_design/app/_list/silent/with_n")
            #expect(silent.status == 200 && silent.text.isEmpty)
            #expect(silent.header("Location") == nil && silent.header("Content-Type") == nil)
            // An empty string is a chunk: the response starts, with `start()`'s code and headers.
            let empty = try await client.get("/db/_design/app/_list/emptySends/with_n")
            #expect(empty.status == 302 && empty.header("Location") == "/elsewhere" && empty.text.isEmpty)
        }
    }

    /// `couch_mrview_show:send_list_row/2` catches a failure while rows are read and ends the response with
    /// `chttpd:send_chunked_error/2`'s line; a failure before the first `getRow()` is an ordinary error.
    @Test func aListThatFailsWhileReadingRowsEndsItsOutputWithCouchDBsErrorLine() async throws {
        try await withDesignServer { _, client in
            try await client.storeApp(ddoc, documents: 3)
            let midway = try await client.get("/db/_design/app/_list/failsMidway/with_n")
            #expect(midway.status == 200)
            let (output, line) = try Self.split(midway.text)
            #expect(output == "a1")
            #expect(line["code"] == 500 && line["error"] == "render_error")
            #expect(line["reason"]?.stringValue?.hasPrefix("function raised error: boom") == true)
            // Nothing sent yet: the response starts with the error's status and the list's own headers.
            let before = try await client.get("/db/_design/app/_list/failsBeforeOutput/with_n")
            #expect(before.status == 500 && before.header("Content-Type") == "text/csv")
            let (nothing, error) = try Self.split(before.text)
            #expect(nothing.isEmpty && error["error"] == "render_error")
            // Before any row was asked for, CouchDB has started nothing: a plain error answer.
            let atOnce = try await client.get("/db/_design/app/_list/failsAtOnce/with_n")
            #expect(atOnce.status == 500 && atOnce.json["error"] == "render_error")
            #expect(atOnce.header("Content-Type") == "application/json" && !atOnce.text.contains("never"))
        }
    }

    /// `chttpd_rewrite:do_rewrite/2` answers a function's `code` with exactly its headers, and its body or
    /// the request's own.
    @Test func aRewriteFunctionsOwnAnswerHasItsHeadersAndTheRequestBodyByDefault() async throws {
        try await withDesignServer { _, client in
            try await client.storeApp(ddoc, documents: 1)
            let echo = try await client.send("POST", "/db/_design/app/_rewrite/echo", body: Data("hello".utf8), contentType: "text/plain")
            #expect(echo.status == 202 && echo.text == "hello" && echo.header("X-Echo") == "yes")
            #expect(echo.header("Content-Type") == nil && echo.header("Cache-Control") == nil)
            let own = try await client.get("/db/_design/app/_rewrite/other")
            #expect(own.status == 200 && own.text == "own" && own.header("Content-Type") == nil)
        }
    }

    /// A failed list's body: what it sent, then `\n` and the error's JSON and `\n`.
    private static func split(_ body: String) throws -> (output: String, error: JSONValue) {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines.last == "")
        return (String(lines.first ?? ""), try JSONValue(parsing: String(lines.dropFirst().first ?? "")))
    }
}
