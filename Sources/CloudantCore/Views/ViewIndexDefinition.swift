internal import Crypto
internal import Foundation

/// The views of one design document as CouchDB indexes them (`couch_mrview_util:ddoc_to_mrst`): views
/// whose map function and options are the same share one index, each index holds the names that query it
/// as a map view and the reduce functions of the names that reduce it, and the whole has a signature that
/// changes exactly when the rows any view holds could change.
///
/// ```swift
/// let definition = try ViewIndexDefinition(designDocument: ddoc)
/// definition.lookUp("by_type", reduce: nil)   // .reduce(view: 0, function: 0) when by_type has a reduce
/// definition.signature                         // "9b2c…" (hex)
/// ```
public struct ViewIndexDefinition: Sendable, Hashable {
    /// One index: a map function and its options, shared by every view name that has them.
    public struct View: Sendable, Hashable {
        /// The map function's source (a string for JavaScript views).
        public var map: String
        /// The view's `options` (`{"collation": "raw"}`).
        public var options: JSONObject
        /// The names that query this index as a map view (those without a reduce).
        public var mapNames: [String]
        /// The names with a reduce function, and their functions, in the order CouchDB keeps them.
        public var reduces: [(name: String, source: String)]

        /// Whether keys collate by Erlang's term order (`"collation": "raw"`) instead of CouchDB's.
        public var rawCollation: Bool { options["collation"]?.stringValue == "raw" }

        public static func == (a: View, b: View) -> Bool {
            a.map == b.map && a.options == b.options && a.mapNames == b.mapNames
                && a.reduces.map(\.name) == b.reduces.map(\.name) && a.reduces.map(\.source) == b.reduces.map(\.source)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(map)
            hasher.combine(options)
            hasher.combine(mapNames)
            for reduce in reduces {
                hasher.combine(reduce.name)
                hasher.combine(reduce.source)
            }
        }
    }

    /// How a view name is queried.
    public enum Lookup: Sendable, Hashable {
        /// Map rows of the index at `view`.
        case map(view: Int)
        /// Reduced rows of the index at `view`, with its reduce function at `function`.
        case reduce(view: Int, function: Int)
    }

    /// The design document's id.
    public var designDocumentID: String
    /// `language` (CouchDB's default: `javascript`).
    public var language: String
    /// The indexes, in CouchDB's order (by map source, then options).
    public var views: [View]
    /// `views.lib`: the CommonJS modules map functions may `require`.
    public var lib: JSONValue?
    /// The design document's `options` (`include_design`, `local_seq`, `partitioned`).
    public var designOptions: JSONObject
    /// A hex digest of what decides the rows: the views, the language, the options and the lib. Two design
    /// documents with the same signature share one index, and a new signature means a new index.
    public var signature: String

    /// Whether the index maps design documents too (`options.include_design`).
    public var includesDesignDocuments: Bool { designOptions["include_design"]?.boolValue == true }
    /// Whether documents reach map functions with `_local_seq` (`options.local_seq`).
    public var includesLocalSequence: Bool { designOptions["local_seq"]?.boolValue == true }
    /// Whether the views are partitioned (`options.partitioned`); nil when the design document does not say.
    public var partitioned: Bool? { designOptions["partitioned"]?.boolValue }

    /// Reads the views of a design document's body.
    ///
    /// Members of the wrong type are skipped as CouchDB skips them (the design document rules refuse them
    /// when the document is saved); a view without `map` is not indexed.
    public init(designDocument: JSONObject) {
        designDocumentID = designDocument["_id"]?.stringValue ?? ""
        language = designDocument["language"]?.stringValue ?? "javascript"
        designOptions = designDocument["options"]?.objectValue ?? JSONObject()
        let rawViews = designDocument["views"]?.objectValue ?? JSONObject()
        lib = rawViews["lib"]
        var bySource: [(key: String, view: View)] = []
        for (name, value) in rawViews.members {
            guard let definition = value.objectValue, let mapValue = definition["map"] else { continue }
            // Mango's design documents (`"language": "query"`) hold an object as map; it is kept as its text.
            let map = mapValue.stringValue ?? mapValue.jsonString()
            let options = definition["options"]?.objectValue ?? JSONObject()
            let key = map + "\u{0}" + JSONValue.object(options).jsonString()
            var view: View
            let position = bySource.firstIndex { $0.key == key }
            if let position { view = bySource[position].view } else { view = View(map: map, options: options, mapNames: [], reduces: []) }
            if let reduce = definition["reduce"], reduce != .null {
                view.reduces.insert((name, reduce.stringValue ?? reduce.jsonString()), at: 0)
            } else {
                view.mapNames.insert(name, at: 0)
            }
            if let position { bySource[position].view = view } else { bySource.append((key, view)) }
        }
        // CouchDB numbers the indexes in the order of its dictionary's sorted keys: {MapSource, Options}.
        views = bySource.sorted { Self.sourceOrder($0.view, $1.view) }.map(\.view)
        signature = ""
        signature = Self.signature(of: self)
    }

    /// How `name` is queried (CouchDB's `set_view_type` and `extract_view`), or nil when no view has it.
    ///
    /// A name with a reduce function is a reduce view unless `reduce` is false; a name without one is a map
    /// view.
    public func lookUp(_ name: String, reduce: Bool?) -> Lookup? {
        for (position, view) in views.enumerated() {
            if let function = view.reduces.firstIndex(where: { $0.name == name }) {
                return reduce == false ? .map(view: position) : .reduce(view: position, function: function)
            }
            if view.mapNames.contains(name) { return .map(view: position) }
        }
        return nil
    }

    /// Whether the design document has views to index.
    public var hasViews: Bool { !views.isEmpty }

    /// Map sources and options order as Erlang orders `{MapSrc, Opts}`: the source binaries by bytes, then
    /// the options.
    private static func sourceOrder(_ a: View, _ b: View) -> Bool {
        let byMap = Collation.compareBytes(a.map, b.map)
        if byMap != 0 { return byMap < 0 }
        return Collation.rawCompare(.object(a.options), .object(b.options)) < 0
    }

    private static func signature(of definition: ViewIndexDefinition) -> String {
        let views: [JSONValue] = definition.views.map { view in
            [
                "map": .string(view.map), "options": .object(view.options),
                "map_names": .array(view.mapNames.map(JSONValue.string)),
                "reduce": .array(view.reduces.map { [.string($0.name), .string($0.source)] }),
            ]
        }
        let described: JSONValue = [
            "views": .array(views), "language": .string(definition.language), "options": .object(definition.designOptions),
            "lib": definition.lib ?? .null,
        ]
        let digest = Insecure.MD5.hash(data: described.canonicalJSONBytes())
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
