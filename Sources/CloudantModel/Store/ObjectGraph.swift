internal import CloudantCore
internal import CloudantModelSchema

/// The documents a save touches, as plain bodies, and the relationship edits that keep inverses in step.
///
/// Edits on documents not loaded yet are deferred; ``ModelStore`` loads every deferred id in one read and
/// runs them again, until none is left, so a save reads the store a handful of times whatever its size.
struct ObjectGraph {
    enum Edit {
        /// Make `relationship` of `document` include (to-many) or be (to-one) `target`.
        case add(document: String, relationship: String, target: String)
        /// Make `relationship` of `document` stop naming `target`.
        case remove(document: String, relationship: String, target: String)

        var document: String {
            switch self {
            case .add(let document, _, _), .remove(let document, _, _): document
            }
        }
    }

    let version: ModelVersion
    /// Current bodies, with `_id`, `_rev` and `_attachments` stubs as loaded.
    var documents: [String: JSONObject] = [:]
    /// Ids known not to exist (or deleted).
    var absent: Set<String> = []
    /// Documents changed by edits.
    var touched: Set<String> = []
    /// Documents being deleted: edits on them are dropped.
    var deleting: Set<String> = []
    var pending: [Edit] = []

    init(version: ModelVersion) { self.version = version }

    func entity(of document: JSONObject) -> EntityDescription? {
        document[IncrementalStore.entityNameKey]?.stringValue.flatMap(version.entity(named:))
    }

    /// Ids that pending edits need and that are neither loaded nor known absent.
    var missing: Set<String> {
        Set(pending.map(\.document)).subtracting(documents.keys).subtracting(absent)
    }

    /// Records what loading found.
    mutating func loaded(_ found: [String: JSONObject], asked: Set<String>) {
        for (id, document) in found where documents[id] == nil { documents[id] = document }
        absent.formUnion(asked.subtracting(found.keys))
    }

    /// Runs every edit whose document is loaded; the rest stay pending.
    mutating func run() {
        var queue = pending
        pending = []
        var next = 0
        while next < queue.count {
            let edit = queue[next]
            next += 1
            let id = edit.document
            if deleting.contains(id) || absent.contains(id) { continue }
            guard var document = documents[id], let entity = entity(of: document) else {
                if documents[id] == nil { pending.append(edit) }
                continue
            }
            switch edit {
            case .add(_, let name, let target):
                guard let relationship = entity.property(named: name) else { continue }
                if relationship.type == .relationToMany {
                    var ids = (try? IncrementalStoreCoding.readToMany(relationship, in: document, documentID: id, entity: entity.name)) ?? []
                    guard !ids.contains(target) else { continue }
                    ids.append(target)
                    IncrementalStoreCoding.writeToMany(ids, for: relationship, into: &document)
                } else {
                    let previous = try? IncrementalStoreCoding.readToOne(relationship, in: document, documentID: id, entity: entity.name)
                    guard previous != target else { continue }
                    IncrementalStoreCoding.writeToOne(target, for: relationship, into: &document)
                    // The object it pointed at before loses it from the other side.
                    if let previous, let inverse = relationship.inverse {
                        queue.append(.remove(document: previous, relationship: inverse, target: id))
                    }
                }
            case .remove(_, let name, let target):
                guard let relationship = entity.property(named: name) else { continue }
                if relationship.type == .relationToMany {
                    let ids = (try? IncrementalStoreCoding.readToMany(relationship, in: document, documentID: id, entity: entity.name)) ?? []
                    guard ids.contains(target) else { continue }
                    IncrementalStoreCoding.writeToMany(ids.filter { $0 != target }, for: relationship, into: &document)
                } else {
                    let current = try? IncrementalStoreCoding.readToOne(relationship, in: document, documentID: id, entity: entity.name)
                    guard current == target else { continue }
                    IncrementalStoreCoding.writeToOne(nil, for: relationship, into: &document)
                }
            }
            documents[id] = document
            touched.insert(id)
        }
    }

    /// The targets of every relationship of a body, by relationship.
    static func targets(of body: JSONObject, entity: EntityDescription, id: String) -> [(PropertyDescription, [String])] {
        entity.relationships.map { relationship in
            let ids: [String]
            if relationship.type == .relationToMany {
                ids = (try? IncrementalStoreCoding.readToMany(relationship, in: body, documentID: id, entity: entity.name)) ?? []
            } else {
                ids = ((try? IncrementalStoreCoding.readToOne(relationship, in: body, documentID: id, entity: entity.name)) ?? nil).map { [$0] } ?? []
            }
            return (relationship, ids)
        }
    }

    /// Queues the inverse edits for an object whose relationships went from `old` to `new`.
    mutating func relationshipsChanged(id: String, entity: EntityDescription, old: JSONObject?, new: JSONObject) {
        let before = old.map { Self.targets(of: $0, entity: entity, id: id) } ?? []
        for (relationship, after) in Self.targets(of: new, entity: entity, id: id) {
            guard let inverse = relationship.inverse else { continue }
            let previous = Set(before.first { $0.0.name == relationship.name }?.1 ?? [])
            for target in previous.subtracting(after).sorted() {
                pending.append(.remove(document: target, relationship: inverse, target: id))
            }
            for target in after where !previous.contains(target) {
                pending.append(.add(document: target, relationship: inverse, target: id))
            }
        }
    }
}
