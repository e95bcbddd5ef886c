import CloudantCore
import CloudantDashboardPanels
import CloudantHealthModule
import CloudantServer
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// The health and replication pages of `CloudantDashboardPanels` on a live server. (The care calendar is
/// driven in a real browser by BrowserTests/dashboard_test.py.)
@Suite("Dashboard panels")
struct DashboardPanelsTests {
    private static func panels(_ configuration: inout ServerConfiguration) {
        configuration.dashboardPanels = [HealthDashboardPanel(timeZone: .gmt), ReplicationDashboardPanel()]
    }

    /// The page's text once it contains `marker` (a job's state); the last one seen when that never happens.
    private static func page(_ path: String, of client: TestClient, onceItShows marker: String) async throws -> String {
        var text = ""
        try? await waitUntil("\(path) showing \(marker)", checkingEvery: .milliseconds(100)) {
            text = try await client.get(path).text
            return text.contains(marker)
        }
        return text
    }

    @Test func theHealthPageChartsATypeWithTheStatisticsExactFigures() async throws {
        let folder = NSTemporaryDirectory() + "cloudant-panels-" + UUID().uuidString
        do {
            let store = try DocumentStore.open(
                name: "me", in: StoreDirectory(path: folder),
                options: StoreOptions(registry: try EntityRegistry(plugins: [HealthPlugin()])))
            let day = Date(timeIntervalSince1970: 1_717_200_000)  // 2024-06-01T00:00:00Z
            let rates: [(TimeInterval, Double)] = [(3600, 60), (7200, 90), (86_400 + 3600, 75)]
            _ = try await store.add(rates.enumerated().map { index, rate in
                QuantitySample(
                    uuid: "HR-\(index)", typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: rate.1, unit: "count/min",
                    startDate: day.addingTimeInterval(rate.0), endDate: day.addingTimeInterval(rate.0))
            })
        }
        let server = try await LiveServer.start(folder: folder, Self.panels)
        let page = try await server.admin.get(
            "/_utils/db/me/panel/health?type=HKQuantityTypeIdentifierHeartRate&from=2024-06-01&to=2024-06-02&by=day")
        #expect(page.status == 200, "\(page.text)")
        #expect(page.text.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(page.text.contains("<td>2024-06-01</td><td>60 – 75 – 90</td><td class=\"num\">2</td>"))
        #expect(page.text.contains("<td>2024-06-02</td><td>75 – 75 – 75</td><td class=\"num\">1</td>"))
        #expect(page.text.contains(#"<option value="HKQuantityTypeIdentifierHeartRate">HeartRate</option>"#))
        let perHour = try await server.admin.get(
            "/_utils/db/me/panel/health?type=HKQuantityTypeIdentifierHeartRate&from=2024-06-01&to=2024-06-02&by=day&unit=count/hr")
        #expect(perHour.text.contains("<td>2024-06-01</td><td>3600 – 4500 – 5400</td>"), "in the unit asked for")
        let badUnit = try await server.admin.get(
            "/_utils/db/me/panel/health?type=HKQuantityTypeIdentifierHeartRate&unit=kg")
        #expect(badUnit.status == 400, "a unit that measures something else")
        // Without a type, the first common type with samples, over the year up to its newest sample.
        let year = try await server.admin.get("/_utils/db/me/panel/health")
        #expect(year.status == 200 && year.text.contains("per week"))
        let database = try await server.admin.get("/_utils/db/me")
        #expect(database.text.contains(#"<a href="/_utils/db/me/panel/health">Health</a>"#))
        await server.stop()
    }

    @Test func anAdminStartsAReplicationFromItsPageAndWatchesItComplete() async throws {
        try await withLiveServer(Self.panels) { server in
            let admin = server.admin
            #expect(try await admin.send("PUT", "/source").status == 201)
            #expect(try await admin.send("PUT", "/copy").status == 201)
            for index in 0..<20 { #expect(try await admin.put("/source/d\(index)", ["n": .number(JSONNumber(index))]).status == 201) }
            let dashboard = DashboardClient(server)
            let page = "/_utils/db/source/panel/replication"
            let remote = "http://admin:s3cret@127.0.0.1:\(server.port)/copy"
            let started = try await dashboard.post(
                page, [("action", "start"), ("direction", "push"), ("remote", remote)], tokenFrom: page)
            #expect(started.status == 303 && started.header("Location")?.hasPrefix(page + "?job=") == true)
            let text = try await Self.page(page, of: admin, onceItShows: #"<td class="state">complete</td>"#)
            #expect(text.contains(#"<td class="state">complete</td>"#))
            #expect(text.contains(#"<td class="num written">20</td>"#))
            #expect(text.contains("http://127.0.0.1:\(server.port)/copy") && !text.contains("s3cret"), "credentials are not shown")
            #expect(try await admin.get("/copy").json["doc_count"] == 20)
        }
    }

    @Test func aContinuousReplicationStopsWhenAskedAndOnlyAdminsMayStartOne() async throws {
        try await withLiveServer(Self.panels) { server in
            let admin = server.admin
            #expect(try await admin.send("PUT", "/source").status == 201)
            #expect(try await admin.send("PUT", "/copy").status == 201)
            let dashboard = DashboardClient(server)
            let page = "/_utils/db/source/panel/replication"
            let started = try await dashboard.post(
                page, [("action", "start"), ("direction", "push"), ("continuous", "on"),
                       ("remote", "http://admin:s3cret@127.0.0.1:\(server.port)/copy")], tokenFrom: page)
            let job = try #require(started.header("Location")?.components(separatedBy: "job=").last)
            #expect(try await admin.get(page).text.contains("continuous"))
            let stopped = try await dashboard.post(page, [("action", "stop"), ("job", job)], tokenFrom: page)
            #expect(stopped.status == 303)
            let text = try await Self.page(page, of: admin, onceItShows: #"<td class="state">stopped</td>"#)
            #expect(text.contains(#"<td class="state">stopped</td>"#))
            let badURL = try await dashboard.post(
                page, [("action", "start"), ("direction", "push"), ("remote", "file:///etc/passwd")], tokenFrom: page)
            #expect(badURL.status == 400 && badURL.text.contains("http(s) URL"))

            let user: JSONValue = ["name": "nina", "password": "pw", "roles": [], "type": "user"]
            #expect(try await admin.put("/_users/org.couchdb.user:nina", user).status == 201)
            #expect(try await admin.put("/source/_security", ["members": ["names": ["nina"]]]).status == 200)
            let nina = DashboardClient(client: server.client("nina", "pw"))
            let view = try await nina.get(page)
            #expect(view.status == 200 && view.text.contains("Only server admins start and stop replications."))
            let refused = try await nina.post(
                page, [("action", "start"), ("direction", "push"), ("remote", "http://127.0.0.1:1/x")], tokenFrom: page)
            #expect(refused.status == 403)
        }
    }
}
