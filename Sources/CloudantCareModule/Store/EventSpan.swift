internal import CloudantCore
internal import Foundation

/// Length classes of outcome events, so that outcomes by event date are two-sided index ranges.
///
/// An outcome matches a date interval `[s, e]` when its event overlaps it: `start < e && end >= s` (CareKit's
/// predicate). On an index of event starts alone that is a one-sided range (`start < e`): every outcome
/// recorded before `e` is read and all but a day's worth dropped, so a query for one day cost time in
/// proportion to the store. Knowing an upper bound `b` on the event's length adds the lower side,
/// `start >= s − b`, so a query reads what it returns plus at most `b` of earlier events.
///
/// Each stored outcome carries ``field``: the label of the smallest class its event fits in, then the event's
/// start as stored (`"b2024-01-03T00:00:00.000Z"` for an all-day event). ``CareIndexes/byEventKey`` indexes
/// that one member, so a date query is one two-sided range per class, and an empty class costs one index
/// seek. Labels are single letters, so each class is one contiguous run of keys whatever the collation does
/// with punctuation. Events longer than the largest bound are in the open class, whose range starts at the
/// class's first key; CareKit schedules rarely make events longer than a day.
///
/// Why one member and not an index on (kind, class, start): the store turns an equality on a leading index
/// column into a `>= AND <=` pair, and SQLite seeks on nothing after a range, so the later columns would
/// only filter the whole kind.
enum EventSpan {
    /// The stored member holding the class label and the event start.
    static let field = "careEventKey"

    /// The classes: each one's bound in seconds (`nil` for the open class) and label. An hour, a day (25 h: an
    /// all-day event on a DST day lasts 25 h − 1 s), eight days, 32 days and 367 days (a week, month or year
    /// with the same slack), then everything longer.
    static let classes: [(bound: Int?, label: String)] = [
        (3_600, "a"), (90_000, "b"), (8 * 86_400, "c"), (32 * 86_400, "d"), (367 * 86_400, "e"), (nil, "f"),
    ]

    /// The key stored with an outcome whose task event is `event`.
    static func key(of event: ScheduleEvent) throws -> JSONValue {
        let length = event.end.timeIntervalSince(event.start)
        let label = classes.first { $0.bound.map { length <= Double($0) } ?? true }?.label ?? "f"
        return .string(label + (try timestamp(event.start)))
    }

    /// The Mango conditions for each class, finding the outcomes whose event overlaps `interval`: a two-sided
    /// range on the key, and CareKit's predicate on the stored end. The key's upper bound is CareKit's
    /// `start < end of interval` already (same label, then the start, and stored dates sort as they compare),
    /// so the start is not checked a second time.
    ///
    /// The lower bound has a second of slack so that millisecond rounding of stored dates never drops an
    /// event that starts exactly `bound` seconds before the interval.
    static func conditions(overlapping interval: DateInterval) throws -> [JSONObject] {
        let end = try timestamp(interval.end)
        return try classes.map { span in
            let lower = try span.bound.map { try timestamp(interval.start.addingTimeInterval(-Double($0 + 1))) } ?? ""
            return [
                field: ["$gte": .string(span.label + lower), "$lt": .string(span.label + end)],
                CareDocument.eventEndField: ["$gte": try JSONValue(encoding: interval.start)],
            ]
        }
    }

    /// A date as the store writes it (ISO 8601 in UTC with milliseconds, which sorts as it compares).
    private static func timestamp(_ date: Date) throws -> String {
        guard let text = try JSONValue(encoding: date).stringValue else {
            throw CloudantError(.invalidInput, "A date must encode as ISO 8601 text.")
        }
        return text
    }
}
