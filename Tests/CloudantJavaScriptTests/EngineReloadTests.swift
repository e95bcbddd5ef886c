import CloudantCore
@testable import CloudantJavaScript
import Foundation
import Testing

/// `reload()`, what `POST /_reload_query_servers` asks of the engine: CouchDB restarts its query servers, and
/// here every later call runs in a new instance.
@Suite("Reloading the engine")
struct EngineReloadTests {
    private let sum = ["function(keys, values) { return sum(values); }"]
    private let rows: [JSONValue] = [[["k", "a"], 1], [["k", "b"], 2]]

    @Test func aReloadDropsTheInstancesAtRestAndTheNextCallMakesANewOne() throws {
        let engine = makeEngine()
        #expect(try engine.reduce(sum, rows: rows, context: "d/v") == [3])
        #expect(engine.pool.instanceCount == 1)
        engine.reload()
        #expect(engine.pool.instanceCount == 0)
        #expect(try engine.reduce(sum, rows: rows, context: "d/v") == [3])
        #expect(engine.pool.instanceCount == 1)
    }

    @Test func anInstanceLentDuringAReloadFinishesItsCallAndIsDroppedWhenItReturns() throws {
        // The function's `log()` reloads the engine while the instance running it is lent.
        final class Reloader: @unchecked Sendable {
            var engine: JavaScriptEngine?
        }
        let reloader = Reloader()
        let engine = JavaScriptEngine(configuration: .init(maximumInstances: 2, log: { _ in reloader.engine?.reload() }))
        reloader.engine = engine
        let logging = ["function(keys, values) { log('reloading'); return sum(values); }"]
        #expect(try engine.reduce(logging, rows: rows, context: "d/v") == [3])
        #expect(engine.pool.instanceCount == 0)
        #expect(try engine.reduce(sum, rows: rows, context: "d/v") == [3])
        #expect(engine.pool.instanceCount == 1)
    }
}
