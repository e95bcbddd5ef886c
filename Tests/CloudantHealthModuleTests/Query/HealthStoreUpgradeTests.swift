import CloudantCore
import CloudantHealthModule
import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// A health store written before projection rows dropped their copy of the `_id`, and before its type, unit,
/// source and device columns held labels, opens, upgrades in place and reads, updates and deletes its
/// quantity rows as before.
@Suite("Health stores from earlier versions")
struct HealthStoreUpgradeTests {
    /// What `cloudant health import` made of the iOS 16, 17 and 18 exports in `Tests/Fixtures/HealthExports`
    /// with the schema of its name: its quantity projection repeats each `_id` and has an index by document.
    static let fixture = RepositoryFiles.fixtures("HealthStores/2026-11-30-body-dictionaries.sqlite")

    /// The fixture's quantity rows, ordered by type: type, value, unit, and the sample's uuid (its `_id`).
    static let expectedRows: [[String]] = [
        ["HKQuantityTypeIdentifierAppleSleepingBreathingDisturbances", "3.2", "count", "0193A8A4-E880-70A1-B38D-56FB96DCC764"],
        ["HKQuantityTypeIdentifierAppleSleepingWristTemperature", "35.8721", "degC", "018B82B5-4640-7BC2-8FDD-360BB098567D"],
        ["HKQuantityTypeIdentifierBodyTemperature", "98.9", "degF", "0183CC47-C880-724F-A8FF-3ABFEE6552EF"],
        ["HKQuantityTypeIdentifierCyclingPower", "212.0", "W", "018B7AC5-B820-74EF-AD57-10AF05BB433A"],
        ["HKQuantityTypeIdentifierDietaryCaffeine", "95.0", "mg", "0183EB9B-CD80-70AB-8FE3-F671ABDDAF23"],
        ["HKQuantityTypeIdentifierEstimatedWorkoutEffortScore", "4.0", "appleEffortScore", "0193A6CE-4808-786C-A25F-B9749FDD3C4C"],
        ["HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "38.52", "ms", "0183F0F9-1800-7563-B364-062A71E5285B"],
        ["HKQuantityTypeIdentifierPhysicalEffort", "5.3", "kcal/hr·kg", "018B8159-5FC0-7176-A063-C30316618E04"],
    ]

    private typealias Column = HealthPlugin.QuantityColumn

    /// Every quantity row, ordered by type text: the projection orders types by label number, and every
    /// reader asks for one type.
    private static func rows(_ store: DocumentStore) async throws -> [[String]] {
        try await store.projectedRows(ProjectionQuery(projection: HealthPlugin.quantityProjection.name)) { row in
            let uuid = row.string(at: Column.uuid.rawValue) ?? "-"
            #expect(row.documentID == uuid)
            return [
                row.string(at: Column.typeIdentifier.rawValue) ?? "-", row.double(at: Column.value.rawValue).map { "\($0)" } ?? "-",
                row.string(at: Column.unit.rawValue) ?? "-", uuid,
            ]
        }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    @Test func quantityRowsThatRepeatedTheIDAreKeptAndStayInStepAfterTheUpgrade() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-health-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("health.sqlite")
        try FileManager.default.copyItem(at: Self.fixture, to: file)
        let store = try DocumentStore.open(
            name: "health", fileURL: file, options: StoreOptions(registry: EntityRegistry(plugins: [HealthPlugin()])))
        defer { try? store.close() }
        #expect(try await Self.rows(store) == Self.expectedRows)
        #expect(try await store.integrityCheck() == ["ok"])
        let queue = try DatabaseQueue(path: file.path)
        try await queue.read { db in
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('projection_1')")
            #expect(columns.first == "doc_rowid" && !columns.contains("id"), "\(columns)")
            #expect(try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list('projection_1') WHERE origin = 'c'").isEmpty)
            // Eight types and their units, each stored once, and one source and device.
            let labels = try String.fetchSet(db, sql: "SELECT text FROM projection_labels")
            #expect(Set(Self.expectedRows.flatMap { [$0[0], $0[2]] }).isSubset(of: labels), "\(labels)")
            #expect(try Int.fetchOne(db, sql: "SELECT typeof(c_typeIdentifier) = 'integer' FROM projection_1 LIMIT 1") == 1)
            // Every uuid is its sample's id, so every row marks it rather than repeating it.
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM projection_1 WHERE typeof(c_uuid) = 'blob'") == 8)
            // Kinds became numbers, each name stored once.
            #expect(try String.fetchAll(db, sql: "SELECT name FROM document_kinds ORDER BY name") == [
                "HKActivitySummary", "HKCategorySample", "HKQuantitySample", "HKSample", "HKWorkout", "HKWorkoutRoute",
            ])
            #expect(try String.fetchSet(db, sql: "SELECT typeof(kind) FROM documents") == ["integer", "null"])
        }
        try queue.close()
        let quantities = try await store.find(
            FindRequest(selector: try MangoSelector(["entityType": "HKQuantitySample"]), limit: 100))
        #expect(Set(quantities.docs.compactMap { $0["_id"]?.stringValue }) == Set(Self.expectedRows.map { $0[3] }))

        // An upgraded row is found again from its document's body: a new value replaces it, a deletion removes it.
        let caffeine = "0183EB9B-CD80-70AB-8FE3-F671ABDDAF23"
        var changed = try await store.document(id: caffeine)
        changed["value"] = 120
        _ = try await store.put(changed)
        var expected = Self.expectedRows
        expected[4][1] = "120.0"
        #expect(try await Self.rows(store) == expected)
        let power = "018B7AC5-B820-74EF-AD57-10AF05BB433A"
        _ = try await store.delete(id: power, rev: try await store.document(id: power)["_rev"]?.stringValue ?? "")
        expected.remove(at: 3)
        #expect(try await Self.rows(store) == expected)
    }
}
