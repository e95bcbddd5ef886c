internal import CloudantCore
internal import CloudantStore

/// Reading workouts' routes.
extension DocumentStore {
    /// The work of `HealthStore.route(ofWorkout:)`, which documents it.
    func route(ofWorkout workout: String) async throws -> (workout: WorkoutSample, locations: [RouteLocation]) {
        let found = try await findWorkout(workout)
        var routes = try await get(WorkoutRouteSample.self, ids: found.routeIDs)
        if routes.isEmpty {
            routes = try await collection(healthKitSampleType: .workoutRoute)
                .where(field: "workoutID", value: found.uuid).get(WorkoutRouteSample.self)
        }
        guard !routes.isEmpty else {
            throw CloudantError(.notFound, "The workout has no route.", context: .init(documentID: found.id))
        }
        return (found, routes.flatMap(\.locations).sorted { $0.timestamp < $1.timestamp })
    }

    private func findWorkout(_ idOrUUID: String) async throws -> WorkoutSample {
        let byUUID = try await collection(healthKitSampleType: .workout)
            .where(field: "uuid", value: idOrUUID).get(WorkoutSample.self)
        if let match = byUUID.first { return match }
        let byID = try await collection(healthKitSampleType: .workout)
            .where(field: "_id", value: idOrUUID).get(WorkoutSample.self)
        guard let match = byID.first else {
            throw CloudantError(
                .notFound, "No workout with this id or uuid; list them with "
                    + "`cloudant health samples --type HKWorkoutTypeIdentifier`.",
                context: .init(documentID: idOrUUID))
        }
        return match
    }
}
