@preconcurrency internal import CLibXML2
internal import CloudantCore
internal import Foundation

/// Reads the attributes Apple Health writes on `<Record>`, `<Correlation>`, `<Workout>` and `<WorkoutRoute>`:
/// source, device, dates with their offsets, metadata entries.
struct ExportAttributes {
    let element: XMLElementView
    /// Parsed values shared across the import, when the caller keeps one.
    var cache: ExportValueCache?

    /// The attribute's value. libxml2 finds it by comparing C strings, and only the value becomes a Swift
    /// `String`: the importer reads about ten attributes of each of millions of elements, and making a
    /// `String` of every attribute name on each lookup was a measurable share of its time.
    func string(_ name: String) -> String? { Self.value(of: Self.find(name, in: element.node)) }

    /// The element's attribute with local name `name`, whatever its namespace, as `XMLElementView` matches.
    /// (Not `xmlHasProp`, which may hand back a DTD attribute declaration instead of an attribute.)
    private static func find(_ name: String, in node: xmlNodePtr) -> xmlAttrPtr? {
        name.withCString { wanted in
            let wanted = UnsafeRawPointer(wanted).assumingMemoryBound(to: xmlChar.self)
            var cursor = node.pointee.properties
            while let attribute = cursor {
                if xmlStrEqual(attribute.pointee.name, wanted) != 0 { return attribute }
                cursor = attribute.pointee.next
            }
            return nil
        }
    }

    /// The attribute's value as a number, exactly as `string(name).flatMap(Double.init)`; a plain decimal in
    /// one text node is read in place (see `DecimalText`).
    func double(_ name: String) -> Double? {
        let attribute = Self.find(name, in: element.node)
        return XMLElementView.plainDouble(in: attribute?.pointee.children) ?? Self.value(of: attribute).flatMap(DecimalText.double)
    }

    /// The text of an attribute: its one text child (the usual case), else its children's text joined.
    static func value(of attribute: xmlAttrPtr?) -> String? {
        guard let attribute else { return nil }
        guard let child = attribute.pointee.children else { return "" }
        if child.pointee.next == nil, child.pointee.type == XML_TEXT_NODE, let content = child.pointee.content {
            return String(cString: content)
        }
        var text = ""
        var cursor: xmlNodePtr? = child
        while let current = cursor {
            // Entity references stay unexpanded, as in `XMLElementView`: their text is never trusted content.
            if current.pointee.type == XML_TEXT_NODE, let content = current.pointee.content {
                text += String(cString: content)
            }
            cursor = current.pointee.next
        }
        return text
    }

    /// A required timestamp.
    /// - Throws: ``ImportSkip`` naming the attribute when it is absent or unreadable.
    func time(_ name: String, type: String? = nil) throws(ImportSkip) -> LocalTimestamp {
        guard let text = string(name) else { throw ImportSkip("missing \(name)", type: type) }
        guard let time = LocalTimestamp(parsing: text) else {
            throw ImportSkip("an unreadable \(name)", type: type)
        }
        return time
    }

    var source: HealthSource? {
        string("sourceName").map { HealthSource(name: $0, version: string("sourceVersion")) }
    }

    /// `<<HKDevice: 0x…>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.4>`.
    var device: HealthDevice? {
        guard let text = string("device") else { return nil }
        guard let cache else { return Self.parseDevice(text) }
        return cache.device(text, parse: Self.parseDevice)
    }

    private static func parseDevice(_ text: String) -> HealthDevice {
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

    /// `<MetadataEntry key value>` children with their values typed (`GenericSample.typedValue(_:)`: numbers,
    /// quantities, timestamps, text), plus heart-rate-variability beats as an array of `{bpm, time}`; returns
    /// the metadata and the entry count.
    var metadata: (values: [String: JSONValue], entries: Int, beats: Int) {
        var values: [String: JSONValue] = [:]
        var entries = 0
        var beats = 0
        for child in element.elements {
            if child.isNamed("MetadataEntry") {
                entries += 1
                if let key = child.attribute("key") {
                    let text = child.attribute("value") ?? ""
                    values[key] = cache?.typed(text) ?? MetadataTyping.typed(text)
                }
            } else if child.isNamed("HeartRateVariabilityMetadataList") {
                let list = child.children(named: "InstantaneousBeatsPerMinute").map { beat -> JSONValue in
                    let bpm = beat.attribute("bpm").flatMap(Double.init).map { JSONValue.number(JSONNumber($0)) } ?? .null
                    return .object(["bpm": bpm, "time": beat.attribute("time").map(JSONValue.string) ?? .null])
                }
                beats += list.count
                values["HKHeartRateVariabilityInstantaneousBeatsPerMinute"] = .array(list)
            }
        }
        return (values, entries, beats)
    }

    /// Every attribute of the element, typed, for a ``GenericSample``; names, versions, units and identifiers
    /// stay text.
    var typedAttributes: [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        var cursor = element.node.pointee.properties
        while let attribute = cursor {
            if let name = attribute.pointee.name.map({ String(cString: $0) }) {
                let text = Self.value(of: attribute) ?? ""
                values[name] = Self.textAttributes.contains(name) ? .string(text) : MetadataTyping.typed(text)
            }
            cursor = attribute.pointee.next
        }
        return values
    }

    private static let textAttributes: Set<String> = [
        "type", "sourceName", "sourceVersion", "device", "unit", "uuid", "identifier", "key",
    ]

    /// The identifiers an app gives a sample, from metadata (see ``ImportKey``): a sync identifier names the
    /// sample whatever its version; an external uuid tells apart two samples that are otherwise alike.
    static func identifiers(in metadata: [String: JSONValue]) -> (sync: String?, external: String?) {
        func text(_ value: JSONValue?) -> String? {
            guard let value else { return nil }
            return value.stringValue ?? value.numberValue.map { "\($0.doubleValue)" }
        }
        return (text(metadata["HKMetadataKeySyncIdentifier"]), text(metadata["HKExternalUUID"] ?? metadata["HKMetadataKeyExternalUUID"]))
    }

    /// The key parts of a `<Record>` (see ``ImportKey``).
    static func recordKey(
        type: String, unit: String?, value: String?, start: Date, end: Date, creation: Date?, device: HealthDevice?,
        metadata: [String: JSONValue]
    ) -> [String] {
        let ids = identifiers(in: metadata)
        if let sync = ids.sync { return ["Record", type, "sync", sync] }
        return [
            "Record", type, unit ?? "", ImportKey.value(value), ImportKey.instant(start), ImportKey.instant(end),
            ImportKey.instant(creation), device?.hardwareVersion ?? "", ids.external ?? "",
        ]
    }
}

/// Why one element of an export was not imported; collected into the report, never thrown out of the import.
struct ImportSkip: Error {
    let reason: String
    /// What the report names instead of the element, such as the file at fault.
    let subject: String?
    /// The record's type, when known.
    let type: String?
    init(_ reason: String, subject: String? = nil, type: String? = nil) {
        self.reason = reason
        self.subject = subject
        self.type = type
    }
}
