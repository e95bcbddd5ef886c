/// Runs a flavour's preparation of a store (creating the indexes it queries) once; a preparation that fails
/// runs again on the next call.
///
/// `Flavour` only tells one flavour's preparation from another's, so that each flavour keeps its own as a
/// separate ``OTFCloudantStore/companion(_:make:)`` of the store.
package actor OncePerStore<Flavour> {
    private var done = false

    /// Creates a preparation that has not run.
    package init() {}

    /// Runs `work` unless an earlier call finished it.
    package func once(_ work: @Sendable () async throws -> Void) async throws {
        guard !done else { return }
        try await work()
        done = true
    }
}
