import CloudantCore
import CloudantJavaScript
import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// One engine for the design-function tests of this process.
let serverEngine = JavaScriptEngine(configuration: .init(timeLimit: .seconds(60), maximumInstances: 2, log: { _ in }))

/// Runs `body` against a live server that runs JavaScript design functions.
func withJavaScriptServer(_ body: (LiveServer) async throws -> Void) async throws {
    try await withLiveServer({ $0.designFunctions = serverEngine }, body)
}

/// Runs `body` against a live server that runs JavaScript design functions, with database `db` created.
func withDesignServer(_ body: (LiveServer, TestClient) async throws -> Void) async throws {
    try await withJavaScriptServer { server in
        let admin = server.admin
        _ = try await admin.send("PUT", "/db")
        try await body(server, admin)
    }
}

extension TestClient {
    /// Stores `design` as `_design/app` of `db`, and the documents `d1`…`d<count>` with `n` from 1 to `count`.
    func storeApp(_ design: JSONValue, documents count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await put("/db/_design/app", design).status == 201, sourceLocation: sourceLocation)
        try await bulk("db", (1...count).map { ["_id": .string("d\($0)"), "n": .number(JSONNumber($0))] })
    }

    /// Writes documents with `_bulk_docs`.
    func bulk(_ database: String, _ documents: [JSONValue]) async throws {
        _ = try await post("/\(database)/_bulk_docs", ["docs": .array(documents)])
    }
}
