internal import CloudantBase
public import Foundation

/// A point in time as a record wrote it, with the UTC offset it was written in: the three spellings found in
/// Apple Health exports and GPX files.
///
/// - `2023-06-06 13:31:09 -0700` (export.xml since iOS 9)
/// - `20140104084300-0800` (iOS 8 exports)
/// - `2023-11-17T15:14:18Z`, `2023-11-17T15:14:18.250+05:30` (ISO 8601, GPX)
///
/// ```swift
/// let time = LocalTimestamp(parsing: "2023-06-06 13:31:09 -0700")
/// time?.utcOffset   // -25200
/// ```
///
/// Hand-written rather than `DateFormatter`, because the importer reads millions of them.
public struct LocalTimestamp: Hashable, Sendable {
    /// The instant.
    public var date: Date
    /// The offset east of UTC in seconds the text was written in.
    public var utcOffset: Int

    /// Creates a timestamp.
    public init(date: Date, utcOffset: Int) {
        self.date = date
        self.utcOffset = utcOffset
    }

    /// Parses one of the supported spellings; `nil` when the text is none of them or a field is out of range.
    public init?(parsing text: String) {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(4) else { return nil }
        let compact = scanner.peek != UInt8(ascii: "-")
        if !compact { scanner.skip() }
        guard let month = scanner.number(2) else { return nil }
        if !compact { guard scanner.expect("-") else { return nil } }
        guard let day = scanner.number(2) else { return nil }
        if !compact { guard scanner.expect(" ") || scanner.expect("T") else { return nil } }
        guard let hour = scanner.number(2) else { return nil }
        if !compact { guard scanner.expect(":") else { return nil } }
        guard let minute = scanner.number(2) else { return nil }
        if !compact { guard scanner.expect(":") else { return nil } }
        guard let second = scanner.number(2) else { return nil }
        var fraction = 0.0
        if scanner.expect(".") {
            var scale = 0.1
            while let digit = scanner.digit() { fraction += Double(digit) * scale; scale /= 10 }
        }
        _ = scanner.expect(" ")
        var offset = 0
        if scanner.expect("Z") {
            offset = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(2) else { return nil }
            _ = scanner.expect(":")
            guard let minutes = scanner.number(2), hours <= 14, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard scanner.atEnd, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = GregorianDays.daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
        self.init(date: Date(timeIntervalSince1970: Double(seconds) + fraction), utcOffset: offset)
    }

    /// The local wall-clock fields (year, month, day, hour, minute, second) and the fraction of a second.
    var localFields: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fraction: Double)? {
        let shifted = date.timeIntervalSince1970 + Double(utcOffset)
        guard shifted.isFinite, abs(shifted) < 253_402_300_800 else { return nil }  // years 0…9999
        let whole = shifted.rounded(.down)
        let fraction = shifted - whole
        let seconds = Int(whole)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let civil = GregorianDays.civil(daysSince1970: days)
        let time = seconds - days * 86_400
        return (civil.year, civil.month, civil.day, time / 3600, time / 60 % 60, time % 60, fraction)
    }

    /// The time as ISO 8601 in the offset it was written in: `2023-06-06T13:31:09-07:00`, with milliseconds
    /// when the time has a fraction; `nil` outside the years 0…9999.
    public var iso8601: String? {
        guard let fields = localFields, fields.year >= 0 else { return nil }
        var text = "\(Self.pad(fields.year, 4))-\(Self.pad(fields.month, 2))-\(Self.pad(fields.day, 2))T"
            + "\(Self.pad(fields.hour, 2)):\(Self.pad(fields.minute, 2)):\(Self.pad(fields.second, 2))"
        let milliseconds = Int((fields.fraction * 1000).rounded())
        if milliseconds > 0 { text += "." + Self.pad(min(milliseconds, 999), 3) }
        return text + offsetText(separator: ":")
    }

    /// The time as `export.xml` writes it: `2023-06-06 13:31:09 -0700`; `nil` outside the years 0…9999.
    public var exportText: String? {
        guard let fields = localFields, fields.year >= 0 else { return nil }
        return "\(Self.pad(fields.year, 4))-\(Self.pad(fields.month, 2))-\(Self.pad(fields.day, 2)) "
            + "\(Self.pad(fields.hour, 2)):\(Self.pad(fields.minute, 2)):\(Self.pad(fields.second, 2)) "
            + offsetText(separator: "")
    }

    private func offsetText(separator: String) -> String {
        let minutes = abs(utcOffset) / 60
        return (utcOffset < 0 ? "-" : "+") + Self.pad(minutes / 60, 2) + separator + Self.pad(minutes % 60, 2)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// Reads ASCII digits and separators from UTF-8 bytes.
private struct DigitScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
    var atEnd: Bool { index == bytes.count }

    mutating func skip() { index += 1 }

    mutating func digit() -> Int? {
        guard let byte = peek, byte >= 48, byte <= 57 else { return nil }
        index += 1
        return Int(byte - 48)
    }

    mutating func number(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func expect(_ character: Unicode.Scalar) -> Bool {
        guard peek == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if expect("+") { return 1 }
        if expect("-") { return -1 }
        return nil
    }
}
