internal import CloudantBase

/// Reads an HL7 v3 `TS` value from its UTF-8 bytes with integer arithmetic, with no `Calendar`, `TimeZone`
/// or `Decimal`: a CDA document holds two timestamps per entry, and Foundation's calendar made them the
/// most expensive part of extraction (the CDA benchmark's profile).
///
/// Dates are proleptic Gregorian from year 1, as ISO 8601 (on which HL7 `TS` is built) reads them;
/// Foundation's Gregorian calendar switches to the Julian calendar before 15 October 1582, which no
/// clinical timestamp needs. Hours run 00–23 and seconds 00–59, as `Calendar` validated them.
enum HL7TimestampParser {
    /// What the text says: precision, offset and the instant as whole seconds since 1970 plus a fraction.
    struct Parsed {
        var precision: HL7Timestamp.Precision
        var utcOffset: Int?
        var secondsSince1970: Int
        var fraction: Double
    }

    /// Parses `bytes` (already trimmed), or returns why they are not a timestamp.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Parsed, Failure> {
        var end = bytes.count
        var offset: Int?
        if let sign = bytes.firstIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }) {
            guard end - sign == 5, let hours = number(bytes, sign + 1, 2), let minutes = number(bytes, sign + 3, 2),
                hours <= 14, minutes < 60
            else { return .failure(.offset) }
            offset = (bytes[sign] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
            end = sign
        }
        var fraction = 0.0
        var hasFraction = false
        if let dot = bytes[..<end].firstIndex(of: UInt8(ascii: ".")) {
            guard dot + 1 < end, let value = fractionValue(bytes, from: dot + 1, to: end) else {
                return .failure(.fraction)
            }
            fraction = value
            hasFraction = true
            end = dot
        }
        guard end >= 4, end <= 14, end % 2 == 0, number(bytes, 0, end) != nil else { return .failure(.digits) }
        guard !hasFraction || end == 14 else { return .failure(.fractionWithoutSeconds) }
        func field(_ start: Int, default value: Int) -> Int { start + 2 <= end ? number(bytes, start, 2) ?? value : value }
        let year = number(bytes, 0, 4) ?? 0
        let month = field(4, default: 1)
        let day = field(6, default: 1)
        let hour = field(8, default: 0)
        let minute = field(10, default: 0)
        let second = field(12, default: 0)
        guard year >= 1, (1...12).contains(month), day >= 1, day <= GregorianDays.daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return .failure(.range) }
        let days = GregorianDays.daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - (offset ?? 0)
        let precision = hasFraction ? .fraction : precisions[end / 2 - 2]
        return .success(Parsed(precision: precision, utcOffset: offset, secondsSince1970: seconds, fraction: fraction))
    }

    /// The precision of 4, 6, 8, 10, 12 and 14 digits.
    private static let precisions: [HL7Timestamp.Precision] = [.year, .month, .day, .hour, .minute, .second]

    /// Why a text is not a timestamp; the messages finish "'…' is not an HL7 TS timestamp: ".
    enum Failure: Error {
        case offset, fraction, digits, fractionWithoutSeconds, range

        var reason: String {
            switch self {
            case .offset: "the offset must be ±HHMM"
            case .fraction: "the fraction of a second must be digits"
            case .digits: "expected 4, 6, 8, 10, 12 or 14 digits before any fraction or offset"
            case .fractionWithoutSeconds: "a fraction needs whole seconds before it"
            case .range: "a month, day, hour, minute or second is out of range"
            }
        }
    }

    /// The decimal number written by `count` ASCII digits from `start`, or `nil` if one is not a digit.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<start + count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// `0.ddd…` for the digits in `start..<end`: exact division while the digits fit a double's 15 exact
    /// decimal digits (correctly rounded), the standard library's decimal reading beyond that.
    private static func fractionValue(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Double? {
        let count = end - start
        guard count <= 15 else {
            guard bytes[start..<end].allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return nil }
            return Double("0." + String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
        }
        guard let digits = number(bytes, start, count) else { return nil }
        var scale = 1.0
        for _ in 0..<count { scale *= 10 }
        return Double(digits) / scale
    }
}
