/// A schema version such as `2.1.0`, written as CareKit writes `OCKSemanticVersion`:
/// `{"majorVersion":2,"minorVersion":1,"patchNumber":0}`.
///
/// ```swift
/// let version = SemanticVersion("2.1")   // 2.1.0
/// version < SemanticVersion(majorVersion: 3) // true
/// ```
public struct SemanticVersion: Codable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The major version.
    public var majorVersion: Int
    /// The minor version.
    public var minorVersion: Int
    /// The patch number.
    public var patchNumber: Int

    /// Creates a version from its parts.
    public init(majorVersion: Int, minorVersion: Int = 0, patchNumber: Int = 0) {
        self.majorVersion = majorVersion
        self.minorVersion = minorVersion
        self.patchNumber = patchNumber
    }

    /// Parses `"a.b.c"`; minor and patch may be left out. `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard let number = Int(part), number >= 0 else { return nil }
            numbers.append(number)
        }
        numbers += Array(repeating: 0, count: 3 - numbers.count)
        self.init(majorVersion: numbers[0], minorVersion: numbers[1], patchNumber: numbers[2])
    }

    /// The schema version the store stamps on care entities, as CareKit's Core Data store does.
    public static let careStore = SemanticVersion(majorVersion: 2, minorVersion: 1, patchNumber: 0)

    /// `"major.minor.patch"`.
    public var description: String { "\(majorVersion).\(minorVersion).\(patchNumber)" }

    /// Orders by major, then minor, then patch.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.majorVersion, lhs.minorVersion, lhs.patchNumber) < (rhs.majorVersion, rhs.minorVersion, rhs.patchNumber)
    }
}
