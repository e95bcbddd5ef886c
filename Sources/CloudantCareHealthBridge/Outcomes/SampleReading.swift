internal import Foundation

/// What outcome computation needs of one stored quantity sample: its uuid, interval and value, already in the
/// linkage's unit. Read straight from the projected documents, so a million samples never go through
/// `Codable`.
struct SampleReading: Hashable, Sendable {
    var uuid: String
    var start: Date
    var end: Date
    var value: Double
    /// Where the source counts when sources overlap: lower first (watch, then phone, then apps; then by name).
    var sourceRank: SourceRank = SourceRank(kind: 0, name: "")

    /// A source's place in the health module's default priority (`HealthSourcePriority`).
    struct SourceRank: Hashable, Comparable, Sendable {
        var kind: Int
        var name: String

        static func < (lhs: SourceRank, rhs: SourceRank) -> Bool { (lhs.kind, lhs.name) < (rhs.kind, rhs.name) }
    }

    var duration: TimeInterval { end.timeIntervalSince(start) }
}
