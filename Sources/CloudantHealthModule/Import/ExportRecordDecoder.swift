internal import CloudantCore
internal import Foundation

/// Turns `<Record>` and `<Correlation>` elements into samples.
enum ExportRecordDecoder {
    /// A quantity or category sample from a `<Record>`, with its metadata counts.
    static func record(_ element: XMLElementView, cache: ExportValueCache = ExportValueCache()) throws(ImportSkip)
        -> (sample: AnyHealthSample, metadata: Int, beats: Int)
    {
        let attributes = ExportAttributes(element: element, cache: cache)
        guard let type = attributes.string("type") else { throw ImportSkip("a <Record> without a type") }
        let start = try attributes.time("startDate")
        let end = try attributes.time("endDate")
        let creation = attributes.string("creationDate").flatMap(LocalTimestamp.init(parsing:))
        let metadata = attributes.metadata
        let uuid = attributes.contentUUID(startingAt: start.date)
        switch HealthSampleType(typeIdentifier: type) {
        case .quantity:
            guard let text = attributes.string("value") else { throw ImportSkip("a quantity without a value") }
            guard let value = Double(text), value.isFinite else { throw ImportSkip("a non-numeric value '\(text)'") }
            let unit = attributes.string("unit") ?? "count"
            guard cache.isUnit(unit) else { throw ImportSkip("an unknown unit '\(unit)'") }
            let sample = QuantitySample(
                uuid: uuid, typeIdentifier: type, value: value, unit: unit, startDate: start.date, endDate: end.date,
                startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset, creationDate: creation?.date,
                source: attributes.source, device: attributes.device, metadata: metadata.values)
            return (.quantity(sample), metadata.entries, metadata.beats)
        case .category:
            let text = attributes.string("value")
            let sample = CategorySample(
                uuid: uuid, typeIdentifier: type, value: text.flatMap { Int($0) },
                valueName: text.flatMap { Int($0) == nil ? $0 : nil }, startDate: start.date, endDate: end.date,
                startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset, creationDate: creation?.date,
                source: attributes.source, device: attributes.device, metadata: metadata.values)
            return (.category(sample), metadata.entries, metadata.beats)
        default:
            throw ImportSkip("a record type the store has no kind for (\(type))")
        }
    }

    /// A correlation with its member records embedded.
    static func correlation(_ element: XMLElementView, cache: ExportValueCache = ExportValueCache()) throws(ImportSkip)
        -> (sample: CorrelationSample, metadata: Int, members: Int)
    {
        let attributes = ExportAttributes(element: element, cache: cache)
        guard let type = attributes.string("type") else { throw ImportSkip("a <Correlation> without a type") }
        let start = try attributes.time("startDate")
        let end = try attributes.time("endDate")
        let metadata = attributes.metadata
        var entries = metadata.entries
        var quantities: [QuantitySample] = []
        var categories: [CategorySample] = []
        for child in element.children(named: "Record") {
            let member = try record(child, cache: cache)
            entries += member.metadata
            switch member.sample {
            case .quantity(let sample): quantities.append(sample)
            case .category(let sample): categories.append(sample)
            default: break
            }
        }
        let sample = CorrelationSample(
            uuid: attributes.contentUUID(startingAt: start.date), typeIdentifier: type, startDate: start.date, endDate: end.date,
            startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset,
            creationDate: attributes.string("creationDate").flatMap(LocalTimestamp.init(parsing:))?.date,
            source: attributes.source, device: attributes.device, metadata: metadata.values,
            quantitySamples: quantities, categorySamples: categories)
        return (sample, entries, quantities.count + categories.count)
    }
}
