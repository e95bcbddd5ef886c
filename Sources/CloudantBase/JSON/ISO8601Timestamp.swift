public import Foundation

/// ISO 8601 / RFC 3339 timestamps with millisecond precision, without `DateFormatter`.
///
/// Why our own: the original store wrote whole seconds and so lost sub-second precision; Foundation's
/// ISO 8601 formatters are either not `Sendable` or truncate instead of rounding, and all of them are slow
/// next to arithmetic. Writing milliseconds exactly matches JavaScript's `Date.prototype.toISOString()`,
/// which every CouchDB and PouchDB peer reads. Public so that modules writing documents by hand (the
/// Health importer) write dates exactly as the entity coding does.
public enum ISO8601Timestamp {
    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC, rounded to the nearest millisecond; years outside
    /// 0…9999 use JavaScript's six-digit signed form (`+010000-01-01T00:00:00.000Z`). `nil` for dates beyond
    /// ±999999 years or not finite.
    public static func string(from date: Date) -> String? {
        string(from: date, fractionalSeconds: true)
    }

    /// ``string(from:)``, or with `fractionalSeconds: false` whole seconds (`YYYY-MM-DDTHH:MM:SSZ`, the second
    /// the date falls in), as CouchDB writes its replication times (`couch_util:iso8601_timestamp/0`).
    public static func string(from date: Date, fractionalSeconds: Bool) -> String? {
        let milliseconds = fractionalSeconds
            ? (date.timeIntervalSince1970 * 1000).rounded() : (date.timeIntervalSince1970.rounded(.down) * 1000)
        // ±999999 years is about ±3.2e16 ms; anything past that (or NaN) has no ISO 8601 text.
        guard milliseconds.magnitude < 3.0e16 else { return nil }
        let total = Int64(milliseconds)
        let (days, millisecondOfDay) = floorDivision(total, by: 86_400_000)
        let civil = GregorianDays.civil(daysSince1970: Int(days))
        let (year, month, day) = (Int64(civil.year), Int64(civil.month), Int64(civil.day))
        guard (-999_999...999_999).contains(year) else { return nil }

        var text: [UInt8] = []
        text.reserveCapacity(27)
        func append(_ value: Int64, digits: Int) {
            var divisor: Int64 = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        if (0...9999).contains(year) {
            append(year, digits: 4)
        } else {
            text.append(year < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            append(abs(year), digits: 6)
        }
        text.append(UInt8(ascii: "-"))
        append(month, digits: 2)
        text.append(UInt8(ascii: "-"))
        append(day, digits: 2)
        text.append(UInt8(ascii: "T"))
        append(millisecondOfDay / 3_600_000, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(millisecondOfDay / 60_000 % 60, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(millisecondOfDay / 1000 % 60, digits: 2)
        if fractionalSeconds {
            text.append(UInt8(ascii: "."))
            append(millisecondOfDay % 1000, digits: 3)
        }
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, optional fraction of any length (digits past the
    /// ninth are ignored), then `Z` or an offset `±HH:MM`. Also accepts JavaScript's six-digit signed years
    /// and lowercase `t`/`z`. `nil` when the text is anything else or names an impossible date.
    public static func date(from text: String) -> Date? {
        var bytes = Array(text.utf8)
        bytes.append(0)  // A terminator, so reads past the end see a non-digit instead of trapping.
        var index = 0

        func number(digits: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0..<digits {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
                index += 1
            }
            return value
        }
        func expect(_ characters: UInt8...) -> Bool {
            guard characters.contains(bytes[index]) else { return false }
            index += 1
            return true
        }

        let year: Int64
        if bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-") {
            let negative = bytes[0] == UInt8(ascii: "-")
            index = 1
            guard let magnitude = number(digits: 6) else { return nil }
            year = negative ? -magnitude : magnitude
        } else {
            guard let fourDigits = number(digits: 4) else { return nil }
            year = fourDigits
        }
        guard expect(UInt8(ascii: "-")), let month = number(digits: 2), (1...12).contains(month),
            expect(UInt8(ascii: "-")), let day = number(digits: 2), (1...Int64(GregorianDays.daysIn(month: Int(month), year: Int(year)))).contains(day),
            expect(UInt8(ascii: "T"), UInt8(ascii: "t")),
            let hour = number(digits: 2), hour < 24, expect(UInt8(ascii: ":")),
            let minute = number(digits: 2), minute < 60, expect(UInt8(ascii: ":")),
            let second = number(digits: 2), second < 60
        else { return nil }

        var fraction: Int64 = 0
        var fractionDigits = 0
        if expect(UInt8(ascii: ".")) {
            let start = index
            while bytes[index] &- UInt8(ascii: "0") < 10 {
                if fractionDigits < 9 {
                    fraction = fraction * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                    fractionDigits += 1
                }
                index += 1
            }
            guard index > start else { return nil }
        }

        var offsetSeconds: Int64 = 0
        if !expect(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") else { return nil }
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(digits: 2), offsetHours < 24 else { return nil }
            _ = expect(UInt8(ascii: ":"))
            guard let offsetMinutes = number(digits: 2), offsetMinutes < 60 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard index == bytes.count - 1 else { return nil }

        let days = Int64(GregorianDays.daysSince1970(year: Int(year), month: Int(month), day: Int(day)))
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        guard fractionDigits > 0 else { return Date(timeIntervalSince1970: Double(seconds)) }
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        // When the whole count of fraction units is an exact double, one division rounds correctly, so text
        // written from a millisecond-exact date reads back as the identical `Date`.
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: scale)
        if !overflow, (scaled + fraction).magnitude <= 1 << 53 {
            return Date(timeIntervalSince1970: Double(scaled + fraction) / Double(scale))
        }
        return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / Double(scale))
    }

    private static func floorDivision(_ value: Int64, by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
        return (quotient, value - quotient * divisor)
    }
}
