import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// Readings that name a series and a unit from small sets: both `.label` columns.
private let readings = ColumnProjection(
    name: "readings",
    columns: [
        .init("series", type: .label), .init("at", path: "when", type: .date), .init("value", type: .real),
        .init("unit", type: .label), .init("note", type: .text),
    ],
    orderedBy: ["series", "at"])

private func registry(_ projection: ColumnProjection = readings) throws -> EntityRegistry {
    var registry = EntityRegistry()
    try registry.register(EntityKind(LabelledReading.self, name: "Reading", projections: [projection]))
    return registry
}

private func reading(_ id: String, series: String, unit: String? = "kg", day: Int, value: Double) -> JSONObject {
    var body: JSONObject = [
        "_id": .string(id), "entityType": "Reading", "series": .string(series),
        "when": .string("2024-01-\(day < 10 ? "0" : "")\(day)T00:00:00Z"), "value": .number(.double(value)),
    ]
    if let unit { body["unit"] = .string(unit) }
    return body
}

private struct Row: Sendable, Hashable {
    var id: String
    var series: String?
    var unit: String?
    var value: Double?
}

private func rows(_ store: DocumentStore, _ conditions: [ProjectionCondition] = []) async throws -> [Row] {
    try await store.projectedRows(ProjectionQuery(projection: "readings", where: conditions)) { row in
        Row(id: row.documentID, series: row.string(at: 0), unit: row.string("unit"), value: row.double(at: 2))
    }
}

/// The stored labels, by number.
private func storedLabels(_ store: DocumentStore) async throws -> [String] {
    let queue = try DatabaseQueue(path: store.fileURL.path)
    defer { try? queue.close() }
    return try await queue.read { db in try String.fetchAll(db, sql: "SELECT text FROM projection_labels ORDER BY number") }
}

@Suite("Projection label columns")
struct LabelColumnTests {
    @Test func eachTextIsStoredOnceAndRowsReadItBackAsText() async throws {
        let temp = try TemporaryStore(registry: registry())
        var documents: [JSONObject] = []
        for day in 1...20 {
            documents.append(reading("w\(day)", series: "weight", day: day, value: Double(day)))
            documents.append(reading("h\(day)", series: "height", unit: day == 3 ? nil : "cm", day: day, value: 170))
        }
        _ = try await temp.store.bulkDocs(documents.map(JSONValue.object))
        #expect(try await storedLabels(temp.store) == ["weight", "kg", "height", "cm"])

        let read = try await rows(temp.store)
        #expect(read.count == 40)
        #expect(read.filter { $0.series == "weight" }.allSatisfy { $0.unit == "kg" })
        #expect(read.first { $0.id == "h3" }?.unit == nil)  // a missing field is NULL, not a label
        // A label column never reads as a number.
        let numbers = try await temp.store.projectedRows(ProjectionQuery(projection: "readings")) { row in
            [row.integer(at: 0), row.double(at: 3).map(Int64.init)]
        }
        #expect(numbers.allSatisfy { $0 == [nil, nil] })
    }

    @Test func labelsCompareForEqualityWhetherOrNotTheStoreHasTheText() async throws {
        let temp = try TemporaryStore(registry: registry())
        _ = try await temp.store.bulkDocs([
            reading("a", series: "weight", day: 1, value: 1), reading("b", series: "weight", day: 2, value: 2),
            reading("c", series: "height", unit: "cm", day: 1, value: 3),
        ].map(JSONValue.object))
        #expect(try await rows(temp.store, [.init("series", .equal, .text("weight"))]).map(\.id) == ["a", "b"])
        #expect(try await rows(temp.store, [.init("series", .notEqual, .text("weight"))]).map(\.id) == ["c"])
        #expect(try await rows(temp.store, [.init("unit", .equal, .text("cm"))]).map(\.id) == ["c"])
        // A text no document has: equality matches nothing, inequality every labelled row, and no label is added.
        #expect(try await rows(temp.store, [.init("series", .equal, .text("pulse"))]).isEmpty)
        #expect(try await rows(temp.store, [.init("series", .notEqual, .text("pulse"))]).count == 3)
        #expect(try await storedLabels(temp.store) == ["weight", "kg", "height", "cm"])
    }

    @Test func aLabelColumnRefusesOrderComparisonsAndNonText() async throws {
        let temp = try TemporaryStore(registry: registry())
        _ = try await temp.store.put(reading("a", series: "weight", day: 1, value: 1))
        for comparison in [ProjectionCondition.Comparison.less, .lessOrEqual, .greater, .greaterOrEqual] {
            await #expect(throws: CloudantError.self) {
                try await rows(temp.store, [.init("series", comparison, .text("weight"))])
            }
        }
        await #expect(throws: CloudantError.self) { try await rows(temp.store, [.init("series", .equal, .real(1))]) }
        #expect(try await rows(temp.store, [.init("unit", .isNotNull)]).map(\.id) == ["a"])
    }

    @Test func aLabelAddedByAWriteThatRolledBackIsNotReusedByNumber() async throws {
        let temp = try TemporaryStore(registry: registry())
        let kept = try await temp.store.put(reading("kept", series: "weight", day: 1, value: 1))
        // The first document adds the label "pulse"; the second has a stale revision, so both roll back.
        var stale = reading("kept", series: "weight", day: 2, value: 2)
        stale["_rev"] = .string("1-00000000000000000000000000000000")
        await #expect(throws: CloudantError.self) {
            try await temp.store.writeAtomically([reading("p", series: "pulse", unit: "bpm", day: 1, value: 60), stale])
        }
        #expect(try await storedLabels(temp.store) == ["weight", "kg"])
        // Labels written afterwards take the numbers the rolled-back ones had; rows read their own texts.
        _ = try await temp.store.put(reading("t", series: "temperature", unit: "degC", day: 1, value: 37))
        _ = try await temp.store.put(reading("p", series: "pulse", unit: "bpm", day: 2, value: 61))
        #expect(try await storedLabels(temp.store) == ["weight", "kg", "temperature", "degC", "pulse", "bpm"])
        #expect(try await rows(temp.store).map { "\($0.id) \($0.series ?? "-") \($0.unit ?? "-")" }.sorted() == [
            "kept weight kg", "p pulse bpm", "t temperature degC",
        ])
        #expect(kept.rev.hasPrefix("1-"))
    }

    @Test func editsAndDeletesFindTheRowByTheLabelsItWasWrittenWith() async throws {
        let temp = try TemporaryStore(registry: registry())
        let first = try await temp.store.put(reading("r", series: "weight", day: 1, value: 1))
        var moved = reading("r", series: "height", unit: "cm", day: 1, value: 2)
        moved["_rev"] = .string(first.rev)
        let second = try await temp.store.put(moved)
        #expect(try await rows(temp.store) == [Row(id: "r", series: "height", unit: "cm", value: 2)])
        _ = try await temp.store.delete(id: "r", rev: second.rev)
        #expect(try await rows(temp.store).isEmpty)
    }

    @Test func aTextColumnDeclaredAgainAsALabelIsRebuiltFromTheDocuments() async throws {
        let asText = ColumnProjection(
            name: "readings", columns: [.init("series", type: .text), .init("at", path: "when", type: .date)],
            orderedBy: ["series", "at"])
        let temp = try TemporaryStore(registry: registry(asText))
        _ = try await temp.store.bulkDocs([
            reading("a", series: "weight", day: 1, value: 1), reading("b", series: "height", day: 1, value: 2),
        ].map(JSONValue.object))
        try temp.store.close()
        let reopened = try temp.reopen(registry: registry())
        #expect(try await rows(reopened).map { "\($0.id) \($0.series ?? "-")" }.sorted() == ["a weight", "b height"])
        #expect(Set(try await storedLabels(reopened)) == ["weight", "height", "kg"])
        try reopened.close()
    }
}

/// The kind the projection belongs to (tests write its documents as raw JSON).
private struct LabelledReading: CloudantEntity, Hashable {
    var id: String
    var revId: String?
}
