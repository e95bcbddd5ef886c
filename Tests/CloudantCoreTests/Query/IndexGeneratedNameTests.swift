import CloudantCore
import Testing

/// An index created without a name or design document gets CouchDB's generated name
/// (`mango_idx:gen_name/2`), from the whole request as `mango_opts` validates it.
@Suite("Generated index names, as CouchDB's")
struct IndexGeneratedNameTests {
    static func index(_ request: JSONValue) throws -> IndexDefinition { try IndexDefinition(indexRequest: request) }

    /// CouchDB's documentation shows `_design/a5f4711fc9448864a13c81dc71e660b524d7410c` for this request on
    /// CouchDB 2 (options `ddoc`, `def`, `name`, `type`, `w`); an encoder of the same terms that gives that id
    /// gives this one with 3.x's `{partitioned, db_default}` added.
    @Test func theDocumentedRequestGetsCouchDBsDesignDocument() throws {
        let index = try Self.index(["index": ["fields": ["foo"]], "name": "foo-index", "type": "json"])
        #expect(index.designDocumentID == "_design/74644dcd981a77aa2a982e4eb0956fbad86c5a3f")
        #expect(index.name == "foo-index")
    }

    @Test func theSameRequestNamesTheSameIndexAndAnyOtherOptionAnother() throws {
        let plain = try Self.index(["index": ["fields": ["g"]]])
        #expect(try Self.index(["index": ["fields": ["g"]]]) == plain)
        // Options given as their defaults are the same options.
        #expect(try Self.index(["index": ["fields": ["g"]], "type": "json", "w": 2]).name == plain.name)
        #expect(plain.name == plain.designDocument && plain.name.count == 40)
        let others: [JSONValue] = [
            ["index": ["fields": ["g"]], "w": 3],
            ["index": ["fields": ["g"]], "partitioned": false],
            ["index": ["fields": [["g": "asc"]]]],
        ]
        for request in others {
            #expect(try Self.index(request).designDocument != plain.designDocument, "\(request)")
        }
        // A name or a design document given changes the other's generated value too.
        #expect(try Self.index(["index": ["fields": ["g"]], "name": "byg"]).designDocument != plain.designDocument)
        #expect(try Self.index(["index": ["fields": ["g"]], "ddoc": "d"]).name != plain.name)
    }

    @Test func aDefinitionsFingerprintIsTheNameOfARequestWithItsDefinitionAlone() throws {
        let index = try Self.index(["index": ["fields": [["foo": "asc"]]], "type": "json"])
        #expect(index.fingerprint == index.name)
    }
}
