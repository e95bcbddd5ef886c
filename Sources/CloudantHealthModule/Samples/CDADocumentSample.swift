public import CloudantCore
public import Foundation

/// A clinical document (`HKCDADocumentSample`): the CDA XML as received, plus the fields extracted from it,
/// stored as an `HKCDADocumentSample` document.
///
/// ```swift
/// let sample = try CDADocumentSample(uuid: "…", xml: data, startDate: now, endDate: now)
/// sample.document.patientName
/// ```
public struct CDADocumentSample: HealthSample {
    /// The family of the sample.
    public static let sampleType = HealthSampleType.cdaDocument
    /// The type identifier every CDA document carries.
    public static let documentTypeIdentifier = "HKDocumentTypeIdentifierCDA"
    /// The fields every sample has (ids, type identifier, interval and offsets, source, device, metadata),
    /// each also a property of the sample (``HealthSample``).
    public var fields: SampleFields
    /// The document as received and as extracted, each also a property of the sample (`sample.document`).
    public var values: Values

    /// A CDA document sample's own members.
    public struct Values: Codable, Hashable, Sendable {
        /// The CDA XML exactly as received (HealthKit's `documentData`).
        public var documentXML: String
        /// The extracted fields.
        public var document: CDADocument
    }

    /// Creates a CDA document sample from its fields and own members.
    public init(fields: SampleFields, values: Values) {
        self.fields = fields
        self.values = values
    }

    /// Creates a sample from an already extracted document.
    public init(
        id: String? = nil, uuid: String, documentXML: String, document: CDADocument, startDate: Date,
        endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, source: HealthSource? = nil,
        device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        self.init(
            fields: SampleFields(
                id: id, uuid: uuid, typeIdentifier: Self.documentTypeIdentifier, startDate: startDate,
                endDate: endDate, startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, source: source,
                device: device, metadata: metadata, revId: revId),
            values: Values(documentXML: documentXML, document: document))
    }

    /// Parses `xml` as a CDA document and keeps both; start and end default to its effective time.
    /// - Throws: `CloudantError` as ``CDADocument/init(parsing:limits:)`` throws it, and `.invalidXML`
    ///   when the bytes are not UTF-8 text.
    public init(
        id: String? = nil, uuid: String, xml: Data, startDate: Date? = nil, endDate: Date? = nil,
        source: HealthSource? = nil, limits: XMLParseLimits = XMLParseLimits()
    ) throws {
        let document = try CDADocument(parsing: xml, limits: limits)
        guard let text = String(data: xml, encoding: .utf8) else {
            throw CloudantError(.invalidXML, "The CDA document is not UTF-8 text; re-encode it as UTF-8.")
        }
        let start = startDate ?? document.effectiveTime?.date ?? Date(timeIntervalSince1970: 0)
        self.init(
            id: id, uuid: uuid, documentXML: text, document: document, startDate: start,
            endDate: endDate ?? start, startUTCOffset: document.effectiveTime?.utcOffset, source: source)
    }
}
