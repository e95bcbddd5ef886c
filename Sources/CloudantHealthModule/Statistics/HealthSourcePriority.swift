/// The order in which sources count when several recorded the same thing (an iPhone and an Apple Watch both
/// counting steps), as the Health app's "Data Sources & Access" list orders them: where a higher source has
/// data, a lower one's overlapping data is not added again.
///
/// ```swift
/// let priority = HealthSourcePriority()                                   // watch, then phone, then apps
/// let mine = HealthSourcePriority(["Jane’s iPhone", "Jane’s Apple Watch"])  // named sources first, in order
/// ```
///
/// Sources named in ``preferredSources`` come first, in that order. The rest follow by kind, as the Health
/// app orders a new user's sources: Apple Watches, then iPhones, then apps and other devices
/// (``SourceKind``), and by name within a kind so the order never depends on the data's order.
public struct HealthSourcePriority: Hashable, Sendable {
    /// What kind of source recorded a sample, from its device and name.
    public enum SourceKind: Int, Comparable, Sendable, CaseIterable {
        /// An Apple Watch (device model `Watch`, hardware `Watch…`, or a name with "Watch").
        case watch
        /// An iPhone (device model `iPhone`, hardware `iPhone…`, or a name with "iPhone").
        case phone
        /// An app or another device (a scale, a food diary).
        case app

        /// Whether `lhs` counts before `rhs`.
        public static func < (lhs: SourceKind, rhs: SourceKind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Source names that count first, highest first.
    public var preferredSources: [String]

    /// Creates a priority: `preferredSources` first, in order, then watches, phones and apps.
    public init(_ preferredSources: [String] = []) {
        self.preferredSources = preferredSources
    }

    /// The default: watches, then phones, then apps.
    public static let `default` = HealthSourcePriority()

    /// The kind of the source that wrote a sample.
    public static func kind(of source: HealthSource?, device: HealthDevice?) -> SourceKind {
        let model = device?.model ?? ""
        let hardware = device?.hardwareVersion ?? ""
        let name = (source?.name ?? "") + " " + (device?.name ?? "")
        if model == "Watch" || hardware.hasPrefix("Watch") || name.contains("Watch") { return .watch }
        if model == "iPhone" || hardware.hasPrefix("iPhone") || name.contains("iPhone") { return .phone }
        return .app
    }

    /// A sortable rank: lower counts first.
    func rank(of source: HealthSource?, device: HealthDevice?) -> Rank {
        let name = source?.name ?? ""
        return Rank(
            preferred: preferredSources.firstIndex(of: name) ?? preferredSources.count,
            kind: Self.kind(of: source, device: device), name: name)
    }

    /// Where a source stands: named sources first, then by kind, then by name.
    struct Rank: Comparable, Hashable {
        var preferred: Int
        var kind: SourceKind
        var name: String

        static func < (lhs: Rank, rhs: Rank) -> Bool {
            (lhs.preferred, lhs.kind.rawValue, lhs.name) < (rhs.preferred, rhs.kind.rawValue, rhs.name)
        }
    }
}
