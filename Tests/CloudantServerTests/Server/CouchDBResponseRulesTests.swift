import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// Rules of CouchDB's HTTP answers read from chttpd and couch_mrview: JSONP, `_design_docs`' count, a system
/// database deleted and created again, the documents `include_docs` picks from emitted values, the collator
/// versions of a view index.
@Suite("CouchDB response rules")
struct CouchDBResponseRulesTests {
    @Test func jsonpWrapsJSONAnswersOnlyWhenTheConfigurationAllowsIt() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.put("/db", [:])
            _ = try await client.put("/db/doc", ["a": 1])
            // Off by default: the callback is ignored.
            let plain = try await client.get("/db/doc?callback=show")
            #expect(plain.header("Content-Type") == "application/json")
            #expect(try await client.put("/_node/_local/_config/chttpd/allow_jsonp", "true").status == 200)

            let wrapped = try await client.get("/db/doc?callback=show")
            #expect(wrapped.status == 200 && wrapped.header("Content-Type") == "application/javascript")
            #expect(wrapped.text.hasPrefix("/* CouchDB */show({\"_id\":\"doc\"") && wrapped.text.hasSuffix("});\n"))
            // Errors and streamed answers too.
            let missing = try await client.get("/db/nothing?callback=app.cb_1")
            #expect(missing.status == 404 && missing.text == "/* CouchDB */app.cb_1({\"error\":\"not_found\",\"reason\":\"missing\"});\n")
            let changes = try await client.get("/db/_changes?callback=feed")
            #expect(changes.text.hasPrefix("/* CouchDB */feed({\"results\":[") && changes.text.hasSuffix("});\n"))
            let json = String(changes.text.dropFirst("/* CouchDB */feed(".count).dropLast(");\n".count))
            #expect(try JSONValue(parsing: Array(json.utf8))["results"]?.arrayValue?.count == 1)

            let invalid = try await client.get("/db/doc?callback=alert(1)")
            #expect(invalid.status == 400 && invalid.json == ["error": "bad_request", "reason": "invalid_callback"])
        }
    }

    @Test func designDocsCountOnlyDesignDocuments() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.put("/db", [:])
            for index in 0..<3 { _ = try await client.put("/db/doc\(index)", [:]) }
            for index in 0..<2 { _ = try await client.put("/db/_design/d\(index)", [:]) }
            let design = try await client.get("/db/_design_docs").json
            #expect(design["total_rows"] == 2 && design["rows"]?.arrayValue?.count == 2)
            #expect(try await client.get("/db/_all_docs").json["total_rows"] == 5)
        }
    }

    @Test func aDeletedSystemDatabaseStaysDeletedUntilCreatedAgain() async throws {
        try await withLiveServer { server in
            let client = server.admin
            for name in ["_replicator", "_users"] {
                #expect(try await client.delete("/\(name)").status == 200)
                // Neither the server's own followers nor a scheduler query create it behind the client's back.
                _ = try await client.get("/_scheduler/docs")
                #expect(try await client.get("/\(name)").status == 404)
                let created = try await client.put("/\(name)", [:])
                #expect(created.status == 201 && created.json == ["ok": true])
            }
        }
    }

    @Test func includeDocsFollowsAnEmittedRevisionOfTheRowsOwnDocument() async throws {
        try await withDesignServer { _, client in
            let first = try await client.put("/db/doc", ["n": 1]).json["rev"]?.stringValue ?? ""
            _ = try await client.put("/db/doc", ["n": 2, "_rev": .string(first), "prev": .string(first)])
            let ddoc: JSONValue = [
                "views": ["previous": ["map": "function(doc) { emit(doc._id, {_rev: doc.prev || doc._rev}); }"]]
            ]
            _ = try await client.put("/db/_design/links", ddoc)
            let row = try await client.get("/db/_design/links/_view/previous?include_docs=true").json["rows"]?.arrayValue?.first
            #expect(row?["doc"]?["_rev"] == .string(first) && row?["doc"]?["n"] == 1)
        }
    }

    @Test func aViewIndexNamesTheCollationItsRowsAreSortedWith() async throws {
        try await withDesignServer { _, client in
            _ = try await client.put("/db/_design/v", ["views": ["all": ["map": "function(doc) { emit(doc._id); }"]]])
            let info = try await client.get("/db/_design/v/_info").json
            #expect(info["view_index"]?["collator_versions"] == [.string(Collation.version)])
        }
    }

    /// `/_node/_local/_versions` names the collation and the JavaScript engine as CouchDB's does (clients and
    /// CouchDB's own tests read `javascript_engine.name` to know how design functions are sandboxed, and
    /// `collation_driver.name` to know how keys sort).
    @Test func versionsNameTheCollationAndTheJavaScriptEngine() async throws {
        try await withDesignServer { _, client in
            let versions = try await client.get("/_node/_local/_versions").json
            // chttpd_misc_test matches `collation_driver.name` against "libicu": it is the same collator.
            #expect(versions["collation_driver"] == [
                "name": "libicu", "library_version": .string(Collation.libraryVersion),
                "collation_algorithm_version": .string(Collation.algorithmVersion),
                "collator_version": .string(Collation.version),
            ])
            #expect(versions["javascript_engine"]?["name"] == "javascriptcore")
            #expect(versions["javascript_engine"]?["version"]?.stringValue?.split(separator: ".").count == 3)
        }
        try await withLiveServer { server in
            let withoutEngine = try await server.admin.get("/_node/_local/_versions").json
            #expect(withoutEngine["javascript_engine"] == nil)
        }
    }

    /// A design document in a language the engine does not run is saved (CouchDB lets it be) and answered with
    /// CouchDB's `unknown_query_language` when a function of it is needed.
    @Test func aLanguageTheEngineDoesNotRunIsCouchDBsUnknownQueryLanguage() async throws {
        try await withDesignServer { _, client in
            let erlang: JSONValue = ["language": "erlang", "views": ["v": ["map": "fun({Doc}) -> Emit(1, null) end."]]]
            #expect(try await client.put("/db/_design/e", erlang).status == 201)
            let view = try await client.get("/db/_design/e/_view/v")
            view.expectCouchError(500, "unknown_query_language", "erlang")
            let coffee: JSONValue = ["language": "coffeescript", "shows": ["s": "(doc, req) -> 'hi'"]]
            #expect(try await client.put("/db/_design/c", coffee).status == 201)
            #expect(try await client.get("/db/_design/c/_show/s").json == ["error": "unknown_query_language", "reason": "coffeescript"])
        }
    }

    /// `POST /{db}` answers 201 for every write it makes, a deletion included; a `PUT` of one answers 200.
    @Test func aDeletionPostedToTheDatabaseIsCreatedAndOnePutIsOK() async throws {
        try await withLiveDatabase { _, client in
            let first = try #require(try await client.post("/db", ["_id": "a"]).json["rev"]?.stringValue)
            let posted = try await client.post("/db", ["_id": "a", "_rev": .string(first), "_deleted": true])
            #expect(posted.status == 201 && posted.json["ok"] == true)
            let second = try #require(try await client.put("/db/b", [:]).json["rev"]?.stringValue)
            #expect(try await client.put("/db/b", ["_rev": .string(second), "_deleted": true]).status == 200)
        }
    }

    @Test func anAttachmentWrittenWithAWAboveOneIsAcceptedAsADocumentIs() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.put("/db", [:])
            let rev = try await client.put("/db/doc", [:]).json["rev"]?.stringValue ?? ""
            let accepted = try await client.send(
                "PUT", "/db/doc/note.txt?rev=\(rev)&w=3", body: Data("text".utf8), contentType: "text/plain")
            #expect(accepted.status == 202 && accepted.json["ok"] == true)
            let next = accepted.json["rev"]?.stringValue ?? ""
            let bad = try await client.send("PUT", "/db/doc/other.txt?rev=\(next)&w=x", body: Data("text".utf8), contentType: "text/plain")
            #expect(bad.status == 400)
            #expect(try await client.get("/db/doc").json["_attachments"]?["other.txt"] == nil)
        }
    }
}
