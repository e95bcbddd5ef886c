public import Foundation

/// An attribute's value, typed as the model says: what the Core Data bridge's documents hold, decoded.
///
/// ```swift
/// let rating = AttributeValue.double(4.5)
/// let photo = AttributeValue.binary(Data([0xFF, 0xD8]), mimeType: "image/jpeg")
/// ```
public enum AttributeValue: Sendable, Hashable {
    /// `utf8`.
    case utf8(String)
    /// `bool`.
    case bool(Bool)
    /// `date1970`.
    case date(Date)
    /// `int16`.
    case int16(Int16)
    /// `int32`.
    case int32(Int32)
    /// `int64`.
    case int64(Int64)
    /// `double`; equality compares bit patterns, so NaN payloads and `-0.0` are told apart.
    case double(Double)
    /// `float`; equality compares bit patterns.
    case float(Float)
    /// `decimal`.
    case decimal(Decimal)
    /// `binary`, with its MIME type.
    case binary(Data, mimeType: String)
    /// `xform`.
    case transformable(TransformableValue)
    /// `id`: a Core Data object URI.
    case objectID(String)

    public static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
        switch (lhs, rhs) {
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.float(let a), .float(let b)): a.bitPattern == b.bitPattern
        case (.utf8(let a), .utf8(let b)), (.objectID(let a), .objectID(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.int16(let a), .int16(let b)): a == b
        case (.int32(let a), .int32(let b)): a == b
        case (.int64(let a), .int64(let b)): a == b
        case (.decimal(let a), .decimal(let b)): a == b || (a.isNaN && b.isNaN)
        case (.binary(let a, let m), .binary(let b, let n)): a == b && m == n
        case (.transformable(let a), .transformable(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .utf8(let value), .objectID(let value): hasher.combine(value)
        case .bool(let value): hasher.combine(value)
        case .date(let value): hasher.combine(value)
        case .int16(let value): hasher.combine(value)
        case .int32(let value): hasher.combine(value)
        case .int64(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value.bitPattern)
        case .float(let value): hasher.combine(value.bitPattern)
        case .decimal(let value): hasher.combine(value.isNaN ? "NaN" : value.description)
        case .binary(let data, let mimeType): hasher.combine(data); hasher.combine(mimeType)
        case .transformable(let value): hasher.combine(value)
        }
    }
}

/// The value of an `xform` attribute: the bytes a transformer produced, their MIME type and the
/// transformer's name (Core Data's `NSValueTransformer`; the application turns the bytes back).
///
/// ```swift
/// let instructions = TransformableValue(data: Data(html.utf8), mimeType: "text/html", transformer: "RichText")
/// ```
public struct TransformableValue: Sendable, Hashable, Codable {
    /// The transformed bytes.
    public var data: Data
    /// Their MIME type (`application/octet-stream` unless known).
    public var mimeType: String
    /// The transformer's name, when the model names one.
    public var transformer: String?

    /// Creates a value.
    public init(data: Data, mimeType: String = "application/octet-stream", transformer: String? = nil) {
        self.data = data
        self.mimeType = mimeType
        self.transformer = transformer
    }
}
