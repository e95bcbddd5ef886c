import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// A kind with a projection of its readings.
private struct ProjectedMeter: CloudantEntity, Hashable {
    var id: String
    var revId: String?
    var series: String
    var when: String
    var value: Double
}

/// Another kind, to ask a projection for entities it does not keep.
private struct ProjectedMemo: CloudantEntity, Hashable {
    var id: String
    var revId: String?
}

private let readings = ColumnProjection(
    name: "readings",
    columns: [.init("series", type: .text), .init("at", path: "when", type: .date), .init("unit", type: .label)],
    orderedBy: ["series", "at"])

private func registry() throws -> EntityRegistry {
    var registry = EntityRegistry()
    try registry.register(EntityKind(ProjectedMeter.self, name: "Meter", projections: [readings]))
    try registry.register(EntityKind(ProjectedMemo.self, name: "Memo"))
    return registry
}

@Suite("Entities read through a projection")
struct ProjectedEntitiesTests {
    private func query(_ series: String, descending: Bool = false, limit: Int? = nil) -> ProjectionQuery {
        ProjectionQuery(projection: "readings", where: [.init("series", .equal, .text(series))], descending: descending, limit: limit)
    }

    private func seeded() async throws -> TemporaryStore {
        let temp = try TemporaryStore(registry: try registry())
        let at = ["r1": "01", "r2": "02", "r3": "02", "r4": "02", "r5": "03"]
        _ = try await temp.store.add(at.keys.sorted().map { id in
            ProjectedMeter(id: id, series: "a", when: "2024-03-\(at[id]!)T00:00:00.000Z", value: Double(id.dropFirst())!)
        })
        _ = try await temp.store.add([ProjectedMeter(id: "r6", series: "b", when: "2024-03-01T00:00:00.000Z", value: 6)])
        _ = try await temp.store.add([ProjectedMemo(id: "n1")])
        return temp
    }

    @Test func entitiesComeInTheRowsOrderAndALimitCanBeWidenedToTheLastRowsTies() async throws {
        let temp = try await seeded()
        let store = temp.store
        let rows = try await store.projectedRows(query("a")) { $0.documentID }
        #expect(rows == ["r1", "r2", "r3", "r4", "r5"])
        #expect(try await store.entities(ProjectedMeter.self, projected: query("a")).map(\.id) == rows)
        #expect(try await store.entities(ProjectedMeter.self, projected: query("a")).map(\.value) == [1, 2, 3, 4, 5])

        // A limit that cuts the rows sharing 2024-03-02: cut as asked, or widened to all of them.
        #expect(try await store.entities(ProjectedMeter.self, projected: query("a", limit: 2)).map(\.id) == ["r1", "r2"])
        #expect(try await store.entities(ProjectedMeter.self, projected: query("a", limit: 2), completingTiesOf: "at").map(\.id)
            == ["r1", "r2", "r3", "r4"])
        #expect(try await store.entities(ProjectedMeter.self, projected: query("a", descending: true, limit: 2), completingTiesOf: "at")
            .map(\.id) == ["r5", "r4", "r3", "r2"])
        // A limit the rows do not reach, or one that ends on a row without ties, reads nothing more.
        #expect(try await store.entities(ProjectedMeter.self, projected: query("a", limit: 9), completingTiesOf: "at").count == 5)
        #expect(try await store.entities(ProjectedMeter.self, projected: query("a", limit: 1), completingTiesOf: "at").map(\.id) == ["r1"])
        #expect(try await store.entities(ProjectedMeter.self, projected: query("a", limit: 0), completingTiesOf: "at").isEmpty)

        // Each row's document as it is now, deleted ones gone with their rows.
        var edited = try await store.get(ProjectedMeter.self, id: "r3")
        edited.value = 30
        _ = try await store.update([edited])
        _ = try await store.delete([try await store.get(ProjectedMeter.self, id: "r4")])
        #expect(try await store.entities(ProjectedMeter.self, projected: query("a")).map(\.value) == [1, 2, 30, 5])
    }

    @Test func askingForAnotherKindOrTiesOfLabelsIsATypedError() async throws {
        let temp = try await seeded()
        let store = temp.store
        for attempt in [
            { _ = try await store.entities(ProjectedMemo.self, projected: query("a")) },
            { _ = try await store.entities(ProjectedMeter.self, projected: query("a", limit: 1), completingTiesOf: "unit") },
            { _ = try await store.entities(ProjectedMeter.self, projected: query("a", limit: 1), completingTiesOf: "nothing") },
            { _ = try await store.entities(ProjectedMeter.self, projected: ProjectionQuery(projection: "none")) },
        ] as [@Sendable () async throws -> Void] {
            await #expect { try await attempt() } throws: { error in (error as? CloudantError)?.code == .invalidInput }
        }
    }
}
