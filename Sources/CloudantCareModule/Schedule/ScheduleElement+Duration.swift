internal import Foundation

extension ScheduleElement {
    /// How long each event of an element lasts: the whole day, or a number of seconds.
    ///
    /// JSON as CareKit writes it: `{"isAllDay":true}` or `{"isAllDay":false,"seconds":3600}`.
    public enum Duration: Codable, Hashable, Sendable {
        /// From the start of the event's day to one second before the next day starts.
        case allDay
        /// A fixed length in seconds.
        case seconds(Double)

        /// A fixed length in hours.
        public static func hours(_ hours: Double) -> Duration { .seconds(hours * 3600) }
        /// A fixed length in minutes.
        public static func minutes(_ minutes: Double) -> Duration { .seconds(minutes * 60) }

        enum CodingKeys: String, CodingKey {
            case isAllDay, seconds
        }

        /// Reads `{"isAllDay": Bool, "seconds"?: Double}`.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if try container.decodeIfPresent(Bool.self, forKey: .isAllDay) == true {
                self = .allDay
            } else if let seconds = try container.decodeIfPresent(Double.self, forKey: .seconds) {
                self = .seconds(seconds)
            } else {
                throw DecodingError.dataCorruptedError(
                    forKey: .seconds, in: container, debugDescription: "A duration needs isAllDay true or seconds.")
            }
        }

        /// Writes `{"isAllDay": Bool, "seconds"?: Double}`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .allDay:
                try container.encode(true, forKey: .isAllDay)
            case .seconds(let seconds):
                try container.encode(false, forKey: .isAllDay)
                try container.encode(seconds, forKey: .seconds)
            }
        }
    }
}
