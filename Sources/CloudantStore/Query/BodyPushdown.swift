internal import CloudantCore
internal import GRDB

/// Conditions SQLite's JSON functions check on a stored body before a text search's row is parsed (other
/// scans check them in memory, ``BodyPrefilter``).
///
/// Each SQL condition keeps every row its Mango condition could match (it may keep more: `true` reads as
/// `1` to SQLite), and every surviving row is re-checked against the whole selector, so results are
/// exact. Only conditions whose SQLite reading is safe are pushed:
/// - paths of plain member names (no array positions, which Mango and SQLite paths read differently, and no
///   `_` members, which are not in the stored body);
/// - `$eq` with an ASCII string (canonical equivalence is then byte equality), a number within ±2^53
///   (SQLite compares integers and reals by value), a boolean or null;
/// - number ranges (CouchDB collation puts strings, arrays and objects above every number, as SQLite puts
///   text above numbers; `null`, `false` and `true` below, which `$lt` adds back explicitly);
/// - `$exists`, `$type`, `$size`, and `$beginsWith` as a byte range.
/// String ranges use ICU collation and are left to the matcher.
enum BodyPushdown {
    static func conditions(for selector: MangoSelector, body column: String) -> ([String], [SQLValue]) {
        var sql: [String] = []
        var arguments: [SQLValue] = []
        for (path, condition) in QueryPlannerConjuncts.of(selector.root) {
            guard let jsonPath = jsonPath(path) else { continue }
            let extract = "json_extract(\(column), ?)"
            let type = "json_type(\(column), ?)"
            switch condition {
            case .eq(.string(let text)) where text.utf8.allSatisfy({ $0 < 0x80 }):
                sql.append("\(extract) = ?")
                arguments += [.text(jsonPath), .text(text)]
            case .eq(.number(let number)):
                guard let bound = safeNumber(number) else { continue }
                sql.append("\(extract) = ?")
                arguments += [.text(jsonPath), bound]
            case .eq(.bool(let flag)):
                sql.append("\(type) = ?")
                arguments += [.text(jsonPath), .text(flag ? "true" : "false")]
            case .eq(.null):
                sql.append("\(type) = 'null'")
                arguments += [.text(jsonPath)]
            case .gt(.number(let number)), .gte(.number(let number)):
                guard let bound = safeNumber(number) else { continue }
                if case .gt = condition { sql.append("\(extract) > ?") } else { sql.append("\(extract) >= ?") }
                arguments += [.text(jsonPath), bound]
            case .lt(.number(let number)), .lte(.number(let number)):
                guard let bound = safeNumber(number) else { continue }
                let comparison = if case .lt = condition { "<" } else { "<=" }
                sql.append("(\(extract) \(comparison) ? OR \(type) IN ('null', 'true', 'false'))")
                arguments += [.text(jsonPath), bound, .text(jsonPath)]
            case .exists(let present):
                sql.append(present ? "\(type) IS NOT NULL" : "\(type) IS NULL")
                arguments += [.text(jsonPath)]
            case .type(let name):
                guard let types = sqliteTypes[name] else { continue }
                sql.append("\(type) IN (" + types.map { "'\($0)'" }.joined(separator: ", ") + ")")
                arguments += [.text(jsonPath)]
            case .size(let count):
                sql.append("(\(type) = 'array' AND json_array_length(\(column), ?) = ?)")
                arguments += [.text(jsonPath), .text(jsonPath), .integer(Int64(count))]
            case .beginsWith(let prefix):
                // Byte order: every string with the prefix lies in [prefix, prefix + U+10FFFF).
                sql.append("(\(extract) >= ? AND \(extract) < ?)")
                arguments += [.text(jsonPath), .text(prefix), .text(jsonPath), .text(prefix + "\u{10FFFF}")]
            default:
                continue
            }
        }
        return (sql, arguments)
    }

    /// SQLite's `json_type` names for each Mango `$type` name (constants, never input).
    private static let sqliteTypes: [String: [String]] = [
        "null": ["null"], "boolean": ["true", "false"], "number": ["integer", "real"], "string": ["text"],
        "array": ["array"], "object": ["object"],
    ]

    /// `$.a.b` for a path of plain member names, or nil.
    static func jsonPath(_ path: FieldPath) -> String? {
        guard let first = path.segments.first, !first.hasPrefix("_") else { return nil }
        for segment in path.segments {
            guard let head = segment.utf8.first, !(0x30...0x39).contains(head),
                segment.utf8.allSatisfy({ $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
            else { return nil }
        }
        return "$." + path.segments.joined(separator: ".")
    }

    /// A number SQLite compares exactly with stored JSON numbers, as an SQL value.
    private static func safeNumber(_ number: JSONNumber) -> SQLValue? {
        switch number {
        case .integer(let integer): return integer.magnitude <= 1 << 53 ? .integer(Int64(integer)) : nil
        case .bigInteger: return nil
        case .double(let double): return double.isFinite && abs(double) <= 9_007_199_254_740_992 ? .real(double) : nil
        }
    }
}

/// The `(path, condition)` leaves of a selector's top-level `$and` (or the root itself).
enum QueryPlannerConjuncts {
    static func of(_ root: MangoSelector.Node) -> [(FieldPath, MangoSelector.Condition)] {
        let nodes: [MangoSelector.Node]
        if case .and(let children) = root { nodes = children } else { nodes = [root] }
        return nodes.compactMap { node in
            if case .field(let path, let condition) = node { return (path, condition) }
            return nil
        }
    }
}
