public import Foundation

// CareKit's rule for queries by date: the version in effect for an interval is the newest version effective before the
// interval ends; deleted versions never show, and a tombstone hides the versions it replaces from its own
// effective date on.
extension VersionHistory {
    /// The versions in effect during `interval`, as CareKit's queries return them: versions that are not
    /// deleted, whose `effectiveDate` is before the interval's end, and that nothing replaces before the end
    /// (no next version, or some next version effective at or after the end).
    ///
    /// Without an interval, every version that is not deleted, older ones included (as CareKit does).
    /// While versions are concurrent, each tip in effect is returned.
    public func inEffect(during interval: DateInterval?) -> [Entity] {
        guard let interval else { return versions.filter { $0.deletedDate == nil } }
        let end = interval.end
        let replacements = replacementDates()
        return versions.filter { version in
            guard version.deletedDate == nil, version.effectiveDate < end else { return false }
            let dates = replacements[version.uuid, default: []]
            return dates.isEmpty || dates.contains { $0 >= end }
        }
    }

    /// The versions in effect at the instant `date`: not deleted, effective at or before `date`, and not
    /// replaced by a version effective at or before `date`.
    public func inEffect(at date: Date) -> [Entity] {
        let replacements = replacementDates()
        return versions.filter { version in
            guard version.deletedDate == nil, version.effectiveDate <= date else { return false }
            let dates = replacements[version.uuid, default: []]
            return dates.isEmpty || dates.contains { $0 > date }
        }
    }

    /// The effective dates of each version's replacements. `insert(_:)` keeps links symmetric between present
    /// versions, so the next links alone are enough.
    private func replacementDates() -> [UUID: [Date]] {
        var dates: [UUID: [Date]] = [:]
        for version in versions {
            dates[version.uuid] = version.nextVersionUUIDs.compactMap { self.version(uuid: $0)?.effectiveDate }
        }
        return dates
    }
}
