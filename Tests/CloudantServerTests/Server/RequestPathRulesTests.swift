import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// How `chttpd` reads a request's path and headers, and the server endpoints that page database names, as
/// CouchDB 3.5 states them.
@Suite("Request paths, headers and database names as chttpd reads them")
struct RequestPathRulesTests {
    @Test func aPlusInThePathIsASpaceUnlessDecodePlusToSpaceIsFalse() async throws {
        try await withLiveServer { server in
            let client = server.admin
            #expect(try await client.send("PUT", "/db").status == 201)
            // CouchDB's default (`chttpd/decode_plus_to_space` = true): `mochiweb_util:unquote/1`.
            #expect(try await client.put("/db/test+doc+2", [:]).json["id"] == "test doc 2")
            #expect(try await client.put("/db/test%2Bdoc", [:]).json["id"] == "test+doc")
            // Set on the node by its name, not persisted: `unquote_path/1` keeps a `+`.
            let setting = try await client.send(
                "PUT", "/_node/nonode@nohost/_config/chttpd/decode_plus_to_space", json: "false",
                headers: ["X-Couch-Persist": "false"])
            #expect(setting.status == 200 && setting.json == "")
            #expect(try await client.put("/db/test+doc+3", [:]).json["id"] == "test+doc+3")
            #expect(try await client.send("PUT", "/random+db").status == 201)
            #expect(try await client.get("/random+db").json["db_name"] == "random+db")
            let bad = try await client.send("PUT", "/_node/_local/_config/chttpd/decode_plus_to_space", json: "maybe")
            #expect(bad.status == 400)
        }
    }

    @Test func allDbsPagesNamesAsAllDocsPagesIDs() async throws {
        try await withLiveServer { server in
            let client = server.admin
            for name in ["alpha", "beta", "gamma", "delta"] { _ = try await client.send("PUT", "/\(name)") }
            func names(_ query: String) async throws -> [String] {
                try await client.get("/_all_dbs" + query).json.arrayValue?.compactMap(\.stringValue) ?? []
            }
            let all = try await names("")
            #expect(all.filter { !$0.hasPrefix("_") } == ["alpha", "beta", "delta", "gamma"])
            #expect(try await names(#"?start_key="beta"&limit=1"#) == ["beta"])
            #expect(try await names(#"?startkey="beta"&endkey="delta""#) == ["beta", "delta"])
            #expect(try await names(#"?startkey="beta"&endkey="delta"&inclusive_end=false"#) == ["beta"])
            #expect(try await names(#"?key="gamma""#) == ["gamma"])
            #expect(try await names(#"?descending=true&startkey="delta"&end_key="alpha""#) == ["delta", "beta", "alpha"])
            #expect(try await names(#"?keys=["gamma","missing","alpha"]"#) == ["gamma", "alpha"])
            #expect(try await names(#"?startkey="b"&limit=2&skip=1"#) == ["delta", "gamma"])
            // Keys that are not strings collate before (numbers) or after (arrays) every name.
            #expect(try await names("?endkey=1") == [])
            #expect(try await names("?startkey=[]") == [])
            let info = try await client.get(#"/_dbs_info?start_key="gamma""#).json.arrayValue ?? []
            #expect(info.compactMap { $0["key"]?.stringValue } == ["gamma"])
        }
    }

    /// CouchDB also sends `Content-Length: 0`; SwiftNIO removes framing headers from every `304` (a listed
    /// difference).
    @Test func notModifiedHasTheETagAnEmptyBodyAndNoContentType() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(try await client.put("/db/foo", ["a": 1]).json["rev"]?.stringValue)
            let cached = try await client.get("/db/foo", headers: ["If-None-Match": "\"\(rev)\""])
            #expect(cached.status == 304)
            #expect(cached.header("Content-Type") == nil)
            #expect(cached.header("ETag") == "\"\(rev)\"")
            #expect(cached.body.isEmpty)
        }
    }

    @Test func aClientsRequestIDIsKeptWhenItIsShortLettersDigitsDashesAndUnderscores() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let given = "E7498DE1-B661-42FA-943D-17F890143068"
            #expect(try await client.get("/", headers: ["X-Couch-Request-ID": given]).header("X-Couch-Request-ID") == given)
            #expect(try await client.get("/", headers: ["X-Couch-Request-ID": "my_id-1"]).header("X-Couch-Request-ID") == "my_id-1")
            for refused in ["has space", "semi;colon", String(repeating: "a", count: 37)] {
                let own = try await client.get("/", headers: ["X-Couch-Request-ID": refused]).header("X-Couch-Request-ID") ?? ""
                #expect(own != refused && own.count == 10 && own.allSatisfy(\.isHexDigit), "\(refused) → \(own)")
            }
        }
    }

    @Test func deletingADatabaseWithARevIsABadRequestThatDeletesNothing() async throws {
        try await withLiveDatabase { _, client in
            let answer = try await client.send("DELETE", "/db/?rev=foobarbaz")
            #expect(answer.status == 400)
            #expect(answer.json["error"] == "bad_request")
            #expect(
                answer.json["reason"]
                    == "You tried to DELETE a database with a ?=rev parameter. Did you mean to DELETE a document instead?")
            #expect(try await client.get("/db").status == 200)
        }
    }

    @Test func idsThatLookReservedAreIllegalToWriteAndMissingToRead() async throws {
        try await withLiveDatabase { _, client in
            let underscore = "Only reserved document ids may start with underscore."
            for path in ["/db/_other", "/db/_tmp_view", "/db/_design"] {
                let written = try await client.put(path, [:])
                #expect(written.status == 400 && written.json["error"] == "illegal_docid", "\(path)")
                #expect(written.json["reason"] == .string(underscore), "\(path)")
                let read = try await client.get(path)
                #expect(read.status == 404 && read.json["error"] == "not_found", "\(path)")
            }
            let posted = try await client.post("/db", ["_id": "_invalid"])
            #expect(posted.status == 400 && posted.json == ["error": "illegal_docid", "reason": .string(underscore)])
            let number = try await client.post("/db", ["_id": 1])
            #expect(number.json == ["error": "illegal_docid", "reason": "Document id must be a string"])
            // `_local` without a name, or with an attachment: chttpd_db's own answers.
            for path in ["/db/_local", "/db/_local/", "/db/_local%2F"] {
                let answer = try await client.put(path, [:])
                #expect(answer.status == 400 && answer.json == ["error": "bad_request", "reason": "Invalid _local document id."], "\(path)")
            }
            let attached = try await client.put("/db/_local/foo/bar", [:])
            #expect(attached.json == ["error": "bad_request", "reason": "_local documents do not accept attachments."])
            // The database is looked up first.
            #expect(try await client.put("/missing/_other", [:]).json["reason"] == "Database does not exist.")
        }
    }

    @Test func theBodysRevTheQuerysAndIfMatchMustAgree() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(try await client.put("/db/doc", ["a": 1]).json["rev"]?.stringValue)
            let mismatched = try await client.put("/db/doc?rev=1-foobar", ["_rev": .string(rev), "a": 2])
            #expect(
                mismatched.status == 400
                    && mismatched.json["reason"] == "Document rev from request body and query string have different values")
            let etag = try await client.send("PUT", "/db/doc", json: ["_rev": .string(rev)], headers: ["If-Match": "1-foobar"])
            #expect(etag.status == 400 && etag.json["reason"] == "Document rev and etag have different values")
            // Agreeing ones edit as one.
            let agreed = try await client.send("PUT", "/db/doc?rev=\(rev)", json: ["_rev": .string(rev)], headers: ["If-Match": "\"\(rev)\""])
            #expect(agreed.status == 201)
        }
    }

    @Test func heartbeatsThatAreNotPositiveWholeNumbersAreRefusedWithChttpdsReasons() async throws {
        try await withLiveDatabase { _, client in
            let negative = try await client.get("/db/_changes?feed=longpoll&heartbeat=-1000")
            #expect(negative.status == 400 && negative.json["reason"] == "The heartbeat value should be a positive integer (in milliseconds).")
            for value in ["abc", "false", "1.5"] {
                let answer = try await client.get("/db/_changes?feed=longpoll&heartbeat=\(value)")
                #expect(
                    answer.json["reason"] == "Invalid heartbeat value. Expecting a positive integer value (in milliseconds).",
                    "\(value)")
            }
        }
    }

    @Test func locationsNameTheHostAProxyForwardsInTheHeaderTheConfigurationNames() async throws {
        try await withLiveDatabase { _, client in
            let forwarded = try await client.send("PUT", "/db/a", json: [:], headers: ["X-Forwarded-Host": "mysite.com"])
            #expect(forwarded.header("Location") == "http://mysite.com/db/a")
            _ = try await client.send("PUT", "/_node/_local/_config/chttpd/x_forwarded_host", json: "X-Host")
            let custom = try await client.send("PUT", "/db/b", json: [:], headers: ["X-Host": "mysite2.com", "X-Forwarded-Proto": "https"])
            #expect(custom.header("Location") == "https://mysite2.com/db/b")
        }
    }

    @Test func aDeletedDocumentsAttachmentIsNotFoundBecauseItIsDeleted() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(
                try await client.put("/db/doc", ["_attachments": ["a.txt": ["content_type": "text/plain", "data": "aGk="]]]).json["rev"]?
                    .stringValue)
            _ = try await client.send("DELETE", "/db/doc?rev=\(rev)")
            #expect(try await client.get("/db/doc/a.txt").json == ["error": "not_found", "reason": "deleted"])
            #expect(try await client.get("/db/nothing/a.txt").json == ["error": "not_found", "reason": "missing"])
        }
    }

    @Test func aPostMayBeAnsweredAsTheMethodItsOverrideHeaderNames() async throws {
        try await withLiveDatabase { _, client in
            let put = try await client.send("POST", "/db/fnord", json: ["bob": "connie"], headers: ["X-HTTP-Method-Override": "PUT"])
            #expect(put.status == 201)
            let rev = try #require(try await client.get("/db/fnord").json["_rev"]?.stringValue)
            let deleted = try await client.send("POST", "/db/fnord?rev=\(rev)", headers: ["X-HTTP-Method-Override": "DELETE"])
            #expect(deleted.status == 200)
            #expect(try await client.get("/db/fnord").status == 404)
            // Only a POST is overridden, and only by a method CouchDB names.
            #expect(try await client.send("GET", "/db/fnord", headers: ["X-HTTP-Method-Override": "PUT"]).status == 404)
            let patch = try await client.send("POST", "/db", json: ["_id": "other"], headers: ["X-HTTP-Method-Override": "PATCH"])
            #expect(patch.status == 201, "PATCH is no method CouchDB overrides with: the POST stands")
        }
    }

    @Test func ifNoneMatchTakesAListAndWeakTags() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(try await client.put("/db/one", [:]).json["rev"]?.stringValue)
            for value in ["W/\"\(rev)\"", "\"1-other\", \"\(rev)\"", "\"1-other\",W/\"\(rev)\""] {
                #expect(try await client.get("/db/one", headers: ["If-None-Match": value]).status == 304, "\(value)")
            }
            #expect(try await client.get("/db/one", headers: ["If-None-Match": "\"1-other\""]).status == 200)
        }
    }
}
