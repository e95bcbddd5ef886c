import CloudantCore
@testable import CloudantJavaScript
import Foundation
import Testing

/// Collects what functions log.
final class LogLines: @unchecked Sendable {
    // `lock` protects `lines`.
    private let lock = NSLock()
    private var lines: [String] = []

    var all: [String] { lock.withLock { lines } }

    var sink: @Sendable (String) -> Void {
        { line in self.lock.withLock { self.lines.append(line) } }
    }
}

/// An engine whose log lines the test reads.
func makeEngine(
    timeLimit: Duration = .seconds(30), reduceLimit: JavaScriptEngine.ReduceLimit = .enforced(), log: LogLines = LogLines()
) -> JavaScriptEngine {
    JavaScriptEngine(configuration: .init(timeLimit: timeLimit, reduceLimit: reduceLimit, maximumInstances: 2, log: log.sink))
}

/// A document's JSON text.
func documentText(_ document: JSONValue) -> [UInt8] { document.jsonBytes() }

/// Maps documents with one set of functions.
func map(_ engine: JavaScriptEngine, _ sources: [String], lib: JSONValue? = nil, _ documents: [JSONValue]) throws -> [[[EmittedRow]]] {
    try engine.makeMapper(MapFunctionSet(sources: sources, lib: lib)).map(documents: documents.map(documentText))
}

/// A list session that serves `rows` and records what the function sent.
final class RecordingSession: ListSession {
    var rows: [JSONValue]
    var chunks: [String] = []
    var starts: [JSONObject] = []
    var asked = 0

    init(rows: [JSONValue]) { self.rows = rows }

    func nextRow(sending chunks: [String], start: JSONObject?) throws -> JSONValue? {
        asked += 1
        self.chunks += chunks
        if let start { starts.append(start) }
        return rows.isEmpty ? nil : rows.removeFirst()
    }
}

/// The design function failure `body` throws: the `designFunctionError` of the `CloudantError` with code
/// `designFunctionFailed` it throws, or nil (recorded as an issue) when it throws nothing or another error.
func designFailure<Value>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Value) -> DesignFunctionError? {
    do {
        _ = try body()
        Issue.record("expected a design function's failure, got none", sourceLocation: sourceLocation)
    } catch let error as CloudantError where error.code == .designFunctionFailed {
        return error.designFunctionError
    } catch {
        Issue.record("expected a design function's failure, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
