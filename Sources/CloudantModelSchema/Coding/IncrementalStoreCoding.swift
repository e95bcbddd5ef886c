public import CloudantBase
internal import Foundation

/// The member names and constants of CDTDatastore's Core Data bridge (`CDTIncrementalStore`).
public enum IncrementalStore {
    /// The id of the one metadata document.
    public static let metadataDocumentID = "CDTISMetaData"
    /// The member naming an object's entity.
    public static let entityNameKey = "CDTISEntityName"
    /// The member holding the Core Data object URI.
    public static let identifierKey = "CDTISIdentifier"
    /// The member holding the object's version counter, a string bumped on every update.
    public static let objectVersionKey = "CDTISObjectVersion"
    /// The prefix of the members that carry a property's extra information.
    public static let metaPrefix = "CDTISMeta_"
    /// The prefix reserved for the bridge's own members.
    public static let reservedPrefix = "CDTIS"
    /// The store type written into the metadata (`NSStoreType`).
    public static let storeType = "CDTIncrementalStore"

    /// `CDTISMeta_<name>`.
    public static func metaKey(_ name: String) -> String { metaPrefix + name }
}

/// Encodes attribute values into a document body and decodes them, exactly as the Core Data bridge's JSON
/// schema (CDTDatastore's `CDTIncrementalStore`) says:
///
/// - `double`: the value as a number, and `CDTISMeta_<name>` = `{"ieee754_double": <the 64-bit image as an
///   unsigned integer>}`; reading restores the value from the image bit for bit (NaN payloads, `-0.0`,
///   subnormals). An infinity is written as ±`Double.greatestFiniteMagnitude` and NaN as 0, with
///   `"nonFinite": "infinity" | "-infinity" | "nan"`, so predicates still compare them.
/// - `float`: the same with `ieee754_single`, the 32-bit image, and ±`Float.greatestFiniteMagnitude`.
/// - `decimal`: the value's text, and `{"nsdecimal": <base64 of the 20-byte NSDecimal image>}` (NaN is
///   written as `"0"` with `"nonFinite": "nan"`).
/// - `binary`: base64 text, and `{"mime-type": …}`; `xform` adds `"xform": <transformer>`.
/// - `date1970`: seconds since 1970 as a number; `bool`: 1 or 0; integers as integers.
///
/// Reading is lenient where the bridge itself wrote other shapes: signed images (its code stored
/// `*(int64_t *)&dbl`), doubles as decimal strings, `true`/`false` for booleans, the older
/// `{"infinity": "true"}` markers, and binary values kept as attachments.
public enum IncrementalStoreCoding {
    // MARK: Attributes

    /// Writes `value` (or removes the property when `nil`) and its `CDTISMeta_` member.
    ///
    /// ```swift
    /// var body: JSONObject = ["CDTISEntityName": "Recipe"]
    /// IncrementalStoreCoding.write(.double(-0.0), for: rating, into: &body)
    /// // body: {"CDTISEntityName":"Recipe","rating":0,"CDTISMeta_rating":{"ieee754_double":9223372036854775808}}
    /// ```
    public static func write(_ value: AttributeValue?, for property: PropertyDescription, into body: inout JSONObject) {
        let name = property.name
        let meta = IncrementalStore.metaKey(name)
        guard let value else {
            body[name] = nil
            body[meta] = nil
            return
        }
        switch value {
        case .utf8(let text), .objectID(let text):
            body[name] = .string(text)
            body[meta] = nil
        case .bool(let flag):
            body[name] = .number(.integer(flag ? 1 : 0))
            body[meta] = nil
        case .date(let date):
            body[name] = .number(JSONNumber(date.timeIntervalSince1970))
            body[meta] = nil
        case .int16(let integer):
            body[name] = .number(.integer(Int64(integer)))
            body[meta] = nil
        case .int32(let integer):
            body[name] = .number(.integer(Int64(integer)))
            body[meta] = nil
        case .int64(let integer):
            body[name] = .number(.integer(integer))
            body[meta] = nil
        case .double(let double):
            var info: JSONObject = ["ieee754_double": unsignedImage(double.bitPattern)]
            body[name] = .number(finiteStandIn(double, greatest: .greatestFiniteMagnitude, marker: &info))
            body[meta] = .object(info)
        case .float(let float):
            var info: JSONObject = ["ieee754_single": .number(.integer(Int64(float.bitPattern)))]
            body[name] = .number(finiteStandIn(Double(float), greatest: Double(Float.greatestFiniteMagnitude), marker: &info))
            body[meta] = .object(info)
        case .decimal(let decimal):
            var info: JSONObject = ["nsdecimal": .string(Data(DecimalImage.bytes(of: decimal)).base64EncodedString())]
            if decimal.isNaN {
                info["nonFinite"] = "nan"
                body[name] = "0"
            } else {
                body[name] = .string(decimal.description)
            }
            body[meta] = .object(info)
        case .binary(let data, let mimeType):
            body[name] = .string(data.base64EncodedString())
            body[meta] = ["mime-type": .string(mimeType)]
        case .transformable(let value):
            body[name] = .string(value.data.base64EncodedString())
            var info: JSONObject = ["mime-type": .string(value.mimeType)]
            if let transformer = value.transformer ?? property.transformer { info["xform"] = .string(transformer) }
            body[meta] = .object(info)
        }
    }

    /// Reads a property's value; `nil` when the document has none (absent or `null`).
    /// - Throws: `CloudantError` `CloudantError.Code.schemaViolation` naming the
    ///   document, entity and property, with a ``SchemaViolation`` saying what is wrong.
    public static func read(
        _ property: PropertyDescription, in body: JSONObject, documentID: String?, entity: String
    ) throws -> AttributeValue? {
        let fail = { (problem: SchemaViolation.Problem) -> CloudantError in
            SchemaViolation(documentID: documentID, entity: entity, property: property.name, problem: problem).error
        }
        guard let value = body[property.name], value != .null else { return nil }
        let meta = body[IncrementalStore.metaKey(property.name)]
        if let meta, meta != .null, meta.objectValue == nil {
            throw fail(.malformedMetadata(IncrementalStore.metaKey(property.name)))
        }
        let info = meta?.objectValue ?? JSONObject()
        switch property.type {
        case .utf8:
            guard case .string(let text) = value else { throw fail(.wrongType(expected: "a string")) }
            return .utf8(text)
        case .id:
            guard case .string(let text) = value else { throw fail(.wrongType(expected: "a string")) }
            return .objectID(text)
        case .bool:
            switch value {
            case .bool(let flag): return .bool(flag)
            case .number(let number): return .bool(number.doubleValue != 0)
            default: throw fail(.wrongType(expected: "a number"))
            }
        case .date1970:
            guard case .number(let number) = value else { throw fail(.wrongType(expected: "a number")) }
            return .date(Date(timeIntervalSince1970: number.doubleValue))
        case .int16, .int32, .int64:
            guard case .number(let number) = value else { throw fail(.wrongType(expected: "an integer")) }
            guard let integer = number.int64Value else { throw fail(.outOfRange) }
            switch property.type {
            case .int16:
                guard let narrow = Int16(exactly: integer) else { throw fail(.outOfRange) }
                return .int16(narrow)
            case .int32:
                guard let narrow = Int32(exactly: integer) else { throw fail(.outOfRange) }
                return .int32(narrow)
            default: return .int64(integer)
            }
        case .double:
            if let image = info["ieee754_double"] {
                guard let bits = image.numberValue.flatMap(bitPattern64) else {
                    throw fail(.malformedMetadata(IncrementalStore.metaKey(property.name) + ".ieee754_double"))
                }
                return .double(Double(bitPattern: bits))
            }
            return .double(try plainDouble(value, info: info, fail: fail))
        case .float:
            if let image = info["ieee754_single"] {
                guard let bits = image.numberValue.flatMap(bitPattern32) else {
                    throw fail(.malformedMetadata(IncrementalStore.metaKey(property.name) + ".ieee754_single"))
                }
                return .float(Float(bitPattern: bits))
            }
            return .float(Float(try plainDouble(value, info: info, fail: fail)))
        case .decimal:
            if let image = info["nsdecimal"] {
                guard let text = image.stringValue, let data = Data(base64Encoded: text),
                    let decimal = DecimalImage.decimal(from: Array(data))
                else { throw fail(.malformedDecimal) }
                return .decimal(decimal)
            }
            if nonFinite(info) == "nan" { return .decimal(.nan) }
            switch value {
            case .string(let text):
                guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                    throw fail(.malformedDecimal)
                }
                return .decimal(decimal)
            case .number(let number):
                return .decimal(Decimal(number.doubleValue))
            default: throw fail(.wrongType(expected: "a decimal string"))
            }
        case .binary, .xform:
            guard case .string(let text) = value else { throw fail(.wrongType(expected: "base64 text")) }
            let mimeType = info["mime-type"]?.stringValue ?? property.effectiveMIMEType
            let data: Data
            if let attachment = body["_attachments"]?[text] {
                guard let encoded = attachment["data"]?.stringValue, let bytes = Data(base64Encoded: encoded) else {
                    throw fail(.attachmentNotLoaded)
                }
                data = bytes
            } else {
                guard let bytes = Data(base64Encoded: text) else { throw fail(.malformedBase64) }
                data = bytes
            }
            if property.type == .binary { return .binary(data, mimeType: mimeType) }
            return .transformable(
                TransformableValue(data: data, mimeType: mimeType, transformer: info["xform"]?.stringValue ?? property.transformer))
        case .relationToOne, .relationToMany:
            throw fail(.wrongType(expected: "an attribute"))
        }
    }

    // MARK: Relationships

    /// Writes a to-one relationship: the destination's document id, or `""` for none (as the bridge wrote).
    public static func writeToOne(_ id: String?, for property: PropertyDescription, into body: inout JSONObject) {
        body[property.name] = .string(id ?? "")
    }

    /// Reads a to-one relationship; `nil` for `""`, `null` or an absent member.
    /// - Throws: `CloudantError.Code.schemaViolation` when the member is not a string.
    public static func readToOne(
        _ property: PropertyDescription, in body: JSONObject, documentID: String?, entity: String
    ) throws -> String? {
        switch body[property.name] {
        case nil, .null: return nil
        case .string(let id): return id.isEmpty ? nil : id
        default:
            throw SchemaViolation(
                documentID: documentID, entity: entity, property: property.name, problem: .wrongType(expected: "a document id")
            ).error
        }
    }

    /// Writes a to-many relationship: an array of document ids.
    public static func writeToMany(_ ids: [String], for property: PropertyDescription, into body: inout JSONObject) {
        body[property.name] = .array(ids.map(JSONValue.string))
    }

    /// Reads a to-many relationship; `[]` for `null` or an absent member.
    /// - Throws: `CloudantError.Code.schemaViolation` when the member is not an array of strings.
    public static func readToMany(
        _ property: PropertyDescription, in body: JSONObject, documentID: String?, entity: String
    ) throws -> [String] {
        switch body[property.name] {
        case nil, .null: return []
        case .array(let items):
            var ids: [String] = []
            ids.reserveCapacity(items.count)
            for item in items {
                guard case .string(let id) = item, !id.isEmpty else {
                    throw SchemaViolation(
                        documentID: documentID, entity: entity, property: property.name,
                        problem: .wrongType(expected: "an array of document ids")
                    ).error
                }
                ids.append(id)
            }
            return ids
        default:
            throw SchemaViolation(
                documentID: documentID, entity: entity, property: property.name,
                problem: .wrongType(expected: "an array of document ids")
            ).error
        }
    }

    // MARK: Images

    /// The 64-bit image as JSON: an integer, beyond `Int64.max` as its exact digits.
    static func unsignedImage(_ bits: UInt64) -> JSONValue {
        bits <= UInt64(Int64.max) ? .number(.integer(Int64(bits))) : .number(.bigInteger(String(bits)))
    }

    /// An image read back: unsigned as the schema says, or signed as the bridge's code wrote it.
    static func bitPattern64(_ number: JSONNumber) -> UInt64? {
        switch number {
        case .integer(let value): UInt64(bitPattern: value)
        case .bigInteger(let digits): UInt64(digits)
        case .double(let value): UInt64(exactly: value) ?? Int64(exactly: value).map { UInt64(bitPattern: $0) }
        }
    }

    static func bitPattern32(_ number: JSONNumber) -> UInt32? {
        guard let value = number.int64Value else { return nil }
        if let unsigned = UInt32(exactly: value) { return unsigned }
        return Int32(exactly: value).map { UInt32(bitPattern: $0) }
    }

    static func finiteStandIn(_ value: Double, greatest: Double, marker info: inout JSONObject) -> JSONNumber {
        if value.isNaN {
            info["nonFinite"] = "nan"
            return .integer(0)
        }
        if value.isInfinite {
            info["nonFinite"] = value < 0 ? "-infinity" : "infinity"
            return .double(value < 0 ? -greatest : greatest)
        }
        return JSONNumber(value)
    }

    static func nonFinite(_ info: JSONObject) -> String? {
        if let marker = info["nonFinite"]?.stringValue { return marker }
        // The bridge's first code wrote `{"infinity": "true"}` and the like.
        for marker in ["infinity", "-infinity", "nan"] where info[marker] != nil { return marker }
        return nil
    }

    static func plainDouble(
        _ value: JSONValue, info: JSONObject, fail: (SchemaViolation.Problem) -> CloudantError
    ) throws -> Double {
        switch nonFinite(info) {
        case "infinity": return .infinity
        case "-infinity": return -.infinity
        case "nan": return .nan
        default: break
        }
        switch value {
        case .number(let number): return number.doubleValue
        case .string(let text):
            guard let double = Double(text) else { throw fail(.wrongType(expected: "a number")) }
            return double
        default: throw fail(.wrongType(expected: "a number"))
        }
    }
}
