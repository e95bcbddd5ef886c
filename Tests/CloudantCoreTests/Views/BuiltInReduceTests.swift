@testable import CloudantCore
import Testing

@Suite("Built-in reduce functions (couch_query_servers)")
struct BuiltInReduceTests {
    func reduce(_ name: String, _ rows: [(JSONValue, String, JSONValue)]) throws -> JSONValue {
        var accumulator = try #require(BuiltInReduce(name)).accumulator()
        for (key, id, value) in rows { accumulator.add(key: key, id: id, value: value) }
        return try accumulator.result()
    }

    func values(_ values: [JSONValue]) -> [(JSONValue, String, JSONValue)] {
        values.enumerated().map { (.number(JSONNumber($0.offset)), "d\($0.offset)", $0.element) }
    }

    @Test func namesMatchByPrefixAndRanksAreChecked() {
        #expect(BuiltInReduce("_sum_anything") == .sum)
        #expect(BuiltInReduce("_top_3") == .top(3))
        #expect(BuiltInReduce("_bottom_100") == .bottom(100))
        #expect(BuiltInReduce("_top_0") == nil)
        #expect(BuiltInReduce("_top_101") == nil)
        #expect(BuiltInReduce("_median") == nil)
        #expect(BuiltInReduce("function(k, v) {}") == nil)
    }

    @Test func sumAddsNumbersExactlyAsErlangDoes() throws {
        #expect(try reduce("_sum", values([1, 2, 3])) == 6)
        #expect(try reduce("_sum", values([1, 2.5])) == 3.5)
        #expect(try reduce("_sum", values([.number(.integer(Int64.max)), 1])) == .number(.bigInteger("9223372036854775808")))
        #expect(try reduce("_sum", []) == 0)
    }

    @Test(arguments: [
        ["1", "2", "3"], ["0", "-0", "5"], ["-12", "7", "123456789012345678"], ["9223372036854775807", "1"],
        ["9223372036854775000", "900", "-5"], ["-9223372036854775807", "-1", "-1"], ["1", "1.5", "2"], ["2", "1e3", "4"],
        ["1", "[1,2]", "3"], ["{\"a\":1}", "2"], ["1", "\"x\"", "2"], ["123456789012345678", "123456789012345678"],
        ["1234567890123456789", "1"], ["-0", "-0"], ["0.0", "0"],
    ])
    func sumOfValuesReadAsTextIsTheSumOfTheParsedValues(texts: [String]) throws {
        var parsed = BuiltInReduce.sum.accumulator()
        var read = BuiltInReduce.sum.accumulator()
        for text in texts {
            let value = try JSONValue(parsing: text)
            parsed.add(key: .null, id: "", value: value)
            let bytes = Array(text.utf8)
            let taken = bytes.withUnsafeBufferPointer { read.addWholeNumberText($0) }
            if !taken { read.add(key: .null, id: "", value: value) }
            #expect(taken == false || value.numberValue?.int64Value != nil, "only whole numbers are read as text: \(text)")
        }
        #expect(try read.result() == parsed.result())
    }

    @Test func aThousandRandomSumsReadAsTextAreTheSumsOfTheParsedValues() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            var parsed = BuiltInReduce.sum.accumulator()
            var read = BuiltInReduce.sum.accumulator()
            for _ in 0..<Int.random(in: 1...20, using: &random) {
                let text: String
                switch Int.random(in: 0..<6, using: &random) {
                case 0: text = String(Int64.random(in: Int64.min...Int64.max, using: &random))
                case 1: text = String(Int64.random(in: -1000...1000, using: &random))
                case 2: text = String(Int64.random(in: (Int64.max - 10)...Int64.max, using: &random))
                case 3: text = "\(Double.random(in: -1e6...1e6, using: &random))"
                case 4: text = "-0"
                default: text = String(Int64.random(in: -999_999_999_999_999_999...999_999_999_999_999_999, using: &random))
                }
                let value = try JSONValue(parsing: text)
                parsed.add(key: .null, id: "", value: value)
                if !Array(text.utf8).withUnsafeBufferPointer({ read.addWholeNumberText($0) }) { read.add(key: .null, id: "", value: value) }
            }
            #expect(try read.result() == parsed.result())
        }
    }

    @Test func sumAddsArraysElementByElementKeepingTheLongerTail() throws {
        #expect(try reduce("_sum", values([[1, 2], [10, 20, 30], 5])) == [16, 22, 30])
    }

    @Test func sumAddsObjectsMemberByMemberSortedOnceMerged() throws {
        let x: JSONValue = ["g": 1, "a": 1, "b": [1, 2], "c": ["d": 3]]
        let y: JSONValue = ["a": 2, "b": 3, "c": ["e": 5], "f": 1, "g": 1]
        let sum = try reduce("_sum", values([x, y]))
        #expect(sum.objectValue?.members.map(\.key) == ["a", "b", "c", "f", "g"])
        #expect(sum == ["a": 3, "b": [4, 2], "c": ["d": 3, "e": 5], "f": 1, "g": 2])
        #expect(try reduce("_sum", values([x])) == x)
    }

    @Test func sumOfWhatCannotBeAddedIsCouchDBsErrorObject() throws {
        let result = try reduce("_sum", values([1, "two"]))
        #expect(result["error"] == "builtin_reduce_error")
        #expect(result["caused_by"] == "two")
        #expect(result["reason"]?.stringValue?.hasPrefix("The _sum function requires that map values be numbers") == true)
    }

    @Test func countCountsRows() throws {
        #expect(try reduce("_count", values(["a", 1, .null])) == 3)
    }

    @Test func statsGivesSumCountMinMaxAndSumOfSquares() throws {
        #expect(try reduce("_stats", values([2, 4, 9])) == ["sum": 15, "count": 3, "min": 2, "max": 9, "sumsqr": 101])
        #expect(try reduce("_stats", values([[1, 10], [3, 30]])) == [
            ["sum": 4, "count": 2, "min": 1, "max": 3, "sumsqr": 10], ["sum": 40, "count": 2, "min": 10, "max": 30, "sumsqr": 1000],
        ])
        // A value may be earlier stats.
        #expect(try reduce("_stats", values([["sum": 5, "count": 2, "min": 1, "max": 4, "sumsqr": 17], 3]))
            == ["sum": 8, "count": 3, "min": 1, "max": 4, "sumsqr": 26])
    }

    @Test func statsOfAStringFailsTheQueryWithCouchDBsMessage() throws {
        let error = #expect(throws: CloudantError.self) { try reduce("_stats", values([1, "x"])) }
        #expect(error?.message == #"The _stats function requires that map values be numbers or arrays of numbers, not '<<"x">>'"#)
    }

    @Test func statsOfANumberAfterAnArrayNamesTheNumbersTupleAsCouchDBDoes() throws {
        // `stat_values(3, [...])` turns 3 into `{3,1,3,3,9}`, which no clause takes with a list.
        let error = #expect(throws: CloudantError.self) { try reduce("_stats", values([[1, 2], 3])) }
        #expect(error?.message == "The _stats function requires that map values be numbers or arrays of numbers, not '{3,1,3,3,9}'")
    }

    @Test func approximateCountDistinctCountsDistinctKeys() throws {
        var accumulator = BuiltInReduce.approximateCountDistinct.accumulator()
        for key in 0..<500 { accumulator.add(key: .number(JSONNumber(key % 250)), id: "d", value: .null) }
        accumulator.add(key: "text", id: "d", value: .null)
        accumulator.add(key: ["a", 1], id: "d", value: .null)
        let count = try #require(accumulator.result().numberValue?.int64Value)
        // 252 distinct keys; an estimate, within HyperLogLog's standard error at precision 11
        // (1.04 / sqrt(2048), about 2.3 %), never a count of every key.
        #expect((246...258).contains(count))
    }

    /// CouchDB's answers for the first `n` keys of each set: `couch_hyper` (precision 11) of CouchDB 3.5 run
    /// under Erlang/OTP over `term_to_binary(Key, [{minor_version, 1}])`, as `couch_query_servers` reduces.
    /// Both sides of the linear-counting threshold (1800) and of the bias correction's end (5 × 2048) are here,
    /// and keys holding the atoms `null` and `false`.
    static let couchDBCounts: [(name: String, key: @Sendable (Int) -> JSONValue, counts: [(Int, Int64)])] = [
        ("integers", { .number(JSONNumber($0)) },
         [(1, 1), (10, 10), (50, 50), (100, 99), (500, 512), (1000, 1005), (1500, 1531), (1850, 1858), (2000, 1983),
          (3000, 2929), (5000, 4940), (12000, 11914)]),
        ("strings", { .string("key-\($0)") },
         [(1, 1), (10, 10), (50, 51), (100, 101), (500, 506), (1000, 1013), (1500, 1507), (1850, 1874), (2000, 2020),
          (3000, 2948), (5000, 4881), (12000, 11789)]),
        ("pairs with null", { [.number(JSONNumber($0)), .null] },
         [(1, 1), (10, 10), (50, 51), (100, 100), (500, 494), (1000, 1010), (1500, 1499), (1850, 1821), (2000, 1964),
          (3000, 2989), (5000, 5000), (12000, 11962)]),
        ("objects with false", { ["a": .number(JSONNumber($0)), "b": false] },
         [(1, 1), (10, 10), (50, 51), (100, 100), (500, 499), (1000, 998), (1500, 1524), (1850, 1869), (2000, 2023),
          (3000, 3052), (5000, 4994), (12000, 12385)]),
    ]

    @Test func approximateCountDistinctAnswersWhatCouchDBAnswersForTheSameKeys() throws {
        for set in Self.couchDBCounts {
            var accumulator = BuiltInReduce.approximateCountDistinct.accumulator()
            var added = 0
            for (n, expected) in set.counts {
                while added < n {
                    added += 1
                    accumulator.add(key: set.key(added), id: "d\(added)", value: .null)
                }
                #expect(try accumulator.result().numberValue?.int64Value == expected, "\(set.name), \(n) keys")
            }
        }
    }

    @Test func topAndBottomKeepTheNDistinctGreatestOrLeastValuesInOrder() throws {
        #expect(try reduce("_top_3", values([5, 1, 9, 5, 7, 3])) == [9, 7, 5])
        #expect(try reduce("_bottom_2", values([5, 1, 9, "a", 1])) == [1, 5])
        #expect(try reduce("_top_2", values(["b", "A", "a"])) == ["b", "A"])
    }

    @Test func firstAndLastAreTheValuesOfTheLeastAndGreatestKeyAndID() throws {
        let rows: [(JSONValue, String, JSONValue)] = [("b", "d1", 1), ("a", "d9", 2), ("a", "d2", 3), ("c", "d0", 4)]
        #expect(try reduce("_first", rows) == 3)
        #expect(try reduce("_last", rows) == 4)
    }

    @Test func theExternalTermFormatIsCouchDBsTermToBin() {
        #expect(ErlangTerm.externalFormat(of: 1) == [131, 97, 1])
        #expect(ErlangTerm.externalFormat(of: 1000) == [131, 98, 0, 0, 3, 232])
        #expect(ErlangTerm.externalFormat(of: "ab") == [131, 109, 0, 0, 0, 2, 97, 98])
        #expect(ErlangTerm.externalFormat(of: [1, 2]) == [131, 107, 0, 2, 1, 2])
        #expect(ErlangTerm.externalFormat(of: [1, "a"]) == [131, 108, 0, 0, 0, 2, 97, 1, 109, 0, 0, 0, 1, 97, 106])
        // Atoms as `?term_to_bin` (minor version 1) writes them: ATOM_EXT with a two-byte length.
        #expect(ErlangTerm.externalFormat(of: .null) == [131, 100, 0, 4] + Array("null".utf8))
        #expect(ErlangTerm.externalFormat(of: ["a": true]) == [131, 104, 1, 108, 0, 0, 0, 1, 104, 2, 109, 0, 0, 0, 1, 97, 100, 0, 4] + Array("true".utf8) + [106])
    }
}
