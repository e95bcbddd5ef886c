import CloudantCore
@testable import CloudantServer
import CloudantStore
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

/// `GET /_active_tasks` lists a view index update while it runs, as CouchDB 3.5 lists an `indexer`
/// (`couch_mrview_updater`'s task: `changes_done` of `total_changes`, `progress` in percent).
@Suite("Indexer tasks in /_active_tasks")
struct IndexerTaskTests {
    @Test func aViewUpdateIsAnIndexerTaskWhileItRunsAndGoneAfter() async throws {
        try await withLiveServer { server in
            let client = server.admin
            #expect(try await client.put("/clinic", [:]).status == 201)
            let documents: [JSONValue] = (0..<2500).map { ["_id": .string(String(format: "doc-%05d", $0)), "n": .number(JSONNumber($0))] }
            #expect(try await client.post("/clinic/_bulk_docs", ["docs": .array(documents)]).status == 201)
            let store = try await server.server.endpoint.registry.store("clinic")

            // The view's map asks the server for its tasks when it reaches doc-02000 and waits for the answer.
            let seen = SeenAnswer()
            let view = SwiftView(name: "listed", version: 1) { document, emit in
                if document.id == "doc-02000" {
                    let answered = DispatchSemaphore(value: 0)
                    Task {
                        let answer = try? await client.get("/_active_tasks").json
                        seen.answer.withLock { $0 = answer }
                        answered.signal()
                    }
                    answered.wait()
                }
                emit(document["n"] ?? .null, .null)
            }
            _ = try await store.queryView(view, query: ViewQuery(parameters: [("limit", "1")]))

            let tasks = try #require(seen.answer.withLock { $0 }?.arrayValue)
            #expect(tasks.count == 1)
            let task = try #require(tasks.first)
            #expect(task["type"] == "indexer")
            #expect(task["database"] == "clinic")
            #expect(task["design_document"] == "listed")
            #expect(task["changes_done"] == 2000)
            #expect(task["total_changes"] == 2500)
            #expect(task["progress"] == 80)
            #expect(task["node"] == "nonode@nohost")
            for member in ["pid", "indexer_pid", "process_status"] { #expect(task[member]?.stringValue != nil, "\(member)") }
            let started = try #require(task["started_on"]?.numberValue?.int64Value)
            let updated = try #require(task["updated_on"]?.numberValue?.int64Value)
            // Unix seconds, as couch_task_status writes them.
            #expect(started <= updated && started > 1_700_000_000 && updated < 10_000_000_000)

            #expect(try await client.get("/_active_tasks").json == [])
        }
    }
}

/// The answer a map closure got.
private final class SeenAnswer: Sendable {
    let answer = Mutex<JSONValue?>(nil)
}
