import CloudantCareModule
import CloudantCore
import CloudantDashboardPanels
import CloudantHealthModule
import CloudantServer
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// The dashboard's panels in a database with per-document access: a member who is not a database admin sees in
/// them only what the documents they may see say.
@Suite("Dashboard panels under per-document access")
struct RestrictedPanelsTests {
    /// Documents as the care and health modules write them, taken from a store of their own: alice's patient and
    /// heart rate (hidden from bob), and bob's.
    private static func documents() async throws -> (alice: [JSONObject], bob: [JSONObject]) {
        let folder = NSTemporaryDirectory() + "cloudant-restricted-panels-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try DocumentStore.open(
            name: "scratch", in: StoreDirectory(path: folder),
            options: StoreOptions(registry: try EntityRegistry(plugins: [HealthPlugin(), CarePlugin()])))
        let care = CareStore(store: store, timeZone: .gmt)
        let past = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try await care.add([
            Patient(id: "zed", name: PersonNameComponents(givenName: "Zed", familyName: "Hiddenpatient"), effectiveDate: past),
            Patient(id: "bea", name: PersonNameComponents(givenName: "Bea", familyName: "Visiblepatient"), effectiveDate: past),
        ])
        let day = Date(timeIntervalSince1970: 1_717_200_000)  // 2024-06-01T00:00:00Z
        _ = try await store.add([
            QuantitySample(
                uuid: "HR-alice", typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: 187, unit: "count/min",
                startDate: day.addingTimeInterval(3600), endDate: day.addingTimeInterval(3600)),
            QuantitySample(
                uuid: "HR-bob", typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: 72, unit: "count/min",
                startDate: day.addingTimeInterval(7200), endDate: day.addingTimeInterval(7200)),
        ])
        var alice: [JSONObject] = []
        var bob: [JSONObject] = []
        for row in try await store.allDocs(AllDocsOptions(includeDocs: true)).rows {
            guard var document = row["doc"]?.objectValue, let id = document["_id"]?.stringValue, !DocumentID.isDesign(id)
            else { continue }
            document["_rev"] = nil
            let text = JSONValue.object(document).jsonString()
            if text.contains("Hiddenpatient") || text.contains("HR-alice") { alice.append(document) } else { bob.append(document) }
        }
        try store.close()
        return (alice, bob)
    }

    @Test func careAndHealthPanelsShowARestrictedUserOnlyTheDocumentsTheyMaySee() async throws {
        let (aliceDocuments, bobDocuments) = try await Self.documents()
        #expect(aliceDocuments.count == 2 && bobDocuments.count >= 2)
        try await withLiveServer({
            $0.dashboardPanels = [HealthDashboardPanel(timeZone: .gmt), CareDashboardPanel(timeZone: .gmt)]
        }) { server in
            try await server.makeWardWithDocumentAccess("ward")
            // Each writes their own documents: each gets its writer's access list.
            let alice = server.client("alice", "pw-alice")
            let bob = server.client("bob", "pw-bob")
            #expect(try await alice.post("/ward/_bulk_docs", ["docs": .array(aliceDocuments.map(JSONValue.object))]).status == 201)
            #expect(try await bob.post("/ward/_bulk_docs", ["docs": .array(bobDocuments.map(JSONValue.object))]).status == 201)

            let chart = "/_utils/db/ward/panel/health?type=HKQuantityTypeIdentifierHeartRate&from=2024-06-01&to=2024-06-01&by=day"
            let bobsChart = try await bob.get(chart)
            #expect(bobsChart.status == 200, "\(bobsChart.text)")
            #expect(bobsChart.text.contains("<td>2024-06-01</td><td>72 – 72 – 72</td><td class=\"num\">1</td>"), "\(bobsChart.text)")
            #expect(!bobsChart.text.contains("187"))
            let adminsChart = try await server.admin.get(chart)
            #expect(adminsChart.text.contains("<td>2024-06-01</td><td>72 – 129.5 – 187</td><td class=\"num\">2</td>"))

            let bobsCare = try await bob.get("/_utils/db/ward/panel/care")
            #expect(bobsCare.status == 200, "\(bobsCare.text)")
            #expect(bobsCare.text.contains("Visiblepatient"))
            #expect(!bobsCare.text.contains("Hiddenpatient") && !bobsCare.text.contains("Zed"))
            let asked = try await bob.get("/_utils/db/ward/panel/care?patient=zed")
            #expect(!asked.text.contains("Hiddenpatient"))
            #expect(try await alice.get("/_utils/db/ward/panel/care?patient=zed").text.contains("Hiddenpatient"))
            // The copies the panels drew from are gone once the pages were answered.
            let scratch = URL(fileURLWithPath: server.folder).appendingPathComponent(".panel-snapshots")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []
            #expect(left.isEmpty, "\(left)")
        }
    }
}
