internal import CloudantCore
internal import Hummingbird

extension DashboardPage {
    /// Changes the changes page lists.
    static let changesShown = 50

    /// `GET /_utils/db/NAME/changes`: the latest changes, newest first; the page's script then follows the
    /// feed (`_changes?feed=longpoll`) and adds new ones on top.
    func changesPage(_ database: String) async throws -> Response {
        let base = DashboardHTML.databasePath(database)
        let latest = await api.call(
            .get, [database, "_changes"], query: [("descending", "true"), ("limit", String(Self.changesShown))])
        try require(latest)
        // The feed continues from the database's current sequence, not from the oldest change listed.
        let now = await api.call(.get, [database, "_changes"], query: [("since", "now"), ("limit", "0")])
        try require(now)
        var values = layout(title: "Changes", heading: "Changes of \(database)", crumbs: [(database, base)])
        values["database"] = database
        values["live"] = true
        values["lastSeq"] = DashboardHTML.cell(now.body["last_seq"])
        values["changes"] = (latest.body["results"]?.arrayValue ?? []).map { change -> [String: Any] in
            let id = change["id"]?.stringValue ?? ""
            return [
                "seq": DashboardHTML.cell(change["seq"]), "id": id, "href": DashboardHTML.documentPath(database, id),
                "rev": change["changes"]?.arrayValue?.first?["rev"]?.stringValue ?? "",
                "deleted": change["deleted"]?.boolValue == true,
            ]
        }
        return dashboard.renderer.page("changes", values)
    }
}
