extension MangoSelector.Node {
    /// The node as normalised selector JSON; ``MangoSelector/init(_:)`` reads it back to the same node.
    ///
    /// ```swift
    /// MangoSelector.Node.field(FieldPath(["a", "b"]), .gt(1)).json.jsonString()   // {"a.b":{"$gt":1}}
    /// ```
    public var json: JSONValue {
        switch self {
        case .empty: return .object(JSONObject())
        case .and(let children): return ["$and": .array(children.map(\.json))]
        case .or(let children): return ["$or": .array(children.map(\.json))]
        case .text(let argument): return ["$text": argument]
        case .field(let path, let condition):
            // A condition on the element itself (inside `$elemMatch`), or on the whole document (inside `$or`),
            // is named by the empty field, as `mango_selector:norm_fields/2` writes it.
            return .object(JSONObject([(path.isEmpty ? "" : path.description, condition.json)]))
        }
    }
}

extension MangoSelector.Condition {
    /// The condition as its operator object, such as `{"$gt": 1}`.
    public var json: JSONValue {
        let (name, argument) = operatorAndArgument
        return .object(JSONObject([(name, argument)]))
    }

    /// The Mango operator name, such as `"$gt"`.
    public var operatorName: String { operatorAndArgument.name }

    private var operatorAndArgument: (name: String, argument: JSONValue) {
        switch self {
        case .eq(let value): ("$eq", value)
        case .ne(let value): ("$ne", value)
        case .lt(let value): ("$lt", value)
        case .lte(let value): ("$lte", value)
        case .gt(let value): ("$gt", value)
        case .gte(let value): ("$gte", value)
        case .exists(let flag): ("$exists", .bool(flag))
        case .type(let name): ("$type", .string(name))
        case .in(let values): ("$in", .array(values))
        case .nin(let values): ("$nin", .array(values))
        case .size(let size): ("$size", .number(JSONNumber(size)))
        case .mod(let divisor, let remainder): ("$mod", [.number(.integer(divisor)), .number(.integer(remainder))])
        case .regex(let pattern): ("$regex", .string(pattern.source))
        case .beginsWith(let prefix): ("$beginsWith", .string(prefix))
        case .all(let values): ("$all", .array(values))
        case .elemMatch(let node): ("$elemMatch", node.json)
        case .allMatch(let node): ("$allMatch", node.json)
        case .keyMapMatch(let node): ("$keyMapMatch", node.json)
        case .not(let inner): ("$not", inner.json)
        }
    }
}
