public import CloudantCareModule

/// CareKit's name for a care conflict policy.
extension CareConflictPolicy {
    /// This device's newest version wins: CareKit's `OCKMergeConflictResolutionPolicy.keepDevice`, named
    /// `keepLocal` here as in every conflict policy of the package.
    @available(*, deprecated, renamed: "keepLocal")
    public static var keepDevice: Self { .keepLocal }
}
