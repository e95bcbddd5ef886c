/// CouchDB's structural rules for design documents (`_design/…`), checked before one is stored.
///
/// CouchDB refuses a design document whose well-known members have the wrong JSON type, a view without a
/// `map`, or a reduce function named after a built-in that does not exist (`couch_mrview:validate`), with
/// `400 invalid_design_doc` and a reason naming the member by its dotted path. We store views and run no
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
    ///   have object type", "View `v` must contain map function", "`_foo` is not a supported reduce
    ///   function.".
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
            if let reduce = definition["reduce"]?.stringValue, reduce.hasPrefix("_"), !isBuiltInReduce(reduce) {
                throw invalid("`\(reduce)` is not a supported reduce function.", documentID: documentID)
            }
        }
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

    private static func isBuiltInReduce(_ name: String) -> Bool {
        if builtInReducePrefixes.contains(where: { name.hasPrefix($0) }) { return true }
        // `_top_N` and `_bottom_N` need a rank from 1 to 100.
        for prefix in ["_top_", "_bottom_"] where name.hasPrefix(prefix) {
            guard let rank = Int(name.dropFirst(prefix.count)) else { return false }
            return (1...100).contains(rank)
        }
        return false
    }

    private static func invalid(_ reason: String, documentID: String) -> CloudantError {
        CloudantError(.invalidDesignDocument, reason, context: .init(documentID: documentID))
    }
}
