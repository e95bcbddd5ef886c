public import CloudantCore

/// The care module's error codes: CareKit's guards and schedule rules, each with its category.
extension CloudantError.Code {
    /// A schedule CareKit would reject or loop on for ever: no elements, an element whose `end` is not after
    /// its `start`, an interval that does not move forward in time, or an all-day element whose interval is
    /// shorter than a day (CareKit's event loop never leaves that day).
    ///
    /// Fix the schedule element named in the error's `field` (for example `elements[1].interval`).
    public static let invalidSchedule = Self("invalidSchedule", category: .invalidInput)

    /// A new task version would start at or before an outcome recorded against an older version, so that
    /// outcome's event would vanish (CareKit's `confirmUpdateWillNotCauseDataLoss`).
    ///
    /// Move the new version's `effectiveDate` past the latest outcome's event, or delete those outcomes first.
    public static let updateWouldHideOutcomes = Self("updateWouldHideOutcomes", category: .conflict)

    /// An outcome points at no event: its task version is unknown, its occurrence index is not in the
    /// schedule, or its event lies where a newer task version has taken over.
    public static let orphanedOutcome = Self("orphanedOutcome", category: .invalidInput)

    /// A second live outcome for one event, that is for one (task version uuid, occurrence index).
    ///
    /// Update the existing outcome instead of adding another.
    public static let duplicateOutcome = Self("duplicateOutcome", category: .conflict)

    /// An entity id whose history contains a deleted version cannot be updated or deleted again locally.
    public static let entityDeleted = Self("entityDeleted", category: .conflict)

    /// A version was added whose `uuid` or `id` is already in the history.
    public static let duplicateVersion = Self("duplicateVersion", category: .conflict)
}

/// The care module's error codes, continued.
extension CloudantError.Code {
    /// A batch of exact versions (a CareKit history) whose version links do not form a history: a previous
    /// version that is neither in the batch nor stored for the object, a cycle, or two versions that both
    /// continue one version. The error's `CloudantError.underlying` is a ``VersionChainError``
    /// naming the version and the link; nothing of the batch is written.
    ///
    /// Export the whole history (every version back to the first, or back to versions already stored), or
    /// import a merge version that names both branches.
    public static let brokenVersionChain = Self("brokenVersionChain", category: .invalidInput)
}
