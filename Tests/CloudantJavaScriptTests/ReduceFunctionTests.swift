import CloudantCore
@testable import CloudantJavaScript
import Testing

@Suite("JavaScript reduce functions (CouchDB's reduce and rereduce)")
struct ReduceFunctionTests {
    let rows: [JSONValue] = [[["a", "d1"], 1], [["b", "d2"], 2], [["c", "d3"], 3]]

    @Test func reduceGetsKeysWithIdsAndValues() throws {
        let results = try makeEngine().reduce(
            ["function(keys, values, rereduce) { return [keys, values, rereduce]; }", "function(k, v) { return sum(v); }"],
            rows: rows, context: "d/v")
        #expect(results == [[[["a", "d1"], ["b", "d2"], ["c", "d3"]], [1, 2, 3], false], 6])
    }

    @Test func rereduceGetsNullKeysAndTheReductions() throws {
        let results = try makeEngine().rereduce(["function(k, v, re) { return [k, sum(v), re]; }"], values: [1, 2, 3], context: "d/v")
        #expect(results == [[.null, 6, true]])
    }

    @Test func aReduceThatThrowsGivesNullAndIsLogged() throws {
        let log = LogLines()
        let results = try makeEngine(log: log).reduce(["function() { throw new Error('no'); }", "function(k, v) { return v.length; }"], rows: rows, context: "d/v")
        #expect(results == [.null, 3])
        #expect(log.all == ["function raised exception Error: no"])
    }

    @Test func outputThatDoesNotShrinkIsAReduceOverflowError() throws {
        let big: [JSONValue] = (0..<200).map { [[.string("k\($0)"), "id"], .string(String(repeating: "x", count: 40))] }
        let growing = "function(k, v) { return v.concat(v); }"
        let error = designFailure { try makeEngine().reduce([growing], rows: big, context: "d/v") }
        #expect(error?.name == "reduce_overflow_error")
        #expect(error?.reason.hasPrefix("Reduce output must shrink more rapidly: input size:") == true)
        #expect(error?.reason.hasSuffix("context: d/v") == true)
        // Logged instead, or not checked, as CouchDB's reduce_limit = log | false.
        #expect(try makeEngine(reduceLimit: .logged()).reduce([growing], rows: big, context: "d/v").count == 1)
        #expect(try makeEngine(reduceLimit: .off).reduce([growing], rows: big, context: "d/v").count == 1)
    }
}
