public import Foundation

/// Where one task version computes its events for a query range: from its effective date (or the range start)
/// until the next version in effective-date order takes over (or the range end). As in CareKit, that takeover
/// date can lie after the range end when an older version has a later effective date than a newer one.
public struct TaskVersionWindow<Version: SchedulableTask>: Hashable, Sendable {
    /// The task version.
    public var task: Version
    /// Where its events count; the end is exclusive for event starts.
    public var interval: DateInterval

    /// Creates a window.
    public init(task: Version, interval: DateInterval) {
        self.task = task
        self.interval = interval
    }
}
