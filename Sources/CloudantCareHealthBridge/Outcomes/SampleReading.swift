internal import Foundation

/// What outcome computation needs of one stored quantity sample: its uuid, interval and value, already in the
/// linkage's unit. Read straight from the projected documents, so a million samples never go through
/// `Codable`.
struct SampleReading: Hashable, Sendable {
    var uuid: String
    var start: Date
    var end: Date
    var value: Double

    var duration: TimeInterval { end.timeIntervalSince(start) }
}
