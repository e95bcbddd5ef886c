import CloudantOnly
import Foundation

/// Parsing the bodies the store hands back: every read parses its stored body (members sorted by name, as the
/// store writes them), so the parser's cost per member is every query's cost per document. Baseline:
/// Foundation's `JSONSerialization` on the same bytes, in the same run.
enum JSONParseBenchmark {
    static func run(repetitions: Int) async throws {
        let parses = 100_000
        // A care outcome's size: 24 members, names in byte order, as a stored body is.
        let members = (0..<24).map { index in
            let name = String(format: "field%02d", index)
            switch index % 4 {
            case 0: return #""\#(name)":"value \#(index) of a stored body""#
            case 1: return #""\#(name)":\#(index * 37)"#
            case 2: return #""\#(name)":\#(Double(index) / 8)"#
            default: return #""\#(name)":{"nested":true,"unit":"mg/dL"}"#
            }
        }
        let body = Array(("{" + members.joined(separator: ",") + "}").utf8)
        let data = Data(body)
        var parsed = 0
        try await BenchmarkGroup(
            name: "Parsing a stored body of \(members.count) sorted members (\(body.count) bytes), \(parses) times",
            unit: "bodies", operations: parses,
            baseline: .init(
                name: "Foundation JSONSerialization",
                body: {
                    for _ in 0..<parses {
                        if try JSONSerialization.jsonObject(with: data) is [String: Any] { parsed += 1 }
                    }
                }),
            candidates: [
                .init(
                    name: "JSONValue(parsing:)",
                    body: {
                        for _ in 0..<parses {
                            if case .object(let object) = try JSONValue(parsing: body) { parsed += object.count > 0 ? 1 : 0 }
                        }
                    })
            ]
        ).run(repetitions: repetitions)
        if parsed < 0 { print(parsed) }  // Keeps the results alive.
    }
}
