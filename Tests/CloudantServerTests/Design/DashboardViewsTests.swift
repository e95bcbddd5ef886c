import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("The dashboard's views page")
struct DashboardViewsTests {
    @Test func theViewsPageListsDesignDocumentsAndRunsAView() async throws {
        try await withDesignServer { server, client in
            #expect(try await client.put("/db/_design/ward", [
                "views": ["by_type": ["map": "function(doc) { if (doc.type) emit(doc.type, 1); }", "reduce": "_count"]],
            ]).status == 201)
            for (id, type) in [("a", "patient"), ("b", "nurse"), ("c", "patient")] {
                #expect(try await client.put("/db/\(id)", ["type": .string(type)]).status == 201)
            }
            let listing = try await client.get("/_utils/db/db/views")
            #expect(listing.status == 200)
            #expect(listing.text.contains("_design/ward") && listing.text.contains(#"<option value="ward/by_type""#))
            let grouped = try await client.get("/_utils/db/db/views?view=ward%2Fby_type&group_level=1")
            #expect(grouped.text.contains(#"<p id="view-count">2 rows"#))
            #expect(grouped.text.contains("&quot;patient&quot;") && grouped.text.contains(">2</td>"))
            let mapped = try await client.get("/_utils/db/db/views?view=ward%2Fby_type&reduce=false&key=%22nurse%22&include_docs=true")
            #expect(mapped.text.contains(#"<p id="view-count">1 row of 3"#))
            #expect(mapped.text.contains(">b</a>"))
            let refused = try await client.get("/_utils/db/db/views?view=ward%2Fby_type&group_level=x")
            #expect(refused.status == 400 && refused.text.contains("Invalid value for integer"))
            _ = server
        }
    }
}
