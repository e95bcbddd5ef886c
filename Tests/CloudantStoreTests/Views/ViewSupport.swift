import CloudantCore
import CloudantJavaScript
@testable import CloudantStore
import CloudantTestSupport
import Foundation

/// A store that runs JavaScript design functions, with one shared engine per test process.
func viewStore(name: String = "views") throws -> TemporaryStore {
    var options = StoreOptions()
    options.designFunctions = sharedEngine
    return try TemporaryStore(name: name, options: options)
}

let sharedEngine = JavaScriptEngine(configuration: .init(timeLimit: .seconds(60), maximumInstances: 2, log: { _ in }))

extension ViewQuery {
    /// A query from URL-style parameters, for brevity in tests.
    static func parameters(_ pairs: (String, String)...) throws -> ViewQuery { try ViewQuery(parameters: pairs) }
}

extension ViewResult {
    var keys: [JSONValue] { rows.map(\.key) }
    var ids: [String?] { rows.map(\.id) }
    var values: [JSONValue] { rows.map(\.value) }
}

extension DocumentStore {
    /// Writes `documents` in one batch and returns their revisions by id.
    @discardableResult
    func write(_ documents: [JSONValue]) async throws -> [String: String] {
        var revs: [String: String] = [:]
        for result in try await bulkDocs(documents) {
            if case .ok(let written) = result { revs[written.id] = written.rev }
        }
        return revs
    }
}
