internal import CloudantCare
internal import Foundation

/// Reads care entities from standard input and stores them: exact versions are imported, others added or
/// updated. Prints what was stored: one object for one object in, an array for an array.
struct CareWriting {
    let care: CareStore
    let updating: Bool

    func run(kind: CareKindArgument) async throws {
        let input = try JSONValue(parsing: Array(FileHandle.standardInput.readDataToEndOfFile()))
        let items: [JSONValue]
        switch input {
        case .array(let values): items = values
        case .object: items = [input]
        default: throw CloudantError(.invalidInput, "Standard input must be a JSON object or an array of objects.")
        }
        let stored: [JSONValue]
        switch kind {
        case .patient: stored = try await write(Patient.self, items)
        case .careplan: stored = try await write(CarePlan.self, items)
        case .contact: stored = try await write(Contact.self, items)
        case .task:
            // A task with a `healthKitLinkage` is CareKit's OCKHealthKitTask: stored as its own kind, with the link.
            let linked = items.filter { $0["healthKitLinkage"] != nil }.count
            if linked == 0 {
                stored = try await write(CareTask.self, items)
            } else if linked == items.count {
                stored = try await write(HealthKitLinkedTask.self, items)
            } else {
                throw CloudantError(
                    .invalidInput,
                    "Some tasks have a healthKitLinkage and some do not; store HealthKit-linked tasks in a call of their own.",
                    context: .init(field: "healthKitLinkage"))
            }
        case .outcome: stored = try await write(Outcome.self, items)
        case .note: stored = try await appendNotes(items)
        }
        if case .array = input { Output.print(.array(stored)) } else { Output.print(stored.first ?? .null) }
    }

    /// Versions of a CareKit history are stored exactly as given, and the other entities added or updated, in one
    /// transaction: when one item fails, none is stored, and the error names the failing item's position in
    /// the input. An item belongs to a history when it carries both `uuid` and `previousVersionUUIDs`, or when
    /// another item names its uuid as a previous version (the first version of an export often has no
    /// `previousVersionUUIDs`). Importing is idempotent: versions already stored are skipped.
    private func write<Entity: CareStorable>(_ type: Entity.Type, _ items: [JSONValue]) async throws -> [JSONValue] {
        var entities: [(index: Int, entity: Entity, linked: Bool)] = []
        var named = Set<UUID>()
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item else {
                throw CloudantError(.invalidInput, "Each entity must be a JSON object.", context: .init(itemIndex: index))
            }
            let entity = try Self.decode(type, item, index: index)
            entities.append((index, entity, object["uuid"] != nil && object["previousVersionUUIDs"] != nil))
            named.formUnion(entity.previousVersionUUIDs)
        }
        let history = entities.filter { $0.linked || named.contains($0.entity.uuid) }
        let fresh = entities.filter { !($0.linked || named.contains($0.entity.uuid)) }
        let written: [Entity]
        do {
            written =
                updating
                ? try await care.update(fresh.map(\.entity), importing: history.map(\.entity))
                : try await care.add(fresh.map(\.entity), importing: history.map(\.entity))
        } catch let error as CloudantError {
            // The store counts positions in history + fresh; the user counts them in the input.
            let positions = (history + fresh).map(\.index)
            throw error.adding { context in
                context.itemIndex = context.itemIndex.map { positions.indices.contains($0) ? positions[$0] : $0 }
            }
        }
        let stored = history.map { ($0.index, $0.entity) } + zip(fresh.map(\.index), written).map { ($0, $1) }
        return try stored.sorted { $0.0 < $1.0 }.map { try JSONValue(encoding: $0.1) }
    }

    private func appendNotes(_ items: [JSONValue]) async throws -> [JSONValue] {
        var results: [JSONValue] = []
        for (index, item) in items.enumerated() {
            guard let kindName = item["kind"]?.stringValue, let kind = CareKindArgument(rawValue: kindName.lowercased()),
                let id = item["id"]?.stringValue, let noteJSON = item["note"]
            else {
                throw CloudantError(
                    .invalidInput, #"A note is {"kind":KIND,"id":ID,"note":{"author","title","content"}}."#,
                    context: .init(field: "note", itemIndex: index))
            }
            let note = try noteJSON.decode(Note.self)
            switch kind {
            case .patient: results.append(try await append(note, to: Patient.self, id: id))
            case .careplan: results.append(try await append(note, to: CarePlan.self, id: id))
            case .contact: results.append(try await append(note, to: Contact.self, id: id))
            case .task: results.append(try await append(note, to: CareTask.self, id: id))
            case .outcome: results.append(try await append(note, to: Outcome.self, id: id))
            case .note:
                throw CloudantError(.invalidInput, "A note annotates an entity, not a note.", context: .init(field: "kind"))
            }
        }
        return results
    }

    /// Notes are not versioned on their own (as in CareKit): adding one adds a version of the object it annotates.
    private func append<Entity: CareStorable>(_ note: Note, to type: Entity.Type, id: String) async throws -> JSONValue {
        let tips = try await care.history(type, ids: [id]).tips(id: id)
        guard var current = tips.max(by: { $0.effectiveDate < $1.effectiveDate }) else {
            throw CloudantError(.notFound, "No object has this id; add it first.", context: .init(documentID: id))
        }
        current.notes = (current.notes ?? []) + [note]
        return try JSONValue(encoding: try await care.update([current])[0])
    }

    private static func decode<Entity: CareStorable>(_ type: Entity.Type, _ item: JSONValue, index: Int) throws -> Entity {
        let decoder = CloudantJSONCoding.makeDecoder()
        decoder.userInfo[CareDecodingDefaults.userInfoKey] = CareDecodingDefaults()
        do {
            return try decoder.decode(type, from: Data(item.jsonBytes()))
        } catch {
            throw CloudantError(
                .invalidInput, "The entity does not have CareKit's JSON shape for this kind; check its fields.",
                context: .init(kind: Entity.careKindName, itemIndex: index), underlying: error)
        }
    }
}

/// Date text in and out of the care commands.
enum CareCLIDates {
    static func parse(_ text: String, field: String) throws -> Date {
        let decoder = CloudantJSONCoding.makeDecoder()
        guard let json = try? JSONEncoder().encode([text]), let date = try? decoder.decode([Date].self, from: json).first
        else {
            throw CloudantError(
                .invalidInput, "Expected an ISO 8601 date-time such as 2024-05-01T09:30:00Z.", context: .init(field: field))
        }
        return date
    }

    static func timeZone(_ identifier: String?) throws -> TimeZone {
        guard let identifier else { return .current }
        guard let zone = TimeZone(identifier: identifier) else {
            throw CloudantError(.invalidInput, "Unknown time zone; use an IANA name such as Europe/Paris.", context: .init(field: "tz"))
        }
        return zone
    }

    /// ISO 8601 with the zone's offset, `2024-03-31T08:00:00+02:00` (`+00:00` in UTC, never `Z`).
    static func format(_ date: Date, in zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssxxx"
        return formatter.string(from: date)
    }
}
