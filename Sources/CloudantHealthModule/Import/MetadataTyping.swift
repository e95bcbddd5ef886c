internal import CloudantCore
internal import Foundation

/// Types the text Apple Health exports write for every attribute and metadata value (see
/// `GenericSample.typedValue(_:)`), so stored metadata keeps numbers as numbers and quantities as
/// quantities rather than strings.
enum MetadataTyping {
    static func typed(_ text: String) -> JSONValue {
        if let number = number(text) { return .number(number) }
        if let space = text.firstIndex(of: " "), let number = number(String(text[..<space])) {
            let unit = String(text[text.index(after: space)...])
            if !unit.isEmpty, !unit.contains(" "), (try? HealthUnit(parsing: unit)) != nil {
                return .object(JSONObject([("unit", .string(unit)), ("value", .number(number))]))
            }
        }
        if text.utf8.count >= 19, let time = LocalTimestamp(parsing: text), let iso = time.iso8601 { return .string(iso) }
        return .string(text)
    }

    /// A JSON number when `text` is one as written (`-12`, `0.5`, `3.2e4`): not with leading zeros (`007`, an
    /// identifier) nor a trailing zero after the point (`1.90`, a version).
    static func number(_ text: String) -> JSONNumber? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return nil }
        var index = first == UInt8(ascii: "-") ? 1 : 0
        let digitsStart = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        let integerDigits = index - digitsStart
        guard integerDigits > 0, !(integerDigits > 1 && bytes[digitsStart] == UInt8(ascii: "0")) else { return nil }
        if index == bytes.count {
            return Int64(text).map(JSONNumber.init) ?? Double(text).map(JSONNumber.init)
        }
        guard bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E"),
            let value = Double(text), value.isFinite
        else { return nil }
        // `1.90` and `10.10` are versions, not numbers: a number's digits do not end in a zero after the point.
        if bytes[index] == UInt8(ascii: "."), !bytes.contains(UInt8(ascii: "e")), !bytes.contains(UInt8(ascii: "E")),
            bytes.last == UInt8(ascii: "0")
        {
            return nil
        }
        return JSONNumber(value)
    }
}
