internal import CloudantCore
internal import Foundation

/// Reads the attributes Apple Health writes on `<Record>`, `<Correlation>`, `<Workout>` and `<WorkoutRoute>`:
/// source, device, dates with their offsets, metadata entries.
struct ExportAttributes {
    let element: XMLElementView

    func string(_ name: String) -> String? { element.attribute(name) }

    func double(_ name: String) -> Double? { element.attribute(name).flatMap(Double.init) }

    /// A required timestamp.
    /// - Throws: ``ImportSkip`` naming the attribute when it is absent or unreadable.
    func time(_ name: String) throws(ImportSkip) -> LocalTimestamp {
        guard let text = element.attribute(name) else { throw ImportSkip("missing \(name)") }
        guard let time = LocalTimestamp(parsing: text) else { throw ImportSkip("unreadable \(name) '\(text)'") }
        return time
    }

    var source: HealthSource? {
        string("sourceName").map { HealthSource(name: $0, version: string("sourceVersion")) }
    }

    /// `<<HKDevice: 0x…>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.4>`.
    var device: HealthDevice? {
        guard let text = string("device") else { return nil }
        var fields: [String: String] = [:]
        for part in text.components(separatedBy: ", ") {
            guard let colon = part.firstIndex(of: ":"), !part.hasPrefix("<<") else { continue }
            let key = String(part[..<colon])
            var value = String(part[part.index(after: colon)...])
            if value.hasSuffix(">") { value.removeLast() }
            fields[key] = value
        }
        return HealthDevice(
            name: fields["name"], manufacturer: fields["manufacturer"], model: fields["model"],
            hardwareVersion: fields["hardware"], softwareVersion: fields["software"])
    }

    /// `<MetadataEntry key value>` children as string values (the export writes every value as text), plus
    /// heart-rate-variability beats as an array of `{bpm, time}`; returns the metadata and the entry count.
    var metadata: (values: [String: JSONValue], entries: Int, beats: Int) {
        var values: [String: JSONValue] = [:]
        var entries = 0
        var beats = 0
        for child in element.children {
            switch child.name {
            case "MetadataEntry":
                entries += 1
                if let key = child.attribute("key") { values[key] = .string(child.attribute("value") ?? "") }
            case "HeartRateVariabilityMetadataList":
                let list = child.children(named: "InstantaneousBeatsPerMinute").map { beat -> JSONValue in
                    let bpm = beat.attribute("bpm").flatMap(Double.init).map { JSONValue.number(JSONNumber($0)) } ?? .null
                    return .object(["bpm": bpm, "time": beat.attribute("time").map(JSONValue.string) ?? .null])
                }
                beats += list.count
                values["HKHeartRateVariabilityInstantaneousBeatsPerMinute"] = .array(list)
            default:
                continue
            }
        }
        return (values, entries, beats)
    }

    /// A stable uuid from the element's content: the same record always gets the same id, so importing an
    /// export twice writes nothing new. It hashes every attribute and child, in document order.
    var contentUUID: String {
        let digest = RevisionHash.mint(
            body: ["export": Self.fingerprint(element)], parentRevision: nil, deleted: false, attachments: [])
        let hex = Array(digest.uppercased())
        guard hex.count == 32 else { return digest }
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
    }

    private static func fingerprint(_ element: XMLElementView) -> JSONValue {
        var attributes: [JSONValue] = []
        var cursor = element.node.pointee.properties
        while let attribute = cursor {
            let name = attribute.pointee.name.map { String(cString: $0) } ?? ""
            attributes.append(.array([.string(name), .string(element.attribute(name) ?? "")]))
            cursor = attribute.pointee.next
        }
        return .array([.string(element.name), .array(attributes), .array(element.children.map(fingerprint))])
    }
}

/// Why one element of an export was not imported; collected into the report, never thrown out of the import.
struct ImportSkip: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
