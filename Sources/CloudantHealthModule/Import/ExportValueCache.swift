internal import CloudantCore

/// Values thousands of elements of one export share, parsed once per import: Apple writes the same device
/// description, and the same few units, on every record from a device, and parsing the device text for each
/// record measured as a tenth of the import's time.
///
/// Used by one import on one task. It holds at most ``limit`` entries of each kind (then starts over), so
/// an export with a different device on every record costs time, never unbounded memory.
final class ExportValueCache {
    static let limit = 4096
    private var devices: [String: HealthDevice] = [:]
    private var units: [String: Bool] = [:]
    private var typedValues: [String: JSONValue] = [:]

    /// A metadata text, typed (``MetadataTyping/typed(_:)``): the same few values (`0`, a time zone's name)
    /// recur on thousands of records.
    func typed(_ text: String) -> JSONValue {
        if let known = typedValues[text] { return known }
        if typedValues.count >= Self.limit { typedValues.removeAll(keepingCapacity: true) }
        let value = MetadataTyping.typed(text)
        typedValues[text] = value
        return value
    }

    /// The parsed device description (see ``ExportAttributes/device``).
    func device(_ text: String, parse: (String) -> HealthDevice) -> HealthDevice {
        if let known = devices[text] { return known }
        if devices.count >= Self.limit { devices.removeAll(keepingCapacity: true) }
        let device = parse(text)
        devices[text] = device
        return device
    }

    /// Whether `text` is a unit HealthKit writes (one `HealthUnit` parse per distinct spelling).
    func isUnit(_ text: String) -> Bool {
        if let known = units[text] { return known }
        if units.count >= Self.limit { units.removeAll(keepingCapacity: true) }
        let valid = (try? HealthUnit(parsing: text)) != nil
        units[text] = valid
        return valid
    }
}
