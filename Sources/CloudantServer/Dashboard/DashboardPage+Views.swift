internal import CloudantCore
internal import Hummingbird

extension DashboardPage {
    /// The parameters the views page offers, in the order it shows them, with their labels.
    static let viewParameters: [(name: String, label: String)] = [
        ("key", "key"), ("startkey", "start key"), ("endkey", "end key"), ("group_level", "group level"),
        ("reduce", "reduce"), ("include_docs", "include docs"), ("descending", "descending"), ("limit", "limit"),
        ("skip", "skip"),
    ]

    /// `GET /_utils/db/NAME/views[?view=DDOC/VIEW&…]`: the database's design documents and their views; with
    /// `view`, that view run with the parameters given (keys as JSON), its rows as a table.
    func viewsPage(_ database: String) async throws -> Response {
        let base = DashboardHTML.databasePath(database)
        var values = layout(title: "Views", heading: "Views of \(database)", crumbs: [(database, base)])
        values["base"] = base
        let designs = await api.call(.get, [database, "_design_docs"], query: [("include_docs", "true")])
        try require(designs)
        var choices: [[String: Any]] = []
        let chosen = request.query["view"] ?? ""
        values["designs"] = (designs.body["rows"]?.arrayValue ?? []).map { row -> [String: Any] in
            let id = row["id"]?.stringValue ?? ""
            let name = String(id.dropFirst("_design/".count))
            let views = (row["doc"]?["views"]?.objectValue?.members ?? []).filter { $0.key != "lib" }.map { member -> [String: Any] in
                let path = name + "/" + member.key
                choices.append(["value": path, "selected": path == chosen])
                return [
                    "name": member.key, "path": path, "reduce": member.value["reduce"]?.stringValue ?? "",
                    "href": base + "/views?view=" + DashboardAPI.percentEncoded(path),
                ]
            }
            return [
                "id": id, "href": DashboardHTML.documentPath(database, id), "language": row["doc"]?["language"]?.stringValue ?? "javascript",
                "views": views, "hasViews": !views.isEmpty,
            ]
        }
        values["choices"] = choices
        values["parameters"] = Self.viewParameters.map { parameter -> [String: Any] in
            ["name": parameter.name, "label": parameter.label, "value": request.query[parameter.name] ?? ""]
        }
        var status = 200
        let parts = chosen.split(separator: "/", maxSplits: 1).map(String.init)
        if parts.count == 2 {
            let query = Self.viewParameters.compactMap { parameter -> (String, String)? in
                guard let value = request.query[parameter.name], !value.isEmpty else { return nil }
                return (parameter.name, value)
            }
            let answer = await api.call(.get, [database, "_design", parts[0], "_view", parts[1]], query: query)
            if answer.isSuccess {
                values["ran"] = true
                let rows = answer.body["rows"]?.arrayValue ?? []
                values["count"] = rows.count
                values["one"] = rows.count == 1
                if let total = answer.body["total_rows"] { values["total"] = DashboardHTML.cell(total) }
                values["rows"] = rows.map { row -> [String: Any] in
                    let id = row["id"]?.stringValue
                    // Keys and values as JSON: a view's `"1"` and `1` are different keys and must read so.
                    var cells: [String: Any] = ["key": row["key"]?.jsonString() ?? "", "value": row["value"]?.jsonString() ?? ""]
                    if let id { cells["id"] = id; cells["href"] = DashboardHTML.documentPath(database, id) }
                    if let document = row["doc"] { cells["doc"] = DashboardHTML.cell(document) }
                    return cells
                }
                values["hasIDs"] = rows.contains { $0["id"] != nil }
                values["hasDocs"] = rows.contains { $0["doc"] != nil }
            } else {
                values["failure"] = "The view answered: \(answer.reason)"
                status = answer.status
            }
        }
        return dashboard.renderer.page("views", values, status: status)
    }
}
