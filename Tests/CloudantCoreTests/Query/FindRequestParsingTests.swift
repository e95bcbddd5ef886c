import CloudantCore
import Testing

@Suite("_find bodies read as CouchDB's mango_opts reads them")
struct FindRequestParsingTests {
    static let useIndexShapes: [(JSONValue, [String]?)] = [
        (.null, nil), ([], nil), ("ddoc", ["ddoc"]), ("_design/ddoc", ["ddoc"]), ("ddoc/name", ["ddoc", "name"]),
        ("_design/ddoc/name", ["ddoc", "name"]), (["ddoc"], ["ddoc"]), (["ddoc", "name"], ["ddoc", "name"]),
    ]

    @Test func useIndexTakesEveryShapeCouchDBDoes() throws {
        for (value, expected) in Self.useIndexShapes {
            #expect(try FindRequest(["selector": [:], "use_index": value]).useIndex == expected, "\(value)")
        }
    }

    @Test(arguments: ["foo/bar/baz", ["foo", "bar", "baz"], 5, [1]] as [JSONValue])
    func otherUseIndexShapesAreInvalidIndexNames(value: JSONValue) {
        let error = #expect(throws: CloudantError.self) { try FindRequest(["selector": [:], "use_index": value]) }
        #expect(error?.queryErrorKind == .invalidIndexName)
    }

    @Test func optionsCouchDBKeepsForExplainAreRead() throws {
        let request = try FindRequest(["selector": [:], "r": 3, "update": false, "stable": true, "stale": "ok", "partition": "p1"])
        #expect(request.readQuorum == 3 && !request.update && request.stable && request.staleOK)
        #expect(request.partition == "p1")
        #expect(try FindRequest(["selector": [:], "partition": ""]).partition == nil)
        let bad = #expect(throws: CloudantError.self) { try FindRequest(["selector": [:], "r": true]) }
        #expect(bad?.queryErrorKind == .invalidPosInteger)
    }

    @Test func knownKeysAreCheckedBeforeAnUnknownOneIsRefused() {
        let error = #expect(throws: CloudantError.self) { try FindRequest(["selector": [:], "wat": 1, "limit": -1]) }
        #expect(error?.queryErrorKind == .invalidNonNegInteger)
    }
}
