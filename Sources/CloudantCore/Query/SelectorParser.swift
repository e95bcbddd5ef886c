/// A selector after validation and field-name push-down (CouchDB's `norm_ops` and `norm_fields`), before
/// negations are pushed to the leaves. `$not` and `$nor` only exist here.
indirect enum ParsedNode {
    case empty
    case and([ParsedNode])
    case or([ParsedNode])
    case nor([ParsedNode])
    case not(ParsedNode)
    case field(FieldPath, MangoSelector.Condition)
    case text(JSONValue)
}

/// Validates a selector's JSON and makes its implicit forms explicit, giving a
/// ``ParsedNode`` whose every condition sits on a full field path.
struct SelectorParser {
    /// Where the selector applies: to a document, at its top level or inside `$and`, `$or`, `$nor` or `$not`;
    /// or to each element (or key) under `$elemMatch`, `$allMatch` or `$keyMapMatch`. A condition without a
    /// field applies to what the scope is about: the element, or, inside a combination, the whole document.
    /// Only at a document's top level is it refused, as `mango_selector:normalize/1` checks only the
    /// top-level names for the empty field.
    enum Scope { case document, documentCombination, element }

    let scope: Scope

    static let unsupportedOperators: Set<String> = ["$where", "$geoWithin", "$geoIntersects", "$near", "$nearSphere"]

    /// Parses `value` found at `path` (the fields named by enclosing keys).
    func parse(_ value: JSONValue, at path: FieldPath) throws(CloudantError) -> ParsedNode {
        guard case .object(let object) = value else {
            // A bare value is an implicit `$eq`.
            return try condition(.eq(value), at: path, operator: "$eq")
        }
        guard let first = object.members.first else {
            // `{}` is the empty selector; on a field it is `$eq: {}`, as in CouchDB.
            return path.isEmpty ? .empty : .field(path, .eq(value))
        }
        guard object.count > 1 else { return try member(first.key, first.value, at: path) }
        // Several members are an implicit `$and`.
        var children: [ParsedNode] = []
        for member in object.members { children.append(try self.member(member.key, member.value, at: path)) }
        return .and(children)
    }

    private func member(_ key: String, _ value: JSONValue, at path: FieldPath) throws(CloudantError) -> ParsedNode {
        if key.hasPrefix("$") { return try operatorNode(key, value, at: path) }
        if key.isEmpty {
            // The empty field is where it stands: the element, or the document inside a combination
            // (normalised selectors name those conditions so); at a document's top level it names nothing.
            guard scope != .document else {
                throw QueryErrorKind.invalidSelector.error("One or more conditions is missing a field name.", field: "")
            }
            return try parse(value, at: path)
        }
        // A nested plain object is a sub-field path.
        return try parse(value, at: path.appending(FieldPath(parsing: key)))
    }

    private func operatorNode(_ name: String, _ value: JSONValue, at path: FieldPath) throws(CloudantError) -> ParsedNode {
        switch name {
        case "$and", "$or", "$nor":
            guard case .array(let items) = value else {
                throw badArgument(name, at: path, expected: "an array of selectors", got: value)
            }
            var children: [ParsedNode] = []
            for item in items { children.append(try combined.parse(item, at: path)) }
            return name == "$and" ? .and(children) : (name == "$or" ? .or(children) : .nor(children))
        case "$not":
            guard case .object = value else {
                throw badArgument(name, at: path, expected: "a selector object", got: value)
            }
            return .not(try combined.parse(value, at: path))
        case "$text":
            guard scope != .element, path.isEmpty else {
                throw QueryErrorKind.badArg.error(
                    "Bad argument for operator $text: use it at the top level of the selector (or inside "
                        + "$and/$or), not on field \"\(path.description)\" or inside $elemMatch.",
                    field: path.isEmpty ? "$text" : path.description)
            }
            switch value {
            case .string, .number, .bool: return .text(value)
            // CDTDatastore's spelling, `{"$text": {"$search": "…"}}`, which its users' queries carry.
            case .object(let object) where object.count == 1 && object["$search"]?.stringValue != nil:
                return .text(value)
            default:
                throw badArgument(name, at: path, expected: "a string, number, boolean or {\"$search\": string}", got: value)
            }
        case "$elemMatch", "$allMatch", "$keyMapMatch":
            guard case .object = value else {
                throw badArgument(name, at: path, expected: "a selector object", got: value)
            }
            // The argument is a selector on each element (or key) and is normalised on its own: field names
            // and negations do not cross these operators.
            let inner = try SelectorNormaliser.normalise(SelectorParser(scope: .element).parse(value, at: FieldPath([])))
            let built: MangoSelector.Condition =
                switch name {
                case "$elemMatch": .elemMatch(inner)
                case "$allMatch": .allMatch(inner)
                default: .keyMapMatch(inner)
                }
            return try condition(built, at: path, operator: name)
        default:
            if Self.unsupportedOperators.contains(name) {
                throw QueryErrorKind.notSupported.error("Unsupported operator: \(name)", field: name)
            }
            return try condition(terminal(name, value, at: path), at: path, operator: name)
        }
    }

    /// Validates the argument of an operator that takes no selector.
    private func terminal(_ name: String, _ value: JSONValue, at path: FieldPath) throws(CloudantError) -> MangoSelector.Condition {
        switch name {
        case "$eq": return .eq(value)
        case "$ne": return .ne(value)
        case "$lt": return .lt(value)
        case "$lte": return .lte(value)
        case "$gt": return .gt(value)
        case "$gte": return .gte(value)
        case "$exists":
            guard case .bool(let flag) = value else { throw badArgument(name, at: path, expected: "true or false", got: value) }
            return .exists(flag)
        case "$type":
            guard case .string(let type) = value else {
                throw badArgument(name, at: path, expected: "a type name string like \"number\"", got: value)
            }
            return .type(type)
        case "$in", "$nin", "$all":
            guard case .array(let values) = value else { throw badArgument(name, at: path, expected: "an array", got: value) }
            return name == "$in" ? .in(values) : (name == "$nin" ? .nin(values) : .all(values))
        case "$size":
            guard case .number(.integer(let size)) = value, size >= 0, let count = Int(exactly: size) else {
                throw badArgument(name, at: path, expected: "a non-negative integer", got: value)
            }
            return .size(count)
        case "$mod":
            guard case .array(let pair) = value, pair.count == 2,
                case .number(.integer(let divisor)) = pair[0], case .number(.integer(let remainder)) = pair[1],
                divisor != 0
            else {
                throw badArgument(name, at: path, expected: "[divisor, remainder] with two integers and a non-zero divisor", got: value)
            }
            return .mod(divisor: divisor, remainder: remainder)
        case "$regex":
            // CouchDB 3.5 answers a non-string pattern with invalid_operator.
            guard case .string(let source) = value else { throw nonStringArgument(name, at: path, got: value) }
            do {
                return .regex(try RegexPattern(source))
            } catch {
                throw error.adding { $0.field = path.isEmpty ? name : path.description }
            }
        case "$beginsWith":
            guard case .string(let prefix) = value else { throw nonStringArgument(name, at: path, got: value) }
            return .beginsWith(prefix)
        default:
            // CouchDB's words (`mango_error:info(mango_selector, {invalid_operator, Op})`), which clients match.
            throw QueryErrorKind.invalidOperator.error("Invalid operator: \(name)", field: name)
        }
    }

    /// The parser of a combination's members: at a document's top level, one that lets a member apply to the
    /// whole document.
    private var combined: SelectorParser { scope == .document ? SelectorParser(scope: .documentCombination) : self }

    /// A leaf condition, which needs a field at a document's top level.
    private func condition(_ condition: MangoSelector.Condition, at path: FieldPath, operator name: String) throws(CloudantError) -> ParsedNode {
        if path.isEmpty, scope == .document {
            throw QueryErrorKind.invalidSelector.error(
                "One or more conditions is missing a field name: \(name) must be applied to a field, like "
                    + "{\"field\": {\"\(name)\": …}}.", field: name)
        }
        return .field(path, condition)
    }

    private func badArgument(_ name: String, at path: FieldPath, expected: String, got value: JSONValue) -> CloudantError {
        // The argument itself is not quoted: it may hold personal data.
        QueryErrorKind.badArg.error(
            "Bad argument for operator \(name)\(Self.location(path)): expected \(expected), got \(Self.kind(of: value)).",
            field: path.isEmpty ? name : path.description)
    }

    private func nonStringArgument(_ name: String, at path: FieldPath, got value: JSONValue) -> CloudantError {
        QueryErrorKind.invalidOperator.error(
            "Invalid operator: \(name)\(Self.location(path)) needs a string argument, got \(Self.kind(of: value)).",
            field: path.isEmpty ? name : path.description)
    }

    private static func location(_ path: FieldPath) -> String {
        path.isEmpty ? "" : " on field \"\(path.description)\""
    }

    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number(.integer), .number(.bigInteger): "an integer"
        case .number(.double): "a non-integer number"
        case .string: "a string"
        case .array(let items): "an array of \(items.count)"
        case .object: "an object"
        }
    }
}
