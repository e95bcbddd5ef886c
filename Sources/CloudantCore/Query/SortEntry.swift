/// One entry of a CouchDB sort list, read as `mango_sort:new` reads both `_find`'s `sort` and a JSON index's
/// `fields`: a field name (ascending), or a one-key `{"field": "asc"|"desc"}` object.
enum SortEntry {
    /// The entry's field name and direction, or nil when the entry has neither form. The name is returned as
    /// written: each caller parses it as the path it needs.
    static func parse(_ entry: JSONValue) -> (name: String, descending: Bool)? {
        switch entry {
        case .string(let name) where !name.isEmpty:
            return (name, false)
        case .object(let object) where object.count == 1:
            let (name, direction) = object.members[0]
            switch direction.stringValue {
            case "asc": return (name, false)
            case "desc": return (name, true)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Refuses a list whose entries do not all sort in one direction, as CouchDB does.
    /// - Parameter field: The request member the list is (`sort`, `fields`), for the error.
    static func requireOneDirection(_ descending: [Bool], field: String) throws {
        if Set(descending).count > 1 {
            throw QueryErrorKind.unsupportedMixedSort.error(
                "Sorts currently only support a single direction for all fields.", field: field)
        }
    }
}
