@testable import CloudantCore
import Testing

@Suite("View query parameters (couch_mrview_http:parse_params, validate_args)")
struct ViewQueryTests {
    func parse(_ pairs: [(String, String)]) throws -> ViewQuery { try ViewQuery(parameters: pairs) }

    func parseError(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as CloudantError {
            return error.queryErrorKind == .queryParseError ? error.message : "not a query_parse_error: \(error)"
        } catch {
            return "\(error)"
        }
    }

    @Test func keysAndRangesAreJSON() throws {
        let query = try parse([("startkey", #"["a",1]"#), ("endkey", #"["a",{}]"#), ("startkey_docid", "d1"), ("end_key_doc_id", "d9")])
        #expect(query.startKey == ["a", 1])
        #expect(query.endKey == ["a", [:]])
        #expect(query.startKeyDocID == "d1")
        #expect(query.endKeyDocID == "d9")
    }

    @Test func aLaterParameterOverridesAnEarlierOneInOrder() throws {
        #expect(try parse([("startkey", "1"), ("key", "2")]).startKey == 2)
        let reversed = try parse([("key", "2"), ("startkey", "1")])
        #expect(reversed.startKey == 1 && reversed.endKey == 2)
    }

    @Test func keysOfOneKeyIsThatKeysRange() throws {
        let one = try parse([("keys", #"["a"]"#)])
        #expect(one.keys == nil && one.startKey == "a" && one.endKey == "a")
        #expect(try parse([("keys", #"["a","b"]"#)]).keys == ["a", "b"])
    }

    @Test func staleSetsStableAndUpdate() throws {
        let ok = try parse([("stale", "ok")])
        #expect(ok.stable && ok.update == .false)
        let after = try parse([("stale", "update_after")])
        #expect(after.stable && after.update == .lazy)
        #expect(parseError { try parse([("stale", "no")]) } == "Invalid value for `stale`.")
        #expect(parseError { try parse([("update", "sometimes")]) } == "Invalid value for `update`.")
        #expect(parseError { try parse([("stable", "1")]) } == "Invalid value for `stable`.")
    }

    @Test func booleansAndIntegersReadAsCouchDBReadsThem() throws {
        #expect(try parse([("descending", "TRUE")]).descending)
        #expect(parseError { try parse([("descending", "yes")]) } == #"Invalid boolean parameter: "yes""#)
        #expect(parseError { try parse([("limit", "ten")]) } == #"Invalid value for integer: "ten""#)
        #expect(parseError { try parse([("limit", "-1")]) } == #"Invalid value for positive integer: "-1""#)
        #expect(parseError { try parse([("skip", "1.5")]) } == #"Invalid value for integer: "1.5""#)
        var body = ViewQuery()
        try body.apply("limit", .json(3))
        try body.apply("reduce", .json(false))
        #expect(body.limit == 3 && body.reduce == false)
    }

    @Test func aKeyThatIsNotJSONIsInvalidJSON() throws {
        #expect(throws: CloudantError.self) { try parse([("key", "abc")]) }
    }

    @Test func unknownParametersAreIgnored() throws {
        #expect(try parse([("callback", "x"), ("whatever", "1"), ("", "")]) == ViewQuery())
    }

    @Test func groupingFollowsDetermineGroupLevel() throws {
        #expect(try parse([]).validated(kind: .reduce) == .none)
        #expect(try parse([("group", "true")]).validated(kind: .reduce) == .exact)
        #expect(try parse([("group_level", "2")]).validated(kind: .reduce) == .level(2))
        #expect(try parse([("group", "true"), ("group_level", "0")]).validated(kind: .reduce) == .none)
        #expect(parseError { try parse([("group", "false"), ("group_level", "1")]).validated(kind: .reduce) }
            == "Can't specify group=false and group_level>0 at the same time")
    }

    @Test func validationRefusesWhatCouchDBRefuses() throws {
        #expect(parseError { try parse([("reduce", "true")]).validated(kind: .map) } == "Reduce is invalid for map-only views.")
        #expect(parseError { try parse([("group", "true")]).validated(kind: .map) } == "Invalid use of grouping on a map view.")
        #expect(parseError { try parse([("keys", "[1,2]")]).validated(kind: .reduce) }
            == "Multi-key fetches for reduce views must use `group=true`")
        #expect(try parse([("keys", "[1,2]"), ("group", "true")]).validated(kind: .reduce) == .exact)
        #expect(parseError { try parse([("keys", "[1,2]"), ("startkey", "1")]).validated(kind: .map) }
            == "`keys` is incompatible with `key`, `start_key` and `end_key`")
        #expect(parseError { try parse([("include_docs", "true")]).validated(kind: .reduce) } == "`include_docs` is invalid for reduce")
        #expect(parseError { try parse([("conflicts", "true")]).validated(kind: .reduce) } == "`conflicts` is invalid for reduce views.")
        #expect(parseError { try parse([]).validated(kind: .map, partitioned: true) }
            == "`partition` parameter is mandatory for queries to this view.")
        #expect(parseError { try parse([("partition", "p")]).validated(kind: .map) }
            == "`partition` parameter is not supported in this design doc")
    }

    @Test func aLimitAboveCouchDBsCeilingIsRefusedBeforeAnyOtherCheck() throws {
        #expect(try parse([("limit", "576460752303423487")]).validated(kind: .map) == .none)
        // Checked first, as `apply_limit` runs before `validate_args`: the reduce error is not the one given.
        #expect(parseError { try parse([("limit", "576460752303423488"), ("reduce", "true")]).validated(kind: .map) }
            == "Limit is too large, must not exceed 576460752303423487")
    }

    @Test func aLimitBeyondSixtyFourBitsIsTooLargeNotMalformed() throws {
        // Erlang's integers have no bound: CouchDB parses the number and then finds it above its ceiling.
        #expect(parseError { try parse([("limit", "99999999999999999999999")]).validated(kind: .map) }
            == "Limit is too large, must not exceed 576460752303423487")
        #expect(parseError { try parse([("limit", "-99999999999999999999999")]) }
            == #"Invalid value for positive integer: "-99999999999999999999999""#)
        var fromBody = ViewQuery()
        try fromBody.apply("limit", .json(try JSONValue(parsing: "99999999999999999999999")))
        #expect(fromBody.limit == Int.max)
        #expect(parseError { try fromBody.apply("limit", .json(try JSONValue(parsing: "1.5"))) } == "Invalid value for integer: 1.5")
        // A skip past every row and a group level deeper than any key stay what they say.
        #expect(try parse([("skip", "99999999999999999999999")]).skip == Int.max)
    }

    @Test func queryLimitsGiveTheirCeilingToAQueryWithoutALimitAndRefuseALargerOne() throws {
        let limits = QueryLimits(query: 2, partitionQuery: 5)
        #expect(try limits.limit(nil, partitioned: false) == 2)
        #expect(try limits.limit(nil, partitioned: true) == 5)
        #expect(try limits.limit(1, partitioned: false) == 1)
        #expect(try limits.limit(4, partitioned: true) == 4)
        #expect(parseError { try limits.limit(3, partitioned: false) as Any } == "Limit is too large, must not exceed 2")
        #expect(parseError { try limits.limit(6, partitioned: true) as Any } == "Limit is too large, must not exceed 5")
        // CouchDB's defaults (`infinity`) leave a query without a limit unlimited.
        #expect(try QueryLimits.couchDBDefaults.limit(nil, partitioned: false) == nil)
        #expect(try QueryLimits.couchDBDefaults.limit(ViewQuery.maximumLimit, partitioned: true) == ViewQuery.maximumLimit)
    }

    @Test func aRangeWithNoRowsInItsDirectionIsRefused() throws {
        #expect(parseError { try parse([("startkey", "2"), ("endkey", "1")]).checkRange(raw: false) }
            == "No rows can match your key range, reverse your start_key and end_key or set descending=true")
        #expect(parseError { try parse([("startkey", "1"), ("endkey", "2"), ("descending", "true")]).checkRange(raw: false) }
            == "No rows can match your key range, reverse your start_key and end_key or set descending=false")
        try parse([("startkey", "2"), ("endkey", "1"), ("descending", "true")]).checkRange(raw: false)
        // Collation orders "a" before "B"; raw bytes put "B" first.
        try parse([("startkey", #""a""#), ("endkey", #""B""#)]).checkRange(raw: false)
        #expect(parseError { try parse([("startkey", #""a""#), ("endkey", #""B""#)]).checkRange(raw: true) } != nil)
    }
}
