/// The app or device that wrote a sample (`HKSourceRevision`), kept apart per sample so users can aggregate
/// overlapping sources by their own priority instead of the store merging them.
public struct HealthSource: Codable, Hashable, Sendable {
    /// The source's display name (`"Jane’s Apple Watch"`).
    public var name: String
    /// The app's bundle identifier, when known.
    public var bundleIdentifier: String?
    /// The source's version (`"10.4"`).
    public var version: String?

    /// Creates a source.
    public init(name: String, bundleIdentifier: String? = nil, version: String? = nil) {
        self.name = name
        self.bundleIdentifier = bundleIdentifier
        self.version = version
    }
}

/// The hardware that measured a sample (`HKDevice`).
public struct HealthDevice: Codable, Hashable, Sendable {
    /// The device's name (`"Apple Watch"`).
    public var name: String?
    /// Its manufacturer.
    public var manufacturer: String?
    /// Its model.
    public var model: String?
    /// Its hardware version (`"Watch6,2"`).
    public var hardwareVersion: String?
    /// Its software version.
    public var softwareVersion: String?

    /// Creates a device description.
    public init(
        name: String? = nil, manufacturer: String? = nil, model: String? = nil, hardwareVersion: String? = nil,
        softwareVersion: String? = nil
    ) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.softwareVersion = softwareVersion
    }
}
