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
    /// The document id (defaults to ``uuid``).
    public var id: String
    /// HealthKit's uuid for the sample.
    public var uuid: String
    /// Always ``documentTypeIdentifier``.
    public var typeIdentifier: String
    /// The CDA XML exactly as received (HealthKit's `documentData`).
    public var documentXML: String
    /// The extracted fields.
    public var document: CDADocument
    /// When the sample starts.
    public var startDate: Date
    /// When it ends.
    public var endDate: Date
    /// The UTC offset in seconds the start was recorded in.
    public var startUTCOffset: Int?
    /// The UTC offset in seconds the end was recorded in.
    public var endUTCOffset: Int?
    /// The app or device that wrote it.
    public var source: HealthSource?
    /// The hardware that measured it.
    public var device: HealthDevice?
    /// HealthKit metadata, any JSON value per key.
    public var metadata: [String: JSONValue]
    /// The revision the sample was read at.
    public var revId: String?

    /// Creates a sample from an already extracted document.
    public init(
        id: String? = nil, uuid: String, documentXML: String, document: CDADocument, startDate: Date,
        endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, source: HealthSource? = nil,
        device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        self.id = id ?? uuid
        self.uuid = uuid
        self.typeIdentifier = Self.documentTypeIdentifier
        self.documentXML = documentXML
        self.document = document
        self.startDate = startDate
        self.endDate = endDate
        self.startUTCOffset = startUTCOffset
        self.endUTCOffset = endUTCOffset ?? startUTCOffset
        self.source = source
        self.device = device
        self.metadata = metadata
        self.revId = revId
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
