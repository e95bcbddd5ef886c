import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// `_find`, `_explain` and `_index` by `mango_httpd` and `mango_selector`: a `?partition=` narrows a query as
/// the path's does, an index is never added to a design document of another language, and `$beginsWith`
/// matches as `string:prefix/2`.
@Suite("Mango request rules")
struct MangoRulesTests {
    private func ids(_ answer: JSONValue) -> [String] {
        answer["docs"]?.arrayValue?.compactMap { $0["_id"]?.stringValue } ?? []
    }

    @Test func aPartitionInTheQueryStringNarrowsFindAndExplain() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = server.admin
            #expect(try await client.send("PUT", "/pt?partitioned=true").status == 201)
            _ = try await client.post("/pt/_bulk_docs", ["docs": [["_id": "p1:a"], ["_id": "p1:b"], ["_id": "p2:a"]]])
            let found = try await client.post("/pt/_find?partition=p1", ["selector": [:], "fields": ["_id"]]).json
            #expect(ids(found) == ["p1:a", "p1:b"])
            let explained = try await client.post("/pt/_explain?partition=p1", ["selector": [:]]).json
            #expect(explained["opts"]?["partition"] == "p1")
        }
    }

    @Test func anIndexIsNeverAddedToADesignDocumentOfAnotherLanguage() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = server.admin
            #expect(try await client.send("PUT", "/t").status == 201)
            let show: JSONValue = ["language": "javascript", "shows": ["s": "function(doc, req) { return 'hello'; }"]]
            #expect(try await client.put("/t/_design/shw", show).status == 201)
            try await client.post("/t/_index", ["index": ["fields": ["q"]], "ddoc": "shw"]).expectCouchError(
                400, "invalid_ddoc_lang", #"Existing design doc has an invalid language: {<<"language">>,<<"javascript">>}"#)
            #expect(try await client.put("/t/_design/vdu", ["validate_doc_update": "function() {}"]).status == 201)
            try await client.post("/t/_index", ["index": ["fields": ["q"]], "ddoc": "vdu"]).expectCouchError(
                400, "invalid_ddoc_lang", "Existing design doc has an invalid language: false")
            #expect(try await client.get("/t/_design/shw").json["language"] == "javascript")
            // A query design document takes more indexes.
            #expect(try await client.post("/t/_index", ["index": ["fields": ["q"]], "ddoc": "q"]).json["result"] == "created")
            #expect(try await client.post("/t/_index", ["index": ["fields": ["r"]], "ddoc": "q", "name": "r"]).json["result"] == "created")
        }
    }

    @Test func beginsWithMatchesWholeGraphemeClustersWithOrWithoutAnIndex() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = server.admin
            #expect(try await client.send("PUT", "/g").status == 201)
            let docs: JSONValue = [
                "docs": [
                    ["_id": "plain", "s": "ex"], ["_id": "combining", "s": "e\u{301}x"], ["_id": "crlf", "s": "\r\n"],
                    ["_id": "cr", "s": "\rx"],
                ]
            ]
            _ = try await client.post("/g/_bulk_docs", docs)
            for indexed in [false, true] {
                if indexed { _ = try await client.post("/g/_index", ["index": ["fields": ["s"]]]) }
                let e = try await client.post("/g/_find", ["selector": ["s": ["$beginsWith": "e"]]]).json
                #expect(ids(e) == ["plain"], "indexed: \(indexed)")
                let accented = try await client.post("/g/_find", ["selector": ["s": ["$beginsWith": "e\u{301}"]]]).json
                #expect(ids(accented) == ["combining"], "indexed: \(indexed)")
                let cr = try await client.post("/g/_find", ["selector": ["s": ["$beginsWith": "\r"]]]).json
                #expect(ids(cr) == ["cr"], "indexed: \(indexed)")
            }
        }
    }

    /// `mango_error:info/2`'s reasons, the request option quoted as Erlang writes it (`~w`, `~p`). A selector's own
    /// values are not quoted here: they may hold personal data.
    @Test func requestErrorsSayWhatMangoErrorSays() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = server.admin
            #expect(try await client.send("PUT", "/e").status == 201)
            let cases: [(JSONValue, String, String)] = [
                (["selector": [:], "limit": -1], "invalid_non_neg_integer", "-1 is not an integer greater than or equal to zero"),
                (["selector": [:], "r": 0], "invalid_pos_integer", "0 is not an integer greater than zero"),
                (["selector": [:], "conflicts": "true"], "invalid_boolean", #"Invalid boolean value: <<"true">>"#),
                (["selector": [:], "use_index": 5], "invalid_index_name", "Invalid index name: 5"),
                (["selector": [:], "sort": [:]], "invalid_sort_json", "Sort must be an array of sort specs, not: {[]}"),
                (["selector": [:], "sort": [""]], "invalid_sort_field", "Invalid sort field: <<>>"),
                (["selector": [:], "fields": "a"], "invalid_fields", #"Fields must be an array of strings, not: <<"a">>"#),
                (["selector": ["a": ["$where": 1]]], "not_supported", "Unsupported operator: $where"),
                (["selector": ["": 1]], "invalid_selector", "One or more conditions is missing a field name."),
            ]
            for (body, error, reason) in cases {
                try await client.post("/e/_find", body).expectCouchError(400, error, reason)
            }
            let indexes: [(JSONValue, String, String)] = [
                (["index": ["fields": ["a"]], "type": "geo"], "invalid_index", "Invalid type for index: geo"),
                (["index": []], "invalid_index", "JSON indexes must be an object, not: []"),
                (["index": ["fields": ["a"]], "w": 0], "invalid_pos_integer", "0 is not an integer greater than zero"),
            ]
            for (body, error, reason) in indexes {
                try await client.post("/e/_index", body).expectCouchError(400, error, reason)
            }
        }
    }
}
