internal import CloudantCore
internal import Hummingbird

extension DashboardPage {
    /// Most columns the results table shows (the first fields met, `_id` first).
    static let resultColumns = 12

    /// `GET /_utils/db/NAME/query[?q=JSON]`: the Mango editor; with `q`, its `_explain` (the index chosen and
    /// why the others were not) and its `_find` results as a table. Below, the database's indexes.
    func queryPage(_ database: String, failure: String? = nil, newIndex: String? = nil, status: Int = 200) async throws
        -> Response
    {
        let base = DashboardHTML.databasePath(database)
        var values = layout(title: "Query", heading: "Query \(database)", crumbs: [(database, base)], failure: failure)
        values["base"] = base
        let text = request.query["q"] ?? "{\n  \"selector\": {},\n  \"limit\": 25\n}"
        values["q"] = text
        values["newIndex"] = newIndex ?? "{\n  \"index\": {\"fields\": [\"type\"]},\n  \"name\": \"by-type\"\n}"
        var status = status
        if request.query["q"] != nil {
            do {
                let query = try JSONValue(parsing: Array(text.utf8))
                let found = await api.call(.post, [database, "_find"], json: query)
                if found.isSuccess {
                    values["ran"] = true
                    values.merge(Self.results(found.body, database: database)) { $1 }
                    // A full page may have more: the same query from the answer's bookmark.
                    let limit = query["limit"]?.numberValue?.int64Value ?? 25
                    if let bookmark = found.body["bookmark"]?.stringValue, Int64(found.body["docs"]?.arrayValue?.count ?? 0) >= limit,
                        case .object(var next) = query
                    {
                        next["bookmark"] = .string(bookmark)
                        values["nextPage"] = base + "/query?q=" + DashboardAPI.percentEncoded(JSONValue.object(next).jsonString())
                    }
                    let plan = await api.call(.post, [database, "_explain"], json: query)
                    if plan.isSuccess { values.merge(Self.plan(plan.body)) { $1 } }
                } else {
                    values["failure"] = "The query was refused: \(found.reason)"
                    status = found.status
                }
            } catch {
                values["failure"] = "The query is not valid JSON (\(error))."
                status = 400
            }
        }
        let indexes = await api.call(.get, [database, "_index"])
        try require(indexes)
        values["indexes"] = (indexes.body["indexes"]?.arrayValue ?? []).map { index -> [String: Any] in
            [
                "name": index["name"]?.stringValue ?? "", "ddoc": index["ddoc"]?.stringValue ?? "",
                "type": index["type"]?.stringValue ?? "", "fields": DashboardHTML.cell(index["def"]?["fields"]),
                "deletable": index["ddoc"]?.stringValue != nil,
            ]
        }
        return dashboard.renderer.page("query", values, status: status)
    }

    /// The `_find` answer as table values: columns in the order fields first appear, one row per document.
    static func results(_ answer: JSONValue, database: String) -> [String: Any] {
        let documents = answer["docs"]?.arrayValue ?? []
        var columns: [String] = []
        for document in documents {
            for key in document.objectValue?.keys ?? [] where !columns.contains(key) && columns.count < resultColumns {
                columns.append(key)
            }
        }
        if let id = columns.firstIndex(of: "_id"), id != 0 { columns.insert(columns.remove(at: id), at: 0) }
        let rows = documents.map { document -> [String: Any] in
            let id = document["_id"]?.stringValue
            return [
                "cells": columns.map { column -> [String: Any] in
                    let text = DashboardHTML.cell(document[column])
                    let link = column == "_id" && id != nil
                    // Both keys on every cell: Mustache would look a missing one up in the enclosing row.
                    return ["text": text, "link": link, "href": link ? DashboardHTML.documentPath(database, id!) : ""]
                }
            ]
        }
        var values: [String: Any] = [
            "columns": columns, "results": rows, "count": documents.count, "one": documents.count == 1,
        ]
        if let warning = answer["warning"]?.stringValue { values["warning"] = warning }
        return values
    }

    /// The `_explain` answer: the index chosen, and each other index with CouchDB's reason for passing it over.
    static func plan(_ answer: JSONValue) -> [String: Any] {
        var values: [String: Any] = [:]
        if let index = answer["index"] {
            values["index"] = [
                "name": index["name"]?.stringValue ?? "", "type": index["type"]?.stringValue ?? "",
                "ddoc": index["ddoc"]?.stringValue ?? "", "hasDdoc": index["ddoc"]?.stringValue != nil,
                "fields": DashboardHTML.cell(index["def"]?["fields"]),
            ]
        }
        let candidates = (answer["index_candidates"]?.arrayValue ?? []).map { candidate -> [String: Any] in
            let reasons = (candidate["analysis"]?["reasons"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
            return [
                "name": candidate["index"]?["name"]?.stringValue ?? "",
                "reason": reasons.map(Self.describe).joined(separator: "; "),
            ]
        }
        values["candidates"] = candidates
        values["hasCandidates"] = !candidates.isEmpty
        return values
    }

    /// CouchDB's reason names (`mango_idx:usable_reason`) in words.
    static func describe(_ reason: String) -> String {
        switch reason {
        case "field_mismatch": "it does not cover the fields the selector uses"
        case "sort_order_mismatch": "its order does not match the sort asked for"
        case "needs_text_search": "the query needs a text index"
        case "conflicting_index": "the query named another index"
        case "excluded_by_user": "the query named another index"
        case "less_overlap": "another index covers more of the selector"
        case "too_many_fields": "another index matches with fewer fields"
        case "alphabetically_comes_after": "an equally good index comes first by name"
        case "empty_selector": "the selector is empty"
        case "is_partial": "it is a partial index, used only when named"
        case "scope_mismatch": "it is partitioned differently from the query"
        case "unfavored_type": "an index of a preferred type matches"
        default: reason
        }
    }

    /// `POST /_utils/db/NAME/indexes`: `POST /NAME/_index` with the form's JSON.
    func createIndex(_ database: String) async throws -> Response {
        let form = try checkedForm()
        let text = form["index"] ?? ""
        guard let definition = try? JSONValue(parsing: Array(text.utf8)) else {
            return try await queryPage(database, failure: "The index is not valid JSON.", newIndex: text, status: 400)
        }
        let answer = await api.call(.post, [database, "_index"], json: definition)
        guard answer.isSuccess else {
            return try await queryPage(
                database, failure: "The index was refused: \(answer.reason)", newIndex: text, status: answer.status)
        }
        return DashboardRenderer.redirect(to: DashboardHTML.databasePath(database) + "/query?done=index-created")
    }

    /// `POST /_utils/db/NAME/indexes/delete`: `DELETE /NAME/_index/DDOC/TYPE/NAME`.
    func deleteIndex(_ database: String) async throws -> Response {
        let form = try checkedForm()
        let ddoc = (form["ddoc"] ?? "").replacingOccurrences(of: "_design/", with: "")
        try require(await api.call(.delete, [database, "_index", ddoc, form["type"] ?? "json", form["name"] ?? ""]))
        return DashboardRenderer.redirect(to: DashboardHTML.databasePath(database) + "/query?done=index-deleted")
    }
}
