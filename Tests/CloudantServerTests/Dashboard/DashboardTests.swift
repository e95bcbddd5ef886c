import CloudantCore
import CloudantServer
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// The dashboard at `/_utils` over real HTTP: its logins, forms, escaping and failures. (The click-through in a
/// real browser is BrowserTests/dashboard_test.py, which `.ci/run` runs with headless Chromium.)
@Suite("Web dashboard")
struct DashboardTests {
    @Test func anonymousVisitorsAreSentToTheLoginFormAndComeBackAfterLoggingIn() async throws {
        try await withLiveServer { server in
            let first = try await server.anonymous.get("/_utils/db/ward")
            #expect(first.status == 303)
            #expect(first.header("Location") == "/_utils/login?next=%2F_utils%2Fdb%2Fward")
            let form = try await server.anonymous.get("/_utils/login?next=%2F_utils%2Fdb%2Fward")
            #expect(form.status == 200 && form.text.contains(#"<form method="post" action="/_utils/login""#))
            let login = "name=admin&password=s3cret&next=%2F_utils%2Fdb%2Fward"
            let answer = try await server.anonymous.send(
                "POST", "/_utils/login", body: Data(login.utf8), contentType: "application/x-www-form-urlencoded")
            #expect(answer.status == 303 && answer.header("Location") == "/_utils/db/ward")
            let cookie = try #require(answer.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            #expect(cookie.hasPrefix("AuthSession="))
            let page = try await TestClient(baseURL: server.baseURL, user: nil, cookie: cookie).get("/_utils/")
            #expect(page.status == 200 && page.text.contains("<h1>Databases</h1>") && page.text.contains("Log out"))
        }
    }

    @Test func aWrongPasswordShowsTheFormAgainAndAnOffSiteNextIsIgnored() async throws {
        try await withLiveServer { server in
            let wrong = try await server.anonymous.send(
                "POST", "/_utils/login", body: Data("name=admin&password=nope".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(wrong.status == 401 && wrong.text.contains("Name or password is incorrect."))
            #expect(wrong.text.contains(#"value="admin""#))
            let offSite = try await server.anonymous.send(
                "POST", "/_utils/login", body: Data("name=admin&password=s3cret&next=https%3A%2F%2Fevil.example%2F".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(offSite.header("Location") == "/_utils/")
        }
    }

    @Test func formPostsWithoutTheTokenOrFromAnotherSiteAreRefusedAndChangeNothing() async throws {
        try await withLiveServer { server in
            let dashboard = DashboardClient(server)
            let missing = try await dashboard.post("/_utils/databases", [("name", "ward")], token: "")
            #expect(missing.status == 403 && missing.text.contains("security token"))
            let forged = try await dashboard.post("/_utils/databases", [("name", "ward")], token: "AAAA")
            #expect(forged.status == 403)
            let crossSite = try await dashboard.post(
                "/_utils/databases", [("name", "ward")], headers: ["Sec-Fetch-Site": "cross-site"])
            #expect(crossSite.status == 403)
            let otherOrigin = try await dashboard.post(
                "/_utils/databases", [("name", "ward")], headers: ["Origin": "http://evil.example"])
            #expect(otherOrigin.status == 403)
            #expect(try await server.admin.get("/ward").status == 404)
            let made = try await dashboard.post("/_utils/databases", [("name", "ward")])
            #expect(made.status == 303 && made.header("Location") == "/_utils/db/ward?done=created")
            #expect(try await server.admin.get("/ward").status == 200)
        }
    }

    @Test func userDataIsEscapedOnEveryPage() async throws {
        try await withLiveServer { server in
            let hostile = "<script>alert('id')</script>"
            #expect(try await server.admin.send("PUT", "/ward").status == 201)
            let encoded = DashboardClient.encode(hostile)
            let saved = try await server.admin.put(
                "/ward/\(encoded)", ["name": "<img src=x onerror=alert(1)>", "<b>key</b>": "\"'&"])
            #expect(saved.status == 201)
            let rev = try #require(saved.json["rev"]?.stringValue)
            let attachment = DashboardClient.encode("<svg onload=alert(2)>.txt")
            #expect(try await server.admin.send(
                "PUT", "/ward/\(encoded)/\(attachment)?rev=\(rev)", body: Data("x".utf8), contentType: "text/plain").status == 201)
            let query = DashboardClient.encode(#"{"selector":{}}"#)
            for path in ["/_utils/db/ward", "/_utils/db/ward/doc/\(encoded)", "/_utils/db/ward/changes", "/_utils/db/ward/query?q=\(query)"] {
                let page = try await server.admin.get(path)
                #expect(page.status == 200, "\(path)")
                for raw in ["<script>alert", "<img", "<b>key", "<svg onload"] {
                    #expect(!page.text.contains(raw), "\(path) contains \(raw)")
                }
                #expect(page.text.contains("&lt;script&gt;alert(&#39;id&#39;)&lt;/script&gt;"), "\(path)")
            }
        }
    }

    @Test func pagesCarryAPolicyThatRunsOnlyTheDashboardsOwnScript() async throws {
        try await withLiveServer { server in
            let page = try await server.admin.get("/_utils/")
            let policy = try #require(page.header("Content-Security-Policy"))
            #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"))
            #expect(page.header("X-Frame-Options") == "DENY" && page.header("Cache-Control") == "no-store")
            let script = try await server.anonymous.get("/_utils/assets/dashboard.js")
            #expect(script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(try await server.anonymous.get("/_utils/assets/dashboard.css").status == 200)
        }
    }

    @Test func aDocumentIsCreatedEditedAndDeletedThroughTheForms() async throws {
        try await withLiveServer { server in
            let dashboard = DashboardClient(server)
            #expect(try await server.admin.send("PUT", "/ward").status == 201)
            let created = try await dashboard.post("/_utils/db/ward/save", [("json", #"{"_id":"p1","name":"Ann"}"#)])
            #expect(created.status == 303 && created.header("Location") == "/_utils/db/ward/doc/p1?done=saved")
            let first = try await server.admin.get("/ward/p1").json
            let rev = try #require(first["_rev"]?.stringValue)
            let edited = try await dashboard.post(
                "/_utils/db/ward/save", [("json", #"{"_id":"p1","_rev":"\#(rev)","name":"Ann Lee"}"#)])
            #expect(edited.status == 303)
            let second = try await server.admin.get("/ward/p1").json
            #expect(second["name"] == "Ann Lee")
            let page = try await server.admin.get("/_utils/db/ward/doc/p1")
            #expect(page.text.contains("(current, shown)") && page.text.contains(rev))
            let generated = try await dashboard.post("/_utils/db/ward/save", [("json", #"{"name":"no id"}"#)])
            #expect(generated.status == 303 && generated.header("Location")?.hasPrefix("/_utils/db/ward/doc/") == true)
            let deleted = try await dashboard.post(
                "/_utils/db/ward/doc/p1/delete", [("rev", second["_rev"]?.stringValue ?? "")])
            #expect(deleted.status == 303)
            #expect(try await server.admin.get("/ward/p1").status == 404)
            let tombstone = try await server.admin.get("/_utils/db/ward/doc/p1")
            #expect(tombstone.status == 200 && tombstone.text.contains("tombstone"))
        }
    }

    @Test func aSaveOverAStaleRevisionOrOfInvalidJSONKeepsTheTextAndSaysWhy() async throws {
        try await withLiveServer { server in
            let dashboard = DashboardClient(server)
            #expect(try await server.admin.send("PUT", "/ward").status == 201)
            let first = try await server.admin.put("/ward/p1", ["v": 1]).json["rev"]?.stringValue ?? ""
            #expect(try await server.admin.put("/ward/p1", ["_rev": .string(first), "v": 2]).status == 201)
            let stale = #"{"_id":"p1","_rev":"\#(first)","v":"typed by hand"}"#
            let conflict = try await dashboard.post("/_utils/db/ward/save", [("json", stale)])
            #expect(conflict.status == 409 && conflict.text.contains("changed since"))
            #expect(conflict.text.contains("typed by hand"))
            #expect(try await server.admin.get("/ward/p1").json["v"] == 2)
            let broken = try await dashboard.post("/_utils/db/ward/save", [("json", #"{"_id":"p2", "v": "#)])
            #expect(broken.status == 400 && broken.text.contains("not valid JSON"))
            #expect(broken.text.contains("&quot;v&quot;: "))
            let array = try await dashboard.post("/_utils/db/ward/save", [("json", "[1,2]")])
            #expect(array.status == 400 && array.text.contains("a document is a JSON object"))
        }
    }

    @Test func conflictsAndTheRevisionTreeAreShown() async throws {
        try await withLiveServer { server in
            #expect(try await server.admin.send("PUT", "/ward").status == 201)
            let branches: JSONValue = [
                "new_edits": false,
                "docs": [
                    ["_id": "c", "_rev": "2-bbbb", "_revisions": ["start": 2, "ids": ["bbbb", "aaaa"]], "v": "b"],
                    ["_id": "c", "_rev": "2-cccc", "_revisions": ["start": 2, "ids": ["cccc", "aaaa"]], "v": "c"],
                ],
            ]
            #expect(try await server.admin.post("/ward/_bulk_docs", branches).status == 201)
            let page = try await server.admin.get("/_utils/db/ward/doc/c")
            #expect(page.text.contains("<h2>Conflicts</h2>"))
            #expect(page.text.contains("?rev=2-bbbb")) // the loser, linked
            let tree = try #require(page.text.components(separatedBy: #"id="revision-tree""#).last)
            #expect(tree.contains("1-aaaa") && tree.contains("2-cccc</a> (current, shown)") && tree.contains("2-bbbb</a> (conflict)"))
            let loser = try await server.admin.get("/_utils/db/ward/doc/c?rev=2-bbbb")
            #expect(loser.text.contains("&quot;v&quot;: &quot;b&quot;"))
        }
    }

    @Test func anAttachmentUploadedThroughTheFormIsStoredWithItsType() async throws {
        try await withLiveServer { server in
            let dashboard = DashboardClient(server)
            #expect(try await server.admin.send("PUT", "/ward").status == 201)
            let rev = try await server.admin.put("/ward/p1", ["v": 1]).json["rev"]?.stringValue ?? ""
            let token = try #require(DashboardClient.token(in: try await dashboard.get("/_utils/db/ward/doc/p1")))
            let bytes = Data((0..<5000).map { UInt8($0 % 251) })
            let uploaded = try await dashboard.upload(
                "/_utils/db/ward/doc/p1/attach", fields: [("_csrf", token), ("rev", rev)],
                file: ("file", "scan 1.bin", "application/x-test", bytes))
            #expect(uploaded.status == 303)
            let stored = try await server.admin.get("/ward/p1/scan%201.bin")
            #expect(stored.status == 200 && stored.body == bytes && stored.header("Content-Type") == "application/x-test")
            let page = try await server.admin.get("/_utils/db/ward/doc/p1")
            #expect(page.text.contains("scan 1.bin") && page.text.contains("/ward/p1/scan%201.bin"))
            let noToken = try await dashboard.upload(
                "/_utils/db/ward/doc/p1/attach", fields: [("rev", rev)], file: ("file", "x.bin", "text/plain", Data("x".utf8)))
            #expect(noToken.status == 403)
        }
    }

    @Test func theQueryPageShowsResultsThePlanAndManagesIndexes() async throws {
        try await withLiveServer { server in
            let dashboard = DashboardClient(server)
            #expect(try await server.admin.send("PUT", "/ward").status == 201)
            for (id, type) in [("a", "patient"), ("b", "nurse"), ("c", "patient")] {
                #expect(try await server.admin.put("/ward/\(id)", ["type": .string(type)]).status == 201)
            }
            let index = try await dashboard.post(
                "/_utils/db/ward/indexes", [("index", #"{"index":{"fields":["type"]},"name":"by-type","ddoc":"ix"}"#)])
            #expect(index.status == 303)
            let query = DashboardClient.encode(#"{"selector":{"type":"patient"},"limit":1}"#)
            let page = try await server.admin.get("/_utils/db/ward/query?q=\(query)")
            #expect(page.text.contains(#"<p id="result-count">1 document"#))
            #expect(page.text.contains("by-type</strong> (json, _design/ix)"))
            #expect(page.text.contains("rel=\"next\"")) // a full page: the bookmark's next page
            let refused = try await server.admin.get("/_utils/db/ward/query?q=\(DashboardClient.encode(#"{"selector":{"$bad":1}}"#))")
            #expect(refused.status == 400 && refused.text.contains("The query was refused"))
            let removed = try await dashboard.post(
                "/_utils/db/ward/indexes/delete", [("ddoc", "_design/ix"), ("name", "by-type"), ("type", "json")])
            #expect(removed.status == 303)
            #expect(try await server.admin.get("/ward/_index").json["total_rows"] == 1)
        }
    }

    @Test func deletingADatabaseNeedsItsNameTypedAgain() async throws {
        try await withLiveServer { server in
            let dashboard = DashboardClient(server)
            #expect(try await server.admin.send("PUT", "/ward").status == 201)
            let mistyped = try await dashboard.post("/_utils/db/ward/delete", [("confirm", "wrd")])
            #expect(mistyped.status == 400 && mistyped.text.contains("nothing was deleted"))
            #expect(try await server.admin.get("/ward").status == 200)
            let confirmed = try await dashboard.post("/_utils/db/ward/delete", [("confirm", "ward")])
            #expect(confirmed.status == 303)
            #expect(try await server.admin.get("/ward").status == 404)
        }
    }

    @Test func aUserSeesOnlyWhatTheAPIWouldShowThem() async throws {
        try await withLiveServer { server in
            let user: JSONValue = ["name": "nina", "password": "pw", "roles": [], "type": "user"]
            #expect(try await server.admin.put("/_users/org.couchdb.user:nina", user).status == 201)
            #expect(try await server.admin.send("PUT", "/ward").status == 201)
            let nina = server.client("nina", "pw")
            let forbidden = try await nina.get("/_utils/db/ward")
            #expect(forbidden.status == 403 && forbidden.text.contains("Not allowed"))
            let list = try await nina.get("/_utils/")
            #expect(list.status == 200 && list.text.contains("Only server admins can list every database"))
        }
    }

    @Test func dashboardCallsAreRecordedInTheAuditTrailAsTheUsersOwn() async throws {
        let auditFolder = NSTemporaryDirectory() + "cloudant-audit-dashboard-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: auditFolder) }
        let server = try await LiveServer.start { $0.audit = AuditSettings(folder: auditFolder) }
        let dashboard = DashboardClient(server)
        #expect(try await server.admin.send("PUT", "/ward").status == 201)
        #expect(try await dashboard.post("/_utils/db/ward/save", [("json", #"{"_id":"p1"}"#)]).status == 303)
        await server.stop()
        let entries = try AuditTrail.entries(in: auditFolder)
        #expect(entries.contains { $0.action == "write" && $0.user == "admin" && $0.documentID == "p1" && $0.path == "/ward/p1" })
        #expect(!entries.contains { $0.database == "_utils" })
    }

    @Test func theDashboardCanBeTurnedOff() async throws {
        try await withLiveServer({ $0.dashboardEnabled = false }) { server in
            let page = try await server.admin.get("/_utils/")
            #expect(page.status == 404 && page.json["error"] == "not_found")
        }
    }

    @Test func aRegisteredPanelIsLinkedAndRenderedWithItsValuesEscaped() async throws {
        struct CountPanel: DashboardPanel {
            let name = "count"
            let title = "Count <all>"
            func render(_ context: DashboardPanelContext) async throws -> DashboardPanelContent {
                let count = try await context.store.allDocs().totalRows
                return DashboardPanelContent(
                    heading: "Count of \(context.database)", template: "<p id=\"n\">{{count}} {{label}}</p>",
                    values: ["count": count, "label": "<docs>"])
            }
        }
        try await withLiveServer({ $0.dashboardPanels = [CountPanel()] }) { server in
            #expect(try await server.admin.send("PUT", "/ward").status == 201)
            #expect(try await server.admin.put("/ward/a", ["v": 1]).status == 201)
            let database = try await server.admin.get("/_utils/db/ward")
            #expect(database.text.contains(#"<a href="/_utils/db/ward/panel/count">Count &lt;all&gt;</a>"#))
            let panel = try await server.admin.get("/_utils/db/ward/panel/count")
            #expect(panel.status == 200 && panel.text.contains(#"<p id="n">1 &lt;docs&gt;</p>"#))
            #expect(try await server.admin.get("/_utils/db/ward/panel/none").status == 404)
        }
    }
}
