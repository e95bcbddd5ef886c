public import CloudantCore
public import Foundation

/// A clinical document (`HKCDADocumentSample`): the CDA XML as received, plus the fields extracted from it,
/// stored as an `HKCDADocumentSample` document.
///
/// ```swift
/// let sample = try CDADocumentSample(uuid: "…", xml: data, startDate: now, endDate: now)
/// sample.document.patientName
/// ```
public typealias CDADocumentSample = HealthSampleOf<CDADocumentSampleValues>

/// A CDA document sample's own members.
public struct CDADocumentSampleValues: HealthSampleValues {
    /// The family these members make a sample of.
    public static let sampleType = HealthSampleType.cdaDocument
    /// The CDA XML exactly as received (HealthKit's `documentData`).
    public var documentXML: String
    /// The extracted fields.
    public var document: CDADocument
}

extension CDADocumentSample {
    /// The type identifier every CDA document carries.
    public static var documentTypeIdentifier: String { "HKDocumentTypeIdentifierCDA" }

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
