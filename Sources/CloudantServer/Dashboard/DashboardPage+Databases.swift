internal import CloudantCore
internal import Hummingbird

extension DashboardPage {
    /// `GET /_utils/`: every database the user can list, with its counts and sizes.
    func databasesPage() async throws -> Response {
        var values = layout(title: "Databases")
        do {
            values["databases"] = try await databaseRows()
        } catch let failure as HTTPFailure where failure.body.status == 401 || failure.body.status == 403 {
            // `_all_dbs` is for server admins (CouchDB 3's admin_only_all_dbs); others open a database by name.
            values["databases"] = [[String: Any]]()
            values["notice"] = "Only server admins can list every database; open yours by name below."
        }
        values["newName"] = ""
        return dashboard.renderer.page("databases", values)
    }

    /// `POST /_utils/databases`: `PUT /NAME`.
    func createDatabase() async throws -> Response {
        let form = try checkedForm()
        let name = form.trimmed("name") ?? ""
        let answer = await api.call(.put, [name])
        guard answer.isSuccess else {
            // The page again, with the name kept and CouchDB's reason.
            var values = layout(title: "Databases", failure: "Could not create “\(name)”: \(answer.reason)")
            values["databases"] = try await databaseRows()
            values["newName"] = name
            return dashboard.renderer.page("databases", values, status: answer.status)
        }
        return DashboardRenderer.redirect(to: DashboardHTML.databasePath(name) + "?done=created")
    }

    private func databaseRows() async throws -> [[String: Any]] {
        let names = await api.call(.get, ["_all_dbs"])
        try require(names)
        var rows: [[String: Any]] = []
        for name in names.body.arrayValue?.compactMap(\.stringValue) ?? [] {
            let info = await api.call(.get, [name])
            var row: [String: Any] = ["name": name, "href": DashboardHTML.databasePath(name)]
            // A database listed but not readable by this user (not a member) shows dashes.
            row.merge(info.isSuccess ? Self.infoValues(info.body) : Self.unreadableInfo) { $1 }
            rows.append(row)
        }
        return rows
    }

    /// `POST /_utils/db/NAME/delete`: `DELETE /NAME` once the form repeats the name.
    func deleteDatabase(_ database: String) async throws -> Response {
        let form = try checkedForm()
        guard form["confirm"] == database else {
            throw HTTPFailure.badRequest("Type the database's name exactly to delete it; nothing was deleted.")
        }
        try require(await api.call(.delete, [database]))
        return DashboardRenderer.redirect(to: "/_utils/?done=database-deleted")
    }

    static var unreadableInfo: [String: Any] { ["docCount": "–", "deletedCount": "–", "fileSize": "–", "dataSize": "–"] }

    /// The counts and sizes of a `GET /NAME` answer, as the pages show them.
    static func infoValues(_ info: JSONValue) -> [String: Any] {
        func count(_ key: String) -> String { info[key]?.numberValue.map { String(Int64($0.doubleValue)) } ?? "0" }
        func size(_ key: String) -> String {
            info["sizes"]?[key]?.numberValue.map { DashboardHTML.size(Int($0.doubleValue)) } ?? "–"
        }
        return [
            "docCount": count("doc_count"), "deletedCount": count("doc_del_count"), "fileSize": size("file"),
            "dataSize": size("external"), "updateSeq": DashboardHTML.cell(info["update_seq"]),
        ]
    }
}
