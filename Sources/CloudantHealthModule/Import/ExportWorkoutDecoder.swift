internal import CloudantCore
internal import Foundation

/// Turns a `<Workout>` into a workout sample and its route samples, reading the GPX files it references.
///
/// Reads both shapes: the older totals in attributes (`totalDistance`, `totalEnergyBurned`) and iOS 16+
/// `<WorkoutStatistics>`, from which missing totals are filled (active energy; walking, running, cycling or
/// swimming distance).
enum ExportWorkoutDecoder {
    struct Decoded {
        var workout: WorkoutSample
        var routes: [WorkoutRouteSample]
        var metadataEntries: Int
        /// Problems with referenced files; the workout and route documents are still written.
        var notes: [(reason: String, detail: String)]
    }

    static func workout(_ element: XMLElementView, exportFolder: URL) throws(ImportSkip) -> Decoded {
        let attributes = ExportAttributes(element: element)
        guard let activity = attributes.string("workoutActivityType") else {
            throw ImportSkip("a <Workout> without a workoutActivityType")
        }
        let start = try attributes.time("startDate")
        let end = try attributes.time("endDate")
        let metadata = attributes.metadata
        var entries = metadata.entries
        let statistics = element.children(named: "WorkoutStatistics").compactMap(Self.statistics)
        let uuid = attributes.contentUUID(startingAt: start.date)
        var notes: [(String, String)] = []
        var routes: [WorkoutRouteSample] = []
        var files: Set<String> = []
        for routeElement in element.children(named: "WorkoutRoute") {
            let route = try Self.route(routeElement, workoutID: uuid, exportFolder: exportFolder)
            entries += route.metadataEntries
            routes.append(route.sample)
            if let note = route.note { notes.append(note) }
            if let path = route.sample.metadata["fileReference"]?.stringValue, !files.insert(path).inserted {
                // Both routes are kept (their sync identifiers differ); the shared file is worth knowing about.
                notes.append(("route file referenced twice by one workout (both routes stored)", path))
            }
        }
        let workout = WorkoutSample(
            uuid: uuid, activityType: activity, startDate: start.date, endDate: end.date,
            startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset,
            duration: seconds(attributes.double("duration"), unit: attributes.string("durationUnit"))
                ?? end.date.timeIntervalSince(start.date),
            totalEnergyBurned: quantity(attributes, "totalEnergyBurned")
                ?? total(statistics, ["HKQuantityTypeIdentifierActiveEnergyBurned"]),
            totalDistance: quantity(attributes, "totalDistance")
                ?? total(statistics, [
                    "HKQuantityTypeIdentifierDistanceWalkingRunning", "HKQuantityTypeIdentifierDistanceCycling",
                    "HKQuantityTypeIdentifierDistanceSwimming", "HKQuantityTypeIdentifierDistanceDownhillSnowSports",
                ]),
            events: element.children(named: "WorkoutEvent").compactMap(Self.event),
            statistics: statistics, routeIDs: routes.map(\.id),
            creationDate: attributes.string("creationDate").flatMap(LocalTimestamp.init(parsing:))?.date,
            source: attributes.source, device: attributes.device, metadata: metadata.values)
        return Decoded(workout: workout, routes: routes, metadataEntries: entries, notes: notes)
    }

    private static func seconds(_ value: Double?, unit: String?) -> Double? {
        guard let value else { return nil }
        guard let unit, let parsed = try? HealthUnit(parsing: unit) else { return value * 60 }  // Apple's default: min
        return try? parsed.convert(value, to: .second)
    }

    private static func quantity(_ attributes: ExportAttributes, _ name: String) -> HealthQuantity? {
        guard let value = attributes.double(name),
            let unit = attributes.string(name + "Unit").flatMap({ try? HealthUnit(parsing: $0) })
        else { return nil }
        return HealthQuantity(value: value, unit: unit)
    }

    private static func total(_ statistics: [WorkoutStatistics], _ types: [String]) -> HealthQuantity? {
        for type in types {
            if let match = statistics.first(where: { $0.typeIdentifier == type }), let sum = match.sum,
                let unit = match.unit.flatMap({ try? HealthUnit(parsing: $0) })
            {
                return HealthQuantity(value: sum, unit: unit)
            }
        }
        return nil
    }

    private static func statistics(_ element: XMLElementView) -> WorkoutStatistics? {
        let attributes = ExportAttributes(element: element)
        guard let type = attributes.string("type"), let start = try? attributes.time("startDate"),
            let end = try? attributes.time("endDate")
        else { return nil }
        return WorkoutStatistics(
            typeIdentifier: type, startDate: start.date, endDate: end.date, average: attributes.double("average"),
            minimum: attributes.double("minimum"), maximum: attributes.double("maximum"), sum: attributes.double("sum"),
            unit: attributes.string("unit"))
    }

    private static func event(_ element: XMLElementView) -> WorkoutEvent? {
        let attributes = ExportAttributes(element: element)
        guard let type = attributes.string("type"), let date = try? attributes.time("date") else { return nil }
        return WorkoutEvent(
            type: type, date: date.date,
            duration: seconds(attributes.double("duration"), unit: attributes.string("durationUnit")) ?? 0,
            metadata: attributes.metadata.values)
    }

    private static func route(_ element: XMLElementView, workoutID: String, exportFolder: URL) throws(ImportSkip)
        -> (sample: WorkoutRouteSample, metadataEntries: Int, note: (String, String)?)
    {
        let attributes = ExportAttributes(element: element)
        let start = try attributes.time("startDate")
        let end = try attributes.time("endDate")
        var metadata = attributes.metadata.values
        let path = element.child("FileReference")?.attribute("path")
        var locations: [RouteLocation] = []
        var note: (String, String)?
        if let path {
            metadata["fileReference"] = .string(path)
            let file = exportFolder.appendingPathComponent(String(path.drop(while: { $0 == "/" })))
            if let data = try? Data(contentsOf: file) {
                do { locations = try GPXRoute(parsing: data).locations } catch {
                    note = ("unreadable route file (route stored without locations)", "\(path): \(error)")
                }
            } else {
                note = ("missing route file (route stored without locations)", path)
            }
        }
        let sample = WorkoutRouteSample(
            uuid: attributes.contentUUID(startingAt: start.date), workoutID: workoutID, locations: locations, startDate: start.date,
            endDate: end.date, startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset,
            source: attributes.source, device: attributes.device, metadata: metadata)
        return (sample, attributes.metadata.entries, note)
    }
}
