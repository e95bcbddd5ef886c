internal import CloudantCore
internal import Foundation

/// The position after the last document of a `_find` page: its sort key and `_id`, base64-encoded JSON.
/// Opaque to clients; valid only with the same selector and sort.
struct FindBookmark {
    static let empty = "nil"

    var keys: [JSONValue]
    var id: String

    var encoded: String {
        let json: JSONValue = ["k": .array(keys), "id": .string(id)]
        return Base64.encode(json.jsonBytes())
    }

    init(keys: [JSONValue], id: String) {
        self.keys = keys
        self.id = id
    }

    init(decoding text: String) throws {
        guard let bytes = Base64.decode(text), let json = try? JSONValue(parsing: bytes),
            case .array(let keys)? = json["k"], let id = json["id"]?.stringValue
        else {
            // CouchDB's reason, word for word: clients match it.
            throw QueryErrorKind.invalidBookmark.error(
                "Invalid bookmark value: \(JSONValue.string(text).jsonString())", field: "bookmark")
        }
        self.init(keys: keys, id: id)
    }

    static func position(of document: JSONObject, sort: [SortField]) -> FindBookmark {
        let keys = sort.map { field -> JSONValue in
            if case .found(let value) = field.path.lookup(in: .object(document)) { return value }
            return .null
        }
        return FindBookmark(keys: keys, id: document["_id"]?.stringValue ?? "")
    }

    /// Whether this position comes after `other` in the query's order.
    func isAfter(_ other: FindBookmark, sort: [SortField]) -> Bool {
        // Each field in its own direction (the builder allows mixed sorts); ties by `_id` in the first
        // field's direction, as `find` orders them.
        for (index, field) in sort.enumerated() where index < keys.count && index < other.keys.count {
            let order = Collation.compare(keys[index], other.keys[index])
            if order != 0 { return field.descending ? order < 0 : order > 0 }
        }
        let byID = Collation.compareBytes(id, other.id)
        return sort.first?.descending == true ? byID < 0 : byID > 0
    }
}
