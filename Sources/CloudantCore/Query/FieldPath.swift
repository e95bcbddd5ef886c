/// A dotted path to a value inside a document, as Mango selectors, `sort` and `fields` write it.
///
/// `"imdb.rating"` reaches `{"imdb": {"rating": 8}}`; a segment that is a decimal number indexes into an
/// array (`"tags.0"`). `\.` writes a literal dot inside a segment and `\$` a literal leading dollar; as in
/// CouchDB, every backslash is then removed. An empty path (no segments) is the value itself; it only
/// occurs inside `$elemMatch`, `$allMatch` and `$keyMapMatch`, whose conditions apply to each element.
///
/// ```swift
/// let path = try FieldPath(parsing: #"a\.b.c"#)   // ["a.b", "c"]
/// path.description                                 // a\.b.c
/// ```
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The member names or array indexes, unescaped, outermost first.
    public var segments: [String]

    /// Creates a path from unescaped segments.
    public init(_ segments: [String]) { self.segments = segments }

    /// Parses a dotted, possibly escaped field name.
    ///
    /// - Throws: `CloudantError.Code.invalidInput` with ``QueryErrorKind/invalidFieldName`` when a segment
    ///   is empty (`"a..b"`, `"a."`, `""`).
    public init(parsing text: String) throws(CloudantError) {
        var segments: [String] = []
        var current = ""
        var previousWasBackslash = false
        for character in text {
            if character == ".", !previousWasBackslash {
                segments.append(current)
                current = ""
            } else if character != "\\" {
                current.append(character)
            }
            previousWasBackslash = character == "\\"
        }
        segments.append(current)
        if segments.contains(where: \.isEmpty) {
            throw QueryErrorKind.invalidFieldName.error(
                "Invalid field name \"\(text)\": a field path must not have an empty segment (check for "
                    + "a leading, trailing or doubled dot).", field: text)
        }
        self.segments = segments
    }

    /// Whether the path is empty: it names the value itself.
    public var isEmpty: Bool { segments.isEmpty }

    /// The path written back in Mango's escaped dotted form, which ``init(parsing:)`` reads back.
    ///
    /// A backslash inside a segment cannot be written (CouchDB removes them all) and is dropped.
    public var description: String {
        // Planning asks for this many times per query; most paths have nothing to escape.
        let plain = segments.allSatisfy { segment in
            segment.utf8.first != UInt8(ascii: "$")
                && !segment.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "\\") }
        }
        if plain { return segments.joined(separator: ".") }
        return segments.map { segment in
            var escaped = ""
            for character in segment where character != "\\" {
                if character == "." || (character == "$" && escaped.isEmpty) { escaped.append("\\") }
                escaped.append(character)
            }
            return escaped
        }.joined(separator: ".")
    }

    /// This path followed by `other`.
    public func appending(_ other: FieldPath) -> FieldPath {
        FieldPath(segments + other.segments)
    }

    /// What looking a path up in a value found.
    public enum Lookup: Sendable, Hashable {
        /// The value at the path.
        case found(JSONValue)
        /// An object on the way lacks the member: only `$exists: false` matches.
        case missing
        /// The path runs into a scalar, or into an array with a segment that is not an index in range:
        /// no condition matches, not even `$exists: false` (CouchDB's `bad_path`).
        case badPath
    }

    /// Looks the path up in `value` the way CouchDB's `mango_doc:get_field` does.
    ///
    /// ```swift
    /// FieldPath(["tags", "1"]).lookup(in: ["tags": ["a", "b"]])   // .found("b")
    /// ```
    public func lookup(in value: JSONValue) -> Lookup {
        var current = value
        for segment in segments {
            switch current {
            case .object(let object):
                guard let member = object[segment] else { return .missing }
                current = member
            case .array(let elements):
                guard let index = Int(segment), elements.indices.contains(index) else { return .badPath }
                current = elements[index]
            default:
                return .badPath
            }
        }
        return .found(current)
    }
}
