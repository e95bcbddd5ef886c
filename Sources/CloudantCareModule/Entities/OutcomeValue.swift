public import Foundation

/// One recorded or target value (CareKit's `OCKOutcomeValue`): a number, flag, text, data or date, with
/// optional units and kind.
///
/// JSON as CareKit 4 writes it: `{"type":"double","value":120.5,"units":"mmHg","kind":"systolic",
/// "createdDate":…}`.
///
/// ```swift
/// let dose = OutcomeValue(.double(2.5), units: "mg", createdDate: clock.now)
/// ```
public struct OutcomeValue: Codable, Hashable, Sendable {
    /// The value itself, one of the six kinds CareKit stores.
    public enum Value: Hashable, Sendable {
        /// A whole number.
        case integer(Int)
        /// A floating-point number.
        case double(Double)
        /// A flag.
        case boolean(Bool)
        /// Text.
        case text(String)
        /// Binary data (base64 in JSON).
        case binary(Data)
        /// A date.
        case date(Date)
    }

    /// The value.
    public var value: Value
    /// The units of a measurement (`"mg"`, `"mmHg"`).
    public var units: String?
    /// What the value measures (`"systolic"`, `"mood"`).
    public var kind: String?
    /// When the value was recorded.
    public var createdDate: Date

    /// The kind of ``value``, as CareKit writes it under `type`.
    public var type: OutcomeValueType {
        switch value {
        case .integer: .integer
        case .double: .double
        case .boolean: .boolean
        case .text: .text
        case .binary: .binary
        case .date: .date
        }
    }

    /// The value as a number, when it is an integer or a double (what summing progress adds up).
    public var numericValue: Double? {
        switch value {
        case .integer(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    /// Creates a value.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - units: The units of a measurement.
    ///   - kind: What the value measures.
    ///   - createdDate: When it was recorded; the live default is now.
    public init(_ value: Value, units: String? = nil, kind: String? = nil, createdDate: Date = Date()) {
        self.value = value
        self.units = units
        self.kind = kind
        self.createdDate = createdDate
    }

    enum CodingKeys: String, CodingKey {
        case type, value, units, kind, createdDate
    }

    /// Reads CareKit's `{type, value, units?, kind?, createdDate}`; dates may be ISO 8601 text or seconds since
    /// 2001-01-01. A value without `createdDate` (hand-written JSON) takes the decoder's
    /// ``CareDecodingDefaults`` clock, or is a `keyNotFound` error without one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(OutcomeValueType.self, forKey: .type) {
        case .integer: value = .integer(try container.decode(Int.self, forKey: .value))
        case .double: value = .double(try container.decode(Double.self, forKey: .value))
        case .boolean: value = .boolean(try container.decode(Bool.self, forKey: .value))
        case .text: value = .text(try container.decode(String.self, forKey: .value))
        case .binary:
            // CareKit's JSONEncoder writes base64; the original OTFCloudantStore's encoder wrote an array of bytes.
            if let bytes = try? container.decode([UInt8].self, forKey: .value) {
                value = .binary(Data(bytes))
            } else {
                value = .binary(try container.decode(Data.self, forKey: .value))
            }
        case .date: value = .date(try container.decodeCareDate(forKey: .value))
        }
        units = try container.decodeIfPresent(String.self, forKey: .units)
        kind = try container.decodeIfPresent(String.self, forKey: .kind)
        if let defaults = decoder.careDecodingDefaults, !container.contains(.createdDate) {
            createdDate = defaults.now()
        } else {
            createdDate = try container.decodeCareDate(forKey: .createdDate)
        }
    }

    /// Writes CareKit's `{type, value, units?, kind?, createdDate}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        switch value {
        case .integer(let number): try container.encode(number, forKey: .value)
        case .double(let number): try container.encode(number, forKey: .value)
        case .boolean(let flag): try container.encode(flag, forKey: .value)
        case .text(let text): try container.encode(text, forKey: .value)
        case .binary(let data): try container.encode(data, forKey: .value)
        case .date(let date): try container.encode(date, forKey: .value)
        }
        try container.encodeIfPresent(units, forKey: .units)
        try container.encodeIfPresent(kind, forKey: .kind)
        try container.encode(createdDate, forKey: .createdDate)
    }
}

/// The kinds of value an ``OutcomeValue`` holds, with CareKit's names.
public enum OutcomeValueType: String, Codable, Hashable, Sendable, CaseIterable {
    /// A whole number.
    case integer
    /// A floating-point number.
    case double
    /// A flag.
    case boolean
    /// Text.
    case text
    /// Binary data.
    case binary
    /// A date.
    case date
}
