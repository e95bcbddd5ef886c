public import Foundation

/// What to fetch from a ``CareStore``: CareKit's query fields (`OCKPatientQuery`, `OCKTaskQuery`, …) in one
/// value; the relation fields apply to the kinds that have that relation.
///
/// ```swift
/// var query = CareQuery(for: today, calendar: calendar)    // the day's versions in effect
/// query.carePlanIDs = ["diabetes"]
/// query.sort = [.init(.title)]
/// let tasks = try await care.fetch(CareTask.self, query: query)
/// ```
///
/// Every field given must match (an `and`); within a field, any value may match. Deleted versions never
/// match. With a ``dateInterval`` the versions in effect during it come back (CareKit rule 4); for outcomes
/// the interval is matched against the *event* (`start < end && end >= start`), not the creation date. To
/// ask by creation date instead (CareKit #669: "every outcome recorded this week"), set
/// ``createdDateInterval``; the two combine.
public struct CareQuery: Sendable, Hashable {
    /// Developer ids.
    public var ids: [String]?
    /// Version uuids.
    public var uuids: [UUID]?
    /// Remote ids; a `nil` entry matches versions without one.
    public var remoteIDs: [String?]?
    /// Group identifiers; a `nil` entry matches versions without one.
    public var groupIdentifiers: [String?]?
    /// Tags; a version matches when any of its tags is listed.
    public var tags: [String]?
    /// The interval the versions must be in effect during (outcomes: the interval their event overlaps).
    public var dateInterval: DateInterval?
    /// The interval the versions' `createdDate` must lie in (both ends included), for every kind: outcomes
    /// recorded on a day, whatever day their event was.
    public var createdDateInterval: DateInterval?
    /// Patient ids (care plans).
    public var patientIDs: [String]?
    /// Patient version uuids (care plans).
    public var patientUUIDs: [UUID]?
    /// Patient remote ids (care plans).
    public var patientRemoteIDs: [String]?
    /// Care plan ids (tasks, contacts).
    public var carePlanIDs: [String]?
    /// Care plan version uuids (tasks, contacts).
    public var carePlanUUIDs: [UUID]?
    /// Care plan remote ids (tasks, contacts).
    public var carePlanRemoteIDs: [String]?
    /// Task ids (outcomes).
    public var taskIDs: [String]?
    /// Task version uuids (outcomes).
    public var taskUUIDs: [UUID]?
    /// Task remote ids (outcomes).
    public var taskRemoteIDs: [String]?
    /// The order; CareKit's default (`createdDate` descending) is added after these.
    public var sort: [CareSort]
    /// At most this many results.
    public var limit: Int?
    /// Skip this many results first.
    public var offset: Int

    /// Creates a query; with no fields it matches every version that is not deleted.
    public init(dateInterval: DateInterval? = nil) {
        self.dateInterval = dateInterval
        self.sort = []
        self.offset = 0
    }

    /// A query for one object's versions, as CareKit's `init(id:)`.
    public init(id: String) {
        self.init()
        self.ids = [id]
    }

    /// A query for the day containing `date` in `calendar`: from its start to one second before the next day,
    /// as CareKit's `init(for:)`.
    public init(for date: Date, calendar: Calendar) {
        let start = calendar.startOfDay(for: date)
        let end = calendar.date(byAdding: .day, value: 1, to: start).map { $0.addingTimeInterval(-1) } ?? start
        self.init(dateInterval: DateInterval(start: start, end: end))
    }
}

/// One key of a care query's order.
public struct CareSort: Sendable, Hashable {
    /// A field care queries sort on.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// `effectiveDate`.
        case effectiveDate
        /// `createdDate`.
        case createdDate
        /// `updatedDate`.
        case updatedDate
        /// `groupIdentifier`.
        case groupIdentifier
        /// `title` (care plans, tasks, contacts).
        case title
        /// `name.givenName` (patients, contacts).
        case givenName
        /// `name.familyName` (patients, contacts).
        case familyName

        var path: [String] {
            switch self {
            case .givenName: ["name", "givenName"]
            case .familyName: ["name", "familyName"]
            default: [rawValue]
            }
        }
    }

    /// The field.
    public var field: Field
    /// Whether values ascend; versions lacking the field come last either way.
    public var ascending: Bool

    /// Creates a sort key.
    public init(_ field: Field, ascending: Bool = true) {
        self.field = field
        self.ascending = ascending
    }
}
