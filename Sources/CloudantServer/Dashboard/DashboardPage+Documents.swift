internal import CloudantCore
internal import Hummingbird

extension DashboardPage {
    /// Documents per page of the database page.
    static let pageSize = 25

    /// `GET /_utils/db/NAME[?start=ID]`: the database's facts and its documents by id, a page at a time.
    func databasePage(_ database: String) async throws -> Response {
        let info = await api.call(.get, [database])
        try require(info)
        var query: [(String, String)] = [("limit", String(Self.pageSize + 1))]
        let start = request.query["start"]
        if let start { query.append(("startkey", JSONValue.string(start).jsonString())) }
        let page = await api.call(.get, [database, "_all_docs"], query: query)
        try require(page)
        let rows = page.body["rows"]?.arrayValue ?? []
        let base = DashboardHTML.databasePath(database)
        var values = layout(title: database)
        values.merge(Self.infoValues(info.body)) { $1 }
        values["base"] = base
        values["rows"] = rows.prefix(Self.pageSize).map { row -> [String: Any] in
            let id = row["id"]?.stringValue ?? ""
            return ["id": id, "rev": row["value"]?["rev"]?.stringValue ?? "", "href": DashboardHTML.documentPath(database, id)]
        }
        values["limit"] = Self.pageSize
        if start != nil { values["start"] = true; values["first"] = base }
        if rows.count > Self.pageSize, let next = rows[Self.pageSize]["id"]?.stringValue {
            values["next"] = base + "?start=" + DashboardAPI.percentEncoded(next)
        }
        values["panels"] = dashboard.panels.map { ["title": $0.title, "href": base + "/panel/" + DashboardAPI.percentEncoded($0.name)] }
        return dashboard.renderer.page("database", values)
    }

    /// `GET /_utils/db/NAME/new`: an editor for a new document.
    func newDocumentPage(_ database: String, text: String? = nil, failure: String? = nil, status: Int = 200) async throws
        -> Response
    {
        let info = await api.call(.get, [database])
        try require(info)
        var values = layout(
            title: "New document", crumbs: [(database, DashboardHTML.databasePath(database))], failure: failure)
        values["isNew"] = true
        values["json"] = text ?? "{\n  \"type\": \"\"\n}"
        values["rows"] = 12
        values["saveHref"] = DashboardHTML.databasePath(database) + "/save"
        return dashboard.renderer.page("document", values, status: status)
    }

    /// `GET /_utils/db/NAME/doc/ID[?rev=REV]`: the document as editable JSON, its conflicts, its revision tree
    /// and its attachments. `text`, `failure` and `status` re-show a save that failed, with the text kept.
    func documentPage(
        _ database: String, id: String, rev: String?, text: String? = nil, failure: String? = nil, status: Int = 200
    ) async throws -> Response {
        var query: [(String, String)] = [("conflicts", "true")]
        if let rev { query.append(("rev", rev)) }
        let current = await api.call(.get, [database, id], query: query)
        let leaves = await api.call(.get, [database, id], query: [("open_revs", "all"), ("revs", "true")])
        // A deleted document has no current body (404 "deleted") but still has a tree to show.
        guard current.isSuccess || (current.status == 404 && leaves.isSuccess && !(leaves.body.arrayValue ?? []).isEmpty)
        else {
            try require(current)
            throw HTTPFailure.notFound()
        }
        let tree = DashboardRevisionTree(leaves: leaves.body.arrayValue ?? [])
        let winner = rev == nil ? current.body["_rev"]?.stringValue : tree.winner
        let shownRev = current.body["_rev"]?.stringValue ?? tree.winner ?? ""
        let documentPath = DashboardHTML.documentPath(database, id)
        var values = layout(
            title: id, crumbs: [(database, DashboardHTML.databasePath(database))], failure: failure)
        values["rev"] = shownRev
        values["deleted"] = !current.isSuccess || current.body["_deleted"]?.boolValue == true
        var body = current.isSuccess ? current.body : ["_id": .string(id), "_rev": .string(shownRev), "_deleted": true]
        if case .object(var object) = body {
            // Conflicts are shown as links, attachments as a table: the editor holds the document's own fields.
            _ = object.removeValue(forKey: "_conflicts")
            body = .object(object)
        }
        let json = text ?? DashboardHTML.pretty(body)
        values["json"] = json
        values["rows"] = min(40, max(8, json.split(separator: "\n").count + 2))
        values["saveHref"] = DashboardHTML.databasePath(database) + "/save"
        values["deleteHref"] = documentPath + "/delete"
        values["attachHref"] = documentPath + "/attach"
        let conflicts = (current.body["_conflicts"]?.arrayValue ?? []).compactMap(\.stringValue)
        values["hasConflicts"] = !conflicts.isEmpty
        values["conflicts"] = conflicts.map { ["rev": $0, "href": documentPath + "?rev=" + DashboardAPI.percentEncoded($0)] }
        values["tree"] = tree.nodes(winner: winner, shown: shownRev, documentPath: documentPath)
        values["attachments"] = (current.body["_attachments"]?.objectValue?.members ?? []).map { member -> [String: Any] in
            [
                "name": member.key, "contentType": member.value["content_type"]?.stringValue ?? "",
                "length": member.value["length"]?.numberValue.map { DashboardHTML.size(Int($0.doubleValue)) } ?? "",
                "href": DashboardHTML.attachmentPath(database, id, member.key)
                    + (rev.map { "?rev=" + DashboardAPI.percentEncoded($0) } ?? ""),
            ]
        }
        return dashboard.renderer.page("document", values, status: status)
    }

    /// `POST /_utils/db/NAME/save`: the editor's JSON, `PUT /NAME/ID` when it has an `_id`, else `POST /NAME`.
    /// Text that does not parse, or a save the database refuses (a conflict), comes back in the editor with
    /// the reason: nothing typed is lost.
    func saveDocument(_ database: String) async throws -> Response {
        let form = try checkedForm()
        let text = form["json"] ?? ""
        let id = (try? JSONValue(parsing: Array(text.utf8)))?["_id"]?.stringValue
        func again(_ failure: String, status: Int) async throws -> Response {
            if let id {
                return try await documentPage(database, id: id, rev: nil, text: text, failure: failure, status: status)
            }
            return try await newDocumentPage(database, text: text, failure: failure, status: status)
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: Array(text.utf8))
        } catch {
            return try await again("Not saved: the text is not valid JSON (\(error)).", status: 400)
        }
        guard document.objectValue != nil else {
            return try await again("Not saved: a document is a JSON object ({…}).", status: 400)
        }
        let answer: DashboardAPI.Answer
        if let id {
            answer = await api.call(.put, [database, id], json: document)
        } else {
            answer = await api.call(.post, [database], json: document)
        }
        guard answer.isSuccess, let savedID = answer.body["id"]?.stringValue else {
            var reason = answer.reason
            if answer.error == "conflict" {
                reason = "Not saved: the document changed since this revision was opened (or the _rev is missing). "
                    + "Your text is kept below; the page now shows the current revision's tree. Put the current "
                    + "_rev in your text to overwrite it."
            }
            return try await again(reason, status: answer.status)
        }
        return DashboardRenderer.redirect(to: DashboardHTML.documentPath(database, savedID) + "?done=saved")
    }

    /// `POST /_utils/db/NAME/doc/ID/delete`: `DELETE /NAME/ID?rev=REV`.
    func deleteDocument(_ database: String, id: String) async throws -> Response {
        let form = try checkedForm()
        try require(await api.call(.delete, [database, id], query: [("rev", form["rev"] ?? "")]))
        return DashboardRenderer.redirect(to: DashboardHTML.databasePath(database) + "?done=deleted")
    }

    /// `POST /_utils/db/NAME/doc/ID/attach` (`multipart/form-data`): `PUT /NAME/ID/FILENAME?rev=REV` with the
    /// file's bytes and type.
    func uploadAttachment(_ database: String, id: String) async throws -> Response {
        let upload = try DashboardUpload(request)
        try dashboard.csrf.check(request, form: upload.form)
        guard let file = upload.file, !file.name.isEmpty else { throw HTTPFailure.badRequest("Choose a file to upload.") }
        let answer = await api.send(
            .put, [database, id, file.name], query: [("rev", upload.form["rev"] ?? "")], body: file.bytes,
            contentType: file.contentType)
        try require(answer)
        return DashboardRenderer.redirect(to: DashboardHTML.documentPath(database, id) + "?done=uploaded")
    }
}
