/// CouchDB's structural rules for design documents (`_design/…`), checked before one is stored.
///
/// CouchDB refuses a design document whose well-known members have the wrong JSON type or a view without a
/// `map` (`couch_mrview:validate_ddoc_fields`), and, in the languages it runs, a reduce function named after a
/// built-in that does not exist (``checkBuiltInReduce(_:documentID:)``), with `400 invalid_design_doc` and a
/// reason naming the member by its dotted path. We store views and run no
/// JavaScript, so we check exactly the structure, never compile functions: a design document CouchDB would
/// refuse is refused here too, and a design document replicated from CouchDB is always accepted.
///
/// ```swift
/// try DesignDocumentRules.validate(["views": "nope"], documentID: "_design/app")
/// // throws invalidDesignDocument: "`views` field must have object type"
/// ```
public enum DesignDocumentRules {
    /// One expected type of a member.
    enum Kind: String {
        case object, string, array, boolean
    }

    /// A step of a rule: a named member (or every member of an object) and the types it may have.
    struct Step {
        /// The member's name; nil for every member of the object.
        var name: String?
        var kinds: [Kind]
    }

    /// The built-in reduce functions CouchDB knows (with the prefix match CouchDB uses).
    static let builtInReducePrefixes = ["_sum", "_count", "_stats", "_approx_count_distinct", "_first", "_last"]

    /// Checks `body` (the document without its `_` members) as CouchDB checks a design document.
    ///
    /// - Throws: `CloudantError.Code.invalidDesignDocument` with CouchDB's reason: "`views.v` field must
    ///   have object type", "View `v` must contain map function".
    public static func validate(_ body: JSONObject, documentID: String) throws {
        // Mango's design documents (`"language": "query"`) keep an object as each view's map.
        let mapKind: Kind = body["language"]?.stringValue == "query" ? .object : .string
        for rule in rules(mapKind: mapKind) {
            if let (path, kinds) = firstFailure(in: body, rule[...], trail: []) {
                throw invalid(
                    "`\(path.joined(separator: "."))` field must have \(kinds.map(\.rawValue).joined(separator: " or ")) type",
                    documentID: documentID)
            }
        }
        guard case .object(let views)? = body["views"] else { return }
        for (name, view) in views.members where name != "lib" {
            guard case .object(let definition) = view, definition["map"] != nil else {
                throw invalid("View `\(name)` must contain map function", documentID: documentID)
            }
        }
    }

    /// The view languages CouchDB runs out of the box (couchjs and Mango's native query server): it checks the
    /// reduce functions of these only, and stores a design document in any other language unchecked.
    public static let languagesCouchDBRuns: Set<String> = ["javascript", "query"]

    /// Checks a reduce function named after a built-in (`_…`) as `couch_mrview:validate` does, after the
    /// view's map function compiled.
    ///
    /// - Throws: `CloudantError.Code.invalidDesignDocument` with CouchDB's reason: "`_foo` is not a supported
    ///   reduce function.", "rank value must be between 1 and 100" (`_top_0`), "invalid rank reducer" (`_top_x`).
    public static func checkBuiltInReduce(_ name: String, documentID: String) throws {
        guard name.hasPrefix("_"), !builtInReducePrefixes.contains(where: { name.hasPrefix($0) }) else { return }
        for prefix in ["_top_", "_bottom_"] where name.hasPrefix(prefix) {
            // Erlang's binary_to_integer: an optional sign and decimal digits, nothing else.
            guard let rank = erlangInteger(name.dropFirst(prefix.count)) else {
                throw invalid("invalid rank reducer", documentID: documentID)
            }
            guard (1...100).contains(rank) else { throw invalid("rank value must be between 1 and 100", documentID: documentID) }
            return
        }
        throw invalid("`\(name)` is not a supported reduce function.", documentID: documentID)
    }

    /// `binary_to_integer/1`: a sign then at least one digit; any size (a huge rank is out of range, not invalid).
    private static func erlangInteger(_ text: Substring) -> Int? {
        var digits = text
        var negative = false
        if let sign = digits.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let trimmed = digits.drop { $0 == "0" }
        guard trimmed.count <= 18, let magnitude = Int(trimmed.isEmpty ? "0" : trimmed) else { return negative ? Int.min : Int.max }
        return negative ? -magnitude : magnitude
    }

    /// CouchDB's list, in its order: each rule walks from the document down, each step typed.
    static func rules(mapKind: Kind) -> [[Step]] {
        let object = Step(name: nil, kinds: [.object])
        func member(_ name: String, _ kinds: Kind...) -> Step { Step(name: name, kinds: kinds) }
        let anyFunction = Step(name: nil, kinds: [.object, .string])
        return [
            [member("filters", .object), anyFunction],
            [member("language", .string)],
            [member("lists", .object), anyFunction],
            [member("options", .object)],
            [member("options", .object), member("include_design", .boolean)],
            [member("options", .object), member("local_seq", .boolean)],
            [member("options", .object), member("partitioned", .boolean)],
            [member("rewrites", .string, .array)],
            [member("shows", .object), anyFunction],
            [member("updates", .object), anyFunction],
            [member("validate_doc_update", .string)],
            [member("views", .object), member("lib", .object)],
            [member("views", .object), object, Step(name: "map", kinds: [mapKind])],
            [member("views", .object), object, member("reduce", .string)],
        ]
    }

    /// The dotted path and expected types of the first member on the rule's path that has none of its
    /// step's types; nil when all do. A missing member ends the walk: it is fine.
    private static func firstFailure(in object: JSONObject, _ steps: ArraySlice<Step>, trail: [String]) -> ([String], [Kind])? {
        guard let step = steps.first else { return nil }
        var members: [(key: String, value: JSONValue)] = []
        if let name = step.name {
            if let value = object[name] { members.append((name, value)) }
        } else {
            members = object.members
        }
        for (name, value) in members {
            guard step.kinds.contains(where: { has(value, $0) }) else { return (trail + [name], step.kinds) }
            if case .object(let inner) = value, let failure = firstFailure(in: inner, steps.dropFirst(), trail: trail + [name]) {
                return failure
            }
        }
        return nil
    }

    private static func has(_ value: JSONValue, _ kind: Kind) -> Bool {
        switch (value, kind) {
        case (.object, .object), (.string, .string), (.array, .array), (.bool, .boolean): true
        default: false
        }
    }

    private static func invalid(_ reason: String, documentID: String) -> CloudantError {
        CloudantError(.invalidDesignDocument, reason, context: .init(documentID: documentID))
    }
}
