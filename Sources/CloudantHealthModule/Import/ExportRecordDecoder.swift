internal import CloudantCore
internal import Foundation

/// Turns `<Record>` and `<Correlation>` elements into samples.
enum ExportRecordDecoder {
    /// A decoded `<Record>`: a quantity or category sample, or a generic one for what those cannot hold.
    struct Decoded {
        var sample: AnyHealthSample
        var metadata: Int
        var beats: Int
        /// Whether the sample is a ``GenericSample``.
        var isGeneric: Bool { if case .generic = sample { true } else { false } }
    }

    /// The sample a `<Record>` holds. A record of a type the store does not model, or a quantity whose value
    /// is not a number or whose unit HealthKit would not write, is kept as a ``GenericSample`` saying why.
    /// - Throws: ``ImportSkip`` when the record is not a sample at all (no type, no readable dates).
    static func record(_ element: XMLElementView, cache: ExportValueCache = ExportValueCache()) throws(ImportSkip) -> Decoded {
        let attributes = ExportAttributes(element: element, cache: cache)
        guard let type = attributes.string("type"), !type.isEmpty else { throw ImportSkip("a <Record> without a type") }
        let start = try attributes.time("startDate", type: type)
        let end = try attributes.time("endDate", type: type)
        let creation = attributes.string("creationDate").flatMap(LocalTimestamp.init(parsing:))
        let metadata = attributes.metadata
        let unit = attributes.string("unit")
        let text = attributes.string("value")
        let device = attributes.device
        let uuid = ImportKey.uuid(
            ExportAttributes.recordKey(
                type: type, unit: unit, value: text, start: start.date, end: end.date, creation: creation?.date,
                device: device, metadata: metadata.values),
            startingAt: start.date)
        func generic(_ reason: String) -> Decoded {
            let sample = GenericSample(
                uuid: uuid, typeIdentifier: type, element: "Record", value: text.map { cache.typed($0) }, unit: unit,
                attributes: attributes.typedAttributes, children: otherChildren(of: element), reason: reason,
                startDate: start.date, endDate: end.date, startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset,
                creationDate: creation?.date, source: attributes.source, device: device, metadata: metadata.values)
            return Decoded(sample: .generic(sample), metadata: metadata.entries, beats: metadata.beats)
        }
        switch HealthSampleType(typeIdentifier: type) {
        case .quantity:
            guard let text else { return generic("a quantity without a value") }
            guard let value = DecimalText.double(text), value.isFinite else { return generic("a quantity whose value is not a number") }
            let unit = unit ?? "count"
            guard cache.isUnit(unit) else { return generic("a unit HealthKit does not write ('\(unit)')") }
            let sample = QuantitySample(
                uuid: uuid, typeIdentifier: type, value: value, unit: unit, startDate: start.date, endDate: end.date,
                startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset, creationDate: creation?.date,
                source: attributes.source, device: device, metadata: metadata.values)
            return Decoded(sample: .quantity(sample), metadata: metadata.entries, beats: metadata.beats)
        case .category:
            let sample = CategorySample(
                uuid: uuid, typeIdentifier: type, value: text.flatMap { Int($0) },
                valueName: text.flatMap { Int($0) == nil ? $0 : nil }, startDate: start.date, endDate: end.date,
                startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset, creationDate: creation?.date,
                source: attributes.source, device: device, metadata: metadata.values)
            return Decoded(sample: .category(sample), metadata: metadata.entries, beats: metadata.beats)
        default:
            return generic("a type the store does not model")
        }
    }

    /// Any other top-level element that is a sample (it has a `startDate`, or a `date`): an `<Audiogram>`,
    /// an element a later iOS adds. Kept as a ``GenericSample`` named after the element, typed by its `type`
    /// attribute (else the element's name).
    /// - Throws: ``ImportSkip`` when the element has no readable date to place it in time.
    static func otherElement(_ element: XMLElementView, cache: ExportValueCache) throws(ImportSkip) -> Decoded {
        let attributes = ExportAttributes(element: element, cache: cache)
        let type = attributes.string("type") ?? element.name
        let startName = attributes.string("startDate") != nil ? "startDate" : "date"
        guard attributes.string(startName) != nil else {
            throw ImportSkip("an element the importer does not know, without a date to keep it as a sample", type: type)
        }
        let start = try attributes.time(startName, type: type)
        let end = attributes.string("endDate") != nil ? try attributes.time("endDate", type: type) : start
        let creation = attributes.string("creationDate").flatMap(LocalTimestamp.init(parsing:))
        let metadata = attributes.metadata
        let device = attributes.device
        let ids = ExportAttributes.identifiers(in: metadata.values)
        let key =
            ids.sync.map { [element.name, type, "sync", $0] }
            ?? [element.name, type, ImportKey.instant(start.date), ImportKey.instant(end.date),
                ImportKey.instant(creation?.date), device?.hardwareVersion ?? "", ids.external ?? ""]
        let sample = GenericSample(
            uuid: ImportKey.uuid(key, startingAt: start.date), typeIdentifier: type, element: element.name,
            value: attributes.string("value").map { cache.typed($0) }, unit: attributes.string("unit"),
            attributes: attributes.typedAttributes, children: otherChildren(of: element),
            reason: "an element the store does not model", startDate: start.date, endDate: end.date,
            startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset, creationDate: creation?.date,
            source: attributes.source, device: device, metadata: metadata.values)
        return Decoded(sample: .generic(sample), metadata: metadata.entries, beats: metadata.beats)
    }

    /// Child elements other than metadata and heart-rate beats, as typed JSON (kept by generic samples).
    static func otherChildren(of element: XMLElementView) -> [JSONValue] {
        element.elements.compactMap { child in
            child.isNamed("MetadataEntry") || child.isNamed("HeartRateVariabilityMetadataList") ? nil : json(child)
        }
    }

    /// `{"element", "attributes", "children"}` with typed attribute values.
    static func json(_ element: XMLElementView) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("element", .string(element.name)),
            ("attributes", .object(JSONObject(ExportAttributes(element: element).typedAttributes.sorted { $0.key < $1.key }
                .map { ($0.key, $0.value) }))),
        ]
        let children = element.elements.map(json)
        if !children.isEmpty { members.append(("children", .array(children))) }
        return .object(JSONObject(members))
    }

    /// A correlation with its member records embedded.
    static func correlation(_ element: XMLElementView, cache: ExportValueCache = ExportValueCache()) throws(ImportSkip)
        -> (sample: CorrelationSample, metadata: Int, members: Int)
    {
        let attributes = ExportAttributes(element: element, cache: cache)
        guard let type = attributes.string("type") else { throw ImportSkip("a <Correlation> without a type") }
        let start = try attributes.time("startDate", type: type)
        let end = try attributes.time("endDate", type: type)
        let metadata = attributes.metadata
        var entries = metadata.entries
        var quantities: [QuantitySample] = []
        var categories: [CategorySample] = []
        var memberKeys: [String] = []
        for child in element.children(named: "Record") {
            let member = try record(child, cache: cache)
            entries += member.metadata
            switch member.sample {
            case .quantity(let sample): quantities.append(sample)
            case .category(let sample): categories.append(sample)
            default: throw ImportSkip("a correlation member the store cannot type (\(member.sample.typeIdentifier))", type: type)
            }
            memberKeys.append(member.sample.id)
        }
        let creation = attributes.string("creationDate").flatMap(LocalTimestamp.init(parsing:))?.date
        let device = attributes.device
        let ids = ExportAttributes.identifiers(in: metadata.values)
        let key =
            ids.sync.map { ["Correlation", type, "sync", $0] }
            ?? ["Correlation", type, ImportKey.instant(start.date), ImportKey.instant(end.date), ImportKey.instant(creation),
                device?.hardwareVersion ?? "", ids.external ?? ""] + memberKeys.sorted()
        let sample = CorrelationSample(
            uuid: ImportKey.uuid(key, startingAt: start.date), typeIdentifier: type, startDate: start.date,
            endDate: end.date, startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset, creationDate: creation,
            source: attributes.source, device: device, metadata: metadata.values,
            quantitySamples: quantities, categorySamples: categories)
        return (sample, entries, quantities.count + categories.count)
    }
}
