public import CloudantCore

/// Which entities a ``Repository/find(_:)`` returns: a Cloudant Query (Mango) selector, a sort and paging,
/// the same on the device and on the server.
///
/// ```swift
/// let overdue = try RepositoryCriteria(selector: ["due": ["$lt": "2026-11-26"]], sort: [SortField(try FieldPath(parsing: "due"))])
/// let mine = RepositoryCriteria.where("owner", equals: "ana")
/// ```
/// The entity kind is added to the selector by each repository, so criteria never match other kinds.
/// A sorted find on a remote CouchDB needs an index serving the sort there, as `_find` does.
public struct RepositoryCriteria: Sendable, Hashable {
    /// Which documents match.
    public var selector: MangoSelector
    /// The order of the results; empty is by id.
    public var sort: [SortField]
    /// At most this many; `nil` returns every match.
    public var limit: Int?
    /// Skip this many matches first.
    public var skip: Int

    /// Creates criteria from a parsed selector.
    public init(selector: MangoSelector = .all, sort: [SortField] = [], limit: Int? = nil, skip: Int = 0) {
        self.selector = selector
        self.sort = sort
        self.limit = limit
        self.skip = skip
    }

    /// Creates criteria from a selector in CouchDB's JSON form.
    /// - Throws: `CloudantError` (`.invalidInput`, with the position) for an invalid selector.
    public init(selector: JSONObject, sort: [SortField] = [], limit: Int? = nil, skip: Int = 0) throws {
        self.init(selector: try MangoSelector(.object(selector)), sort: sort, limit: limit, skip: skip)
    }

    /// Every entity.
    public static let all = RepositoryCriteria()

    /// The entities whose `field` (a dotted path) equals `value`.
    public static func `where`(_ field: String, equals value: JSONValue) -> RepositoryCriteria {
        // A field name is never an operator here; `MangoSelector` reads `{field: value}` as `$eq`.
        let selector = (try? MangoSelector(.object(JSONObject([(field, value)])))) ?? .all
        return RepositoryCriteria(selector: selector)
    }

    /// The selector restricted to one entity kind, as both sources run it.
    func selector(kindField: String, kind: String) -> JSONValue {
        let kindClause: JSONValue = .object(JSONObject([(kindField, .string(kind))]))
        if selector == .all { return kindClause }
        return ["$and": [selector.json, kindClause]]
    }
}
