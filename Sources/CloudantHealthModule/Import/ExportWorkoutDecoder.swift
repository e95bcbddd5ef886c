internal import CloudantCore
internal import Foundation

/// Turns a `<Workout>` into a workout sample, its route samples and the records it holds.
///
/// Reads every shape Apple has written: totals in attributes (`totalDistance`, `totalEnergyBurned`) and, from
/// iOS 16, in `<WorkoutStatistics>` of the workout or of its `<WorkoutActivity>` legs (missing totals are
/// filled from them); routes as `<Location>` children (iOS 8–12) or as a `<FileReference>` to a GPX file
/// (iOS 13+), a file listed twice being one route; `<Record>` children (iOS 18's effort score), each stored as
/// its own sample; and any other child (`<WorkoutZoneGroup>`) kept in ``WorkoutSampleValues/otherElements``.
enum ExportWorkoutDecoder {
    struct Decoded {
        var workout: WorkoutSample
        var routes: [WorkoutRouteSample]
        var metadataEntries: Int
        /// Records inside the workout, decoded.
        var members: [ExportRecordDecoder.Decoded]
        /// Children not imported (a second `<WorkoutRoute>` for a file already read, an unreadable record).
        var skips: [ImportSkip]
        /// Routes stored without the locations their file should hold (file missing or unreadable).
        var warnings: [ImportSkip]
    }

    static let distanceTypes = [
        "HKQuantityTypeIdentifierDistanceWalkingRunning", "HKQuantityTypeIdentifierDistanceCycling",
        "HKQuantityTypeIdentifierDistanceSwimming", "HKQuantityTypeIdentifierDistanceDownhillSnowSports",
        "HKQuantityTypeIdentifierDistanceWheelchair", "HKQuantityTypeIdentifierDistanceRowing",
        "HKQuantityTypeIdentifierDistancePaddleSports", "HKQuantityTypeIdentifierDistanceCrossCountrySkiing",
        "HKQuantityTypeIdentifierDistanceSkatingSports",
    ]

    /// - Parameter exportFolder: where route files are looked up; `nil` when `export.xml` came alone (from
    ///   standard input).
    static func workout(_ element: XMLElementView, exportFolder: URL?, cache: ExportValueCache = ExportValueCache())
        throws(ImportSkip) -> Decoded
    {
        let attributes = ExportAttributes(element: element, cache: cache)
        guard let activity = attributes.string("workoutActivityType") else {
            throw ImportSkip("a <Workout> without a workoutActivityType")
        }
        let start = try attributes.time("startDate", type: activity)
        let end = try attributes.time("endDate", type: activity)
        let creation = attributes.string("creationDate").flatMap(LocalTimestamp.init(parsing:))?.date
        let metadata = attributes.metadata
        let device = attributes.device
        let ids = ExportAttributes.identifiers(in: metadata.values)
        let key =
            ids.sync.map { ["Workout", activity, "sync", $0] }
            ?? ["Workout", activity, ImportKey.instant(start.date), ImportKey.instant(end.date), ImportKey.instant(creation),
                device?.hardwareVersion ?? "", ids.external ?? ""]
        let uuid = ImportKey.uuid(key, startingAt: start.date)
        var decoded = Decoded(
            workout: WorkoutSample(uuid: uuid, activityType: activity, startDate: start.date, endDate: end.date, duration: 0),
            routes: [], metadataEntries: metadata.entries, members: [], skips: [], warnings: [])
        var events: [WorkoutEvent] = []
        var statistics: [WorkoutStatistics] = []
        var activities: [WorkoutActivity] = []
        var others: [JSONValue] = []
        var files: Set<String> = []
        for child in element.elements {
            if child.isNamed("MetadataEntry") {
                continue
            } else if child.isNamed("WorkoutEvent") {
                if let event = Self.event(child, cache: cache) { events.append(event) }
            } else if child.isNamed("WorkoutStatistics") {
                if let statistic = Self.statistics(child) { statistics.append(statistic) }
            } else if child.isNamed("WorkoutActivity") {
                if let leg = Self.activity(child, cache: cache) {
                    activities.append(leg.activity)
                    decoded.metadataEntries += leg.metadataEntries
                }
            } else if child.isNamed("WorkoutRoute") {
                let path = child.child("FileReference")?.attribute("path")
                if let path, !files.insert(path).inserted {
                    decoded.skips.append(ImportSkip(
                        "a second <WorkoutRoute> for a route file the workout already lists (stored once)", subject: path,
                        type: activity))
                    continue
                }
                do {
                    let route = try Self.route(child, path: path, workoutID: uuid, exportFolder: exportFolder, cache: cache)
                    decoded.metadataEntries += route.metadataEntries
                    decoded.routes.append(route.sample)
                    if let warning = route.warning { decoded.warnings.append(warning) }
                } catch {
                    decoded.skips.append(error)
                }
            } else if child.isNamed("Record") {
                do {
                    let member = try ExportRecordDecoder.record(child, cache: cache)
                    decoded.metadataEntries += member.metadata
                    decoded.members.append(member)
                } catch {
                    decoded.skips.append(error)
                }
            } else {
                others.append(ExportRecordDecoder.json(child))
            }
        }
        let legs = activities.flatMap(\.statistics)
        decoded.workout = WorkoutSample(
            uuid: uuid, activityType: activity, startDate: start.date, endDate: end.date,
            startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset,
            duration: seconds(attributes.double("duration"), unit: attributes.string("durationUnit"))
                ?? end.date.timeIntervalSince(start.date),
            totalEnergyBurned: quantity(attributes, "totalEnergyBurned")
                ?? total(statistics, ["HKQuantityTypeIdentifierActiveEnergyBurned"])
                ?? total(legs, ["HKQuantityTypeIdentifierActiveEnergyBurned"]),
            totalDistance: quantity(attributes, "totalDistance") ?? total(statistics, distanceTypes) ?? total(legs, distanceTypes),
            events: events, statistics: statistics, activities: activities, otherElements: others,
            routeIDs: decoded.routes.map(\.id), creationDate: creation, source: attributes.source, device: device,
            metadata: metadata.values)
        return decoded
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

    /// The sum of the first of `types` the statistics have, converted to the first one's unit and added up
    /// (a workout has one statistic per type; its legs have one each, which together make its total).
    private static func total(_ statistics: [WorkoutStatistics], _ types: [String]) -> HealthQuantity? {
        for type in types {
            let matching = statistics.filter { $0.typeIdentifier == type && $0.sum != nil }
            guard let unit = matching.first?.unit.flatMap({ try? HealthUnit(parsing: $0) }) else { continue }
            let sum = matching.reduce(0.0) { total, statistic in
                guard let value = statistic.sum, let from = statistic.unit.flatMap({ try? HealthUnit(parsing: $0) }) else {
                    return total
                }
                return total + (from == unit ? value : (try? from.convert(value, to: unit)) ?? 0)
            }
            return HealthQuantity(value: sum, unit: unit)
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

    private static func event(_ element: XMLElementView, cache: ExportValueCache) -> WorkoutEvent? {
        let attributes = ExportAttributes(element: element, cache: cache)
        guard let type = attributes.string("type"), let date = try? attributes.time("date") else { return nil }
        return WorkoutEvent(
            type: type, date: date.date,
            duration: seconds(attributes.double("duration"), unit: attributes.string("durationUnit")) ?? 0,
            metadata: attributes.metadata.values)
    }

    private static func activity(_ element: XMLElementView, cache: ExportValueCache)
        -> (activity: WorkoutActivity, metadataEntries: Int)?
    {
        let attributes = ExportAttributes(element: element, cache: cache)
        guard let start = try? attributes.time("startDate"), let end = try? attributes.time("endDate") else { return nil }
        let metadata = attributes.metadata
        let activity = WorkoutActivity(
            uuid: attributes.string("uuid"), startDate: start.date, endDate: end.date, startUTCOffset: start.utcOffset,
            endUTCOffset: end.utcOffset,
            duration: seconds(attributes.double("duration"), unit: attributes.string("durationUnit")),
            events: element.children(named: "WorkoutEvent").compactMap { event($0, cache: cache) },
            statistics: element.children(named: "WorkoutStatistics").compactMap(statistics),
            metadata: metadata.values)
        return (activity, metadata.entries)
    }

    private static func route(
        _ element: XMLElementView, path: String?, workoutID: String, exportFolder: URL?, cache: ExportValueCache
    ) throws(ImportSkip) -> (sample: WorkoutRouteSample, metadataEntries: Int, warning: ImportSkip?) {
        let attributes = ExportAttributes(element: element, cache: cache)
        let start = try attributes.time("startDate", type: "WorkoutRoute")
        let end = try attributes.time("endDate", type: "WorkoutRoute")
        let routeMetadata = attributes.metadata
        var metadata = routeMetadata.values
        var locations = element.children(named: "Location").compactMap(Self.location)
        var warning: ImportSkip?
        if let path {
            metadata["fileReference"] = .string(path)
            if let exportFolder {
                let file = exportFolder.appendingPathComponent(String(path.drop(while: { $0 == "/" })))
                if let data = try? Data(contentsOf: file) {
                    do { locations = try GPXRoute(parsing: data).locations } catch {
                        warning = ImportSkip("an unreadable route file (route stored without locations)", subject: path)
                    }
                } else {
                    warning = ImportSkip("a missing route file (route stored without locations)", subject: path)
                }
            } else {
                warning = ImportSkip(
                    "a route file not read: export.xml came without its folder (route stored without locations)",
                    subject: path)
            }
        }
        let key = ["WorkoutRoute", workoutID] + (path.map { [$0] } ?? [ImportKey.instant(start.date), ImportKey.instant(end.date)])
        let sample = WorkoutRouteSample(
            uuid: ImportKey.uuid(key, startingAt: start.date), workoutID: workoutID, locations: locations,
            startDate: start.date, endDate: end.date, startUTCOffset: start.utcOffset, endUTCOffset: end.utcOffset,
            source: attributes.source, device: attributes.device, metadata: metadata)
        return (sample, routeMetadata.entries, warning)
    }

    /// `<Location date latitude longitude altitude horizontalAccuracy verticalAccuracy course speed/>` (iOS 8–12);
    /// a negative course or speed is Core Location's "unknown".
    private static func location(_ element: XMLElementView) -> RouteLocation? {
        let attributes = ExportAttributes(element: element)
        guard let time = try? attributes.time("date"), let latitude = attributes.double("latitude"),
            let longitude = attributes.double("longitude")
        else { return nil }
        func known(_ name: String) -> Double? { attributes.double(name).flatMap { $0 < 0 ? nil : $0 } }
        return RouteLocation(
            timestamp: time.date, latitude: latitude, longitude: longitude, altitude: attributes.double("altitude"),
            horizontalAccuracy: known("horizontalAccuracy"), verticalAccuracy: known("verticalAccuracy"),
            speed: known("speed"), course: known("course"))
    }
}
