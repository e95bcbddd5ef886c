import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// A kind with a projection of its readings, written as raw JSON documents so tests control every field.
private struct Meter: CloudantEntity, Hashable {
    var id: String
    var revId: String?
}

private let meters = ColumnProjection(
    name: "meters",
    columns: [
        .init("series", type: .text), .init("at", path: "when", type: .date), .init("value", type: .real),
        .init("count", type: .integer), .init("origin", path: "origin.name", type: .text), .init("extra", type: .json),
    ],
    orderedBy: ["series", "at"])

private func registry(_ projection: ColumnProjection = meters) throws -> EntityRegistry {
    var registry = EntityRegistry()
    try registry.register(EntityKind(Meter.self, name: "Meter", projections: [projection]))
    return registry
}

private func reading(_ id: String, series: String = "a", when: String, value: Double) -> JSONObject {
    ["_id": .string(id), "entityType": "Meter", "series": .string(series), "when": .string(when), "value": .number(.double(value))]
}

private struct Projected: Sendable, Hashable {
    var id: String
    var at: Date?
    var value: Double?
}

private func read(_ store: DocumentStore, _ conditions: [ProjectionCondition] = [], descending: Bool = false) async throws -> [Projected] {
    try await store.projectedRows(ProjectionQuery(projection: "meters", where: conditions, descending: descending)) { row in
        Projected(id: row.documentID, at: row.date("at"), value: row.double(at: 2))
    }
}

@Suite("Column projections")
struct ColumnProjectionTests {
    @Test func rowsFollowEveryWriteDeleteAndPurgeInTheSameTransaction() async throws {
        let temp = try TemporaryStore(registry: registry())
        let store = temp.store
        let first = try await store.put(reading("r1", when: "2024-03-31T00:00:00.000Z", value: 1))
        _ = try await store.put(reading("r2", when: "2024-03-30T23:00:00.000Z", value: 2))
        _ = try await store.put(["_id": "other", "entityType": "Else", "series": "a", "when": "2024-01-01T00:00:00Z"])
        #expect(try await read(store).map(\.id) == ["r2", "r1"])  // ordered by series then instant; other kinds left out

        var changed = reading("r1", when: "2024-03-29T00:00:00.000Z", value: 10)
        changed["_rev"] = .string(first.rev)
        let second = try await store.put(changed)
        #expect(try await read(store) == [
            Projected(id: "r1", at: Date(timeIntervalSince1970: 1_711_670_400), value: 10),
            Projected(id: "r2", at: Date(timeIntervalSince1970: 1_711_839_600), value: 2),
        ])

        _ = try await store.delete(id: "r1", rev: second.rev)
        #expect(try await read(store).map(\.id) == ["r2"])

        let r2 = try await store.document(id: "r2")
        _ = try await store.purge(["r2": [r2.rev ?? ""]])
        #expect(try await read(store).isEmpty)
    }

    @Test func aDocumentThatBecomesAnotherKindLeavesTheProjection() async throws {
        let temp = try TemporaryStore(registry: registry())
        let written = try await temp.store.put(reading("r", when: "2024-01-01T00:00:00Z", value: 1))
        var other = reading("r", when: "2024-01-01T00:00:00Z", value: 1)
        other["entityType"] = "Else"
        other["_rev"] = .string(written.rev)
        let second = try await temp.store.put(other)
        #expect(try await read(temp.store).isEmpty)
        var back = reading("r", when: "2024-01-02T00:00:00Z", value: 2)
        back["_rev"] = .string(second.rev)
        _ = try await temp.store.put(back)
        #expect(try await read(temp.store).map(\.value) == [2])
    }

    @Test func aProjectionWithoutOrderingIsKeyedByTheDocumentsRowAndFollowsWrites() async throws {
        let unordered = ColumnProjection(name: "meters", columns: [.init("at", path: "when", type: .date), .init("value", type: .real)])
        let temp = try TemporaryStore(registry: registry(unordered))
        let first = try await temp.store.put(reading("r1", when: "2024-01-01T00:00:00Z", value: 1))
        _ = try await temp.store.put(reading("r2", when: "not a date", value: 2))
        var changed = reading("r1", when: "2024-01-05T00:00:00Z", value: 10)
        changed["_rev"] = .string(first.rev)
        let second = try await temp.store.put(changed)
        let read = { (store: DocumentStore) in
            try await store.projectedRows(ProjectionQuery(projection: "meters")) {
                Projected(id: $0.documentID, at: $0.date("at"), value: $0.double("value"))
            }
        }
        // Rows come in document-row order; a missing field is NULL, not a missing row.
        #expect(try await read(temp.store) == [
            Projected(id: "r1", at: Date(timeIntervalSince1970: 1_704_412_800), value: 10), Projected(id: "r2", at: nil, value: 2),
        ])
        _ = try await temp.store.delete(id: "r1", rev: second.rev)
        #expect(try await read(temp.store).map(\.id) == ["r2"])
    }

    @Test func rowsHoldTheDocumentsRowAndTheDeclaredColumnsAndNoSecondIndex() async throws {
        let unordered = ColumnProjection(name: "plain", columns: [.init("value", type: .real)])
        var registry = EntityRegistry()
        try registry.register(EntityKind(Meter.self, name: "Meter", projections: [meters, unordered]))
        let temp = try TemporaryStore(registry: registry)
        _ = try await temp.store.put(reading("r", when: "2024-01-01T00:00:00Z", value: 1))
        let queue = try DatabaseQueue(path: temp.store.fileURL.path)
        defer { try? queue.close() }
        try await queue.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT table_name FROM column_projections ORDER BY name")
            #expect(tables.count == 2)
            for table in tables {
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                #expect(columns.first == "doc_rowid" && !columns.contains("id"), "\(table): \(columns)")
                // Only the table's own key: a clustered row is found again from the body it was written from.
                let created = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list(?) WHERE origin = 'c'", arguments: [table])
                #expect(created.isEmpty, "\(table): \(created)")
            }
        }
    }

    @Test func replicatedConflictsProjectTheWinnerOnly() async throws {
        let temp = try TemporaryStore(registry: registry())
        var loser = reading("c", when: "2024-01-01T00:00:00Z", value: 1)
        loser["_rev"] = .string(rev(1, "a"))
        var winner = reading("c", when: "2024-01-02T00:00:00Z", value: 2)
        winner["_rev"] = .string(rev(1, "b"))
        _ = try await temp.store.bulkDocs([.object(loser), .object(winner)], newEdits: false)
        #expect(try await read(temp.store).map(\.value) == [2])
        // Deleting the winner promotes the other leaf, and its row replaces the winner's.
        _ = try await temp.store.delete(id: "c", rev: rev(1, "b"))
        #expect(try await read(temp.store).map(\.value) == [1])
    }

    @Test func datesCompareAsInstantsWhateverTheirSpelling() async throws {
        let temp = try TemporaryStore(registry: registry())
        _ = try await temp.store.put(reading("utc", when: "2024-03-31T00:00:00Z", value: 1))
        _ = try await temp.store.put(reading("paris", when: "2024-03-31T01:30:00+01:00", value: 2))
        _ = try await temp.store.put(reading("later", when: "2024-03-31T02:00:00.250Z", value: 3))
        let from = Date(timeIntervalSince1970: 1_711_843_200)  // 2024-03-31T00:00:00Z
        let window: [ProjectionCondition] = [
            .init("series", .equal, .text("a")), .init("at", .greater, .date(from)),
            .init("at", .less, .date(from.addingTimeInterval(7200))),
        ]
        #expect(try await read(temp.store, window).map(\.id) == ["paris"])
        #expect(try await read(temp.store, descending: true).map(\.id) == ["later", "paris", "utc"])
    }

    @Test func missingOrMistypedFieldsAreNullAndOnlyIsNullFindsThem() async throws {
        let temp = try TemporaryStore(registry: registry())
        _ = try await temp.store.put(["_id": "bare", "entityType": "Meter", "series": "a", "when": "2024-01-01T00:00:00Z", "value": "7"])
        _ = try await temp.store.put([
            "_id": "full", "entityType": "Meter", "series": "a", "when": "2024-01-02T00:00:00Z", "value": 7, "count": 3,
            "origin": ["name": "Watch"], "extra": ["k": [1, true]],
        ])
        let rows = try await temp.store.projectedRows(ProjectionQuery(projection: "meters")) { row -> [String] in
            let at: String = row.date("at").map { "\($0.timeIntervalSince1970)" } ?? "-"
            let value: String = row.double("value").map { "\($0)" } ?? "-"
            let count: String = row.integer("count").map { "\($0)" } ?? "-"
            let origin: String = row.string("origin") ?? "-"
            let extra: String = row.json("extra")?.jsonString() ?? "-"
            return [row.documentID, at, value, count, origin, extra]
        }
        let expected: [[String]] = [
            ["bare", "1704067200.0", "-", "-", "-", "-"], ["full", "1704153600.0", "7.0", "3", "Watch", #"{"k":[1,true]}"#],
        ]
        #expect(rows == expected)
        #expect(try await read(temp.store, [.init("value", .isNull)]).map(\.id) == ["bare"])
        #expect(try await read(temp.store, [.init("value", .isNotNull)]).map(\.id) == ["full"])
    }

    @Test func aDocumentMissingAnOrderingFieldHasNoRowAsAMangoIndexLeavesItOut() async throws {
        let temp = try TemporaryStore(registry: registry())
        let written = try await temp.store.put(reading("r", when: "2024-01-01T00:00:00Z", value: 1))
        #expect(try await read(temp.store).map(\.id) == ["r"])
        var undated = reading("r", when: "not a date", value: 2)
        undated["_rev"] = .string(written.rev)
        let second = try await temp.store.put(undated)
        #expect(try await read(temp.store).isEmpty)  // the old row went with the date
        var dated = reading("r", when: "2024-01-03T00:00:00Z", value: 3)
        dated["_rev"] = .string(second.rev)
        _ = try await temp.store.put(dated)
        #expect(try await read(temp.store).map(\.value) == [3])
    }

    @Test func aStoreOpenedLaterFillsTheProjectionFromDocumentsAlreadyThere() async throws {
        let temp = try TemporaryStore()  // no kinds registered: documents only
        _ = try await temp.store.put(reading("early", when: "2024-01-01T00:00:00Z", value: 5))
        try temp.store.close()
        let reopened = try temp.reopen(registry: registry())
        #expect(try await read(reopened).map(\.value) == [5])
        // Another process without the kind keeps the projection in step: it lives in the file.
        try reopened.close()
        let plain = try temp.reopen()
        _ = try await plain.put(reading("late", when: "2024-01-02T00:00:00Z", value: 6))
        #expect(try await plain.projectionNames() == ["meters"])
        #expect(try await read(plain).map(\.value) == [5, 6])
        try plain.close()
    }

    @Test func aChangedDeclarationRebuildsTheTable() async throws {
        let temp = try TemporaryStore(registry: registry())
        _ = try await temp.store.put(reading("r", when: "2024-01-01T00:00:00Z", value: 5))
        try temp.store.close()
        let narrower = ColumnProjection(name: "meters", columns: [.init("value", type: .text)])
        let reopened = try temp.reopen(registry: registry(narrower))
        let values = try await reopened.projectedRows(ProjectionQuery(projection: "meters")) { $0.string(at: 0) }
        #expect(values == [nil])  // a number is not text
        try reopened.close()
    }

    @Test func badQueriesAndDeclarationsAreTypedErrors() async throws {
        let temp = try TemporaryStore(registry: registry())
        await #expect(throws: CloudantError.self) { try await read(temp.store, [.init("nope", .equal, .text("x"))]) }
        await #expect(throws: CloudantError.self) { try await read(temp.store, [.init("at", .equal, .text("2024"))]) }
        await #expect(throws: CloudantError.self) {
            try await temp.store.projectedRows(ProjectionQuery(projection: "absent")) { $0.documentID }
        }
        for bad in [
            ColumnProjection(name: "", columns: [.init("a", type: .text)]),
            ColumnProjection(name: "x", columns: []),
            ColumnProjection(name: "x", columns: [.init("1a", type: .text)]),
            ColumnProjection(name: "x", columns: [.init("a", type: .text), .init("A", type: .real)]),
            ColumnProjection(name: "x", columns: [.init("a", type: .text)], orderedBy: ["b"]),
        ] {
            #expect(throws: CloudantError.self) { try registry(bad) }
        }
    }
}
