internal import CloudantCore
internal import Foundation

/// Reads an Apple Watch electrocardiogram as the Health app exports it (`electrocardiograms/ecg_2024-06-01.csv`,
/// iOS 14+): a header of `Name,value` lines, a blank line, then one voltage per line. The header's values may
/// be quoted (`Device,"Watch6,7"`), and voltages use the device's decimal separator (`-265,868` in Portuguese).
///
/// ```text
/// Name,Jane Appleseed
/// Recorded Date,2024-06-01 09:30:12 -0700
/// Classification,Sinus Rhythm
/// Software Version,1.90
/// Device,"Watch6,7"
/// Sample Rate,512 hertz
///
/// Lead,Lead I
/// Unit,µV
///
/// -12.285
/// ```
///
/// It becomes a ``GenericSample`` of type ``typeIdentifier`` whose value is the voltages, in the file's unit,
/// with every header line typed in ``GenericSampleValues/attributes``.
enum ElectrocardiogramReader {
    /// HealthKit's identifier of electrocardiograms (`HKElectrocardiogramType`).
    static let typeIdentifier = "HKDataTypeIdentifierElectrocardiogram"
    /// ECG files are about 100 KB (30 s at 512 Hz); anything this large is not one.
    static let maximumFileBytes = 16 << 20

    static func sample(_ data: Data, file: String) throws(ImportSkip) -> GenericSample {
        guard data.count <= maximumFileBytes else { throw ImportSkip("an electrocardiogram file over 16 MB", subject: file) }
        let text = String(decoding: data, as: UTF8.self)
        var header: [String: JSONValue] = [:]
        var order: [String] = []
        var voltages: [JSONValue] = []
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if let voltage = Self.voltage(line), !header.isEmpty {
                voltages.append(.number(JSONNumber(voltage)))
                continue
            }
            guard voltages.isEmpty, let comma = line.firstIndex(of: ",") else {
                if voltages.isEmpty, !line.contains(",") { header[line] = .null; order.append(line) }
                continue
            }
            let key = String(line[..<comma]).trimmingCharacters(in: .whitespaces)
            var value = String(line[line.index(after: comma)...]).trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
            }
            header[key] = value.isEmpty ? .null : MetadataTyping.typed(value)
            order.append(key)
        }
        guard let recordedText = header["Recorded Date"]?.stringValue, let recorded = LocalTimestamp(parsing: recordedText)
            ?? LocalTimestamp(parsing: Self.exportSpelling(recordedText))
        else { throw ImportSkip("a CSV file that is not an electrocardiogram export (no Recorded Date)", subject: file) }
        guard !voltages.isEmpty else { throw ImportSkip("an electrocardiogram without voltages", subject: file) }
        let rate = header["Sample Rate"].flatMap(Self.hertz)
        if let rate { header["Sample Rate"] = .object(JSONObject([("unit", .string("Hz")), ("value", .number(JSONNumber(rate)))])) }
        let duration = rate.map { Double(voltages.count) / $0 } ?? 0
        let hardware = header["Device"]?.stringValue
        let uuid = ImportKey.uuid(
            ["Electrocardiogram", ImportKey.instant(recorded.date), hardware ?? ""], startingAt: recorded.date)
        return GenericSample(
            uuid: uuid, typeIdentifier: typeIdentifier, element: "Electrocardiogram", value: .array(voltages),
            unit: header["Unit"]?.stringValue, attributes: header, reason: "electrocardiograms are kept as they are exported",
            startDate: recorded.date, endDate: recorded.date.addingTimeInterval(duration), startUTCOffset: recorded.utcOffset,
            device: hardware.map { HealthDevice(hardwareVersion: $0, softwareVersion: header["Software Version"]?.stringValue) },
            metadata: ["file": .string(file)])
    }

    /// A voltage line: a decimal number, with a comma as the decimal separator in some locales.
    private static func voltage(_ line: String) -> Double? {
        let normalized = line.filter { $0 != "," }.count == line.count - 1 ? line.replacingOccurrences(of: ",", with: ".") : line
        guard let first = normalized.utf8.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return nil }
        return Double(normalized).flatMap { $0.isFinite ? $0 : nil }
    }

    /// `512 hertz` (or a number alone) in hertz.
    private static func hertz(_ value: JSONValue) -> Double? {
        if let number = value.numberValue?.doubleValue { return number }
        guard let text = value.stringValue, let number = Double(text.split(separator: " ").first ?? "") else { return nil }
        return number
    }

    /// `2024-06-01T09:30:12-07:00`-like spellings some locales write, in the export's spelling.
    private static func exportSpelling(_ text: String) -> String { text.replacingOccurrences(of: "T", with: " ") }
}
