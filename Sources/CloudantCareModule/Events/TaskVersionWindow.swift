public import Foundation

/// The part of a query range in which one task version's events count: from its effective date (or the range
/// start) until a version with a later effective date takes over (or the range end).
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
