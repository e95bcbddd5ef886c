internal import CloudantCore
public import CloudantServer
internal import CloudantHealthModule
internal import CloudantStore
public import Foundation

/// The dashboard's health page for a database: a chart of one quantity type over a range (zoom by range,
/// daily/weekly/monthly buckets), workouts with their routes drawn, and CDA documents shown as their sections.
///
/// ```swift
/// var configuration = ServerConfiguration(directory: StoreDirectory(path: "data"))
/// configuration.dashboardPanels = [HealthDashboardPanel(), CareDashboardPanel()]
/// ```
public struct HealthDashboardPanel: DashboardPanel {
    /// `health`.
    public let name = "health"
    /// `Health`.
    public let title = "Health"
    /// The calendar bucket boundaries and date labels follow.
    public var timeZone: TimeZone

    /// Creates the panel; buckets follow `timeZone` (the server's zone by default).
    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    /// Quantity types offered in the type list, when the database has samples of them.
    static let commonTypes = [
        "HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount",
        "HKQuantityTypeIdentifierActiveEnergyBurned", "HKQuantityTypeIdentifierDistanceWalkingRunning",
        "HKQuantityTypeIdentifierBodyMass", "HKQuantityTypeIdentifierRestingHeartRate",
        "HKQuantityTypeIdentifierBloodGlucose", "HKQuantityTypeIdentifierOxygenSaturation",
        "HKQuantityTypeIdentifierRespiratoryRate", "HKQuantityTypeIdentifierBasalEnergyBurned",
        "HKQuantityTypeIdentifierFlightsClimbed", "HKQuantityTypeIdentifierHeartRateVariabilitySDNN",
    ]

    /// Renders the chart (`?type=&from=&to=&by=&unit=`), a route (`?workout=ID`) or a CDA document (`?cda=ID`).
    public func render(_ context: DashboardPanelContext) async throws -> DashboardPanelContent {
        let store = try context.openReadOnly(registry: EntityRegistry(plugins: [HealthPlugin()]))
        if let workout = context.parameters["workout"] { return try await routePage(context, store: store, workout: workout) }
        if let cda = context.parameters["cda"] { return try await cdaPage(context, store: store, id: cda) }
        return try await chartPage(context, store: store)
    }

    // MARK: The chart

    private func chartPage(_ context: DashboardPanelContext, store: DocumentStore) async throws -> DashboardPanelContent {
        let projected = try await store.projectionNames().contains(HealthPlugin.quantityProjection.name)
        // The common types with samples, each with when its newest sample starts.
        var newest: [String: Date] = [:]
        var present: [String] = []
        for type in Self.commonTypes {
            guard let latest = try await latestStart(of: type, in: store, projected: projected) else { continue }
            newest[type] = latest
            present.append(type)
        }
        let type = context.parameters["type"].flatMap { $0.isEmpty ? nil : $0 } ?? present.first
        var values: [String: any Sendable] = [
            "types": present.map { ["id": $0, "name": HealthChart.shortName(of: $0)] as [String: any Sendable] },
        ]
        if let type {
            values["type"] = type
            // The range ends at the latest sample (an export is a snapshot of the past), a year back by default.
            let end: Date
            if let last = try day(context.parameters["to"]) {
                end = last.addingTimeInterval(86_400)
            } else {
                var latest = newest[type]
                if latest == nil { latest = try await latestStart(of: type, in: store, projected: projected) }
                end = (latest ?? Date()).addingTimeInterval(86_400)
            }
            let start = try day(context.parameters["from"]) ?? end.addingTimeInterval(-365 * 86_400)
            guard end > start else {
                throw CloudantError(.invalidInput, "The end of the range must be after its start.", context: .init(field: "to"))
            }
            let interval = context.parameters["by"].flatMap(HealthStatisticsInterval.init(rawValue:))
                ?? HealthChart.interval(for: end.timeIntervalSince(start))
            let unitText = context.parameters["unit"].flatMap { $0.isEmpty ? nil : $0 }
            let unit = try unitText.map { text -> HealthUnit in
                do throws(CloudantError) { return try HealthUnit(parsing: text) } catch { throw error.adding { $0.field = "unit" } }
            }
            let statistics = try await HealthStore(store: store).statistics(
                ofType: type, from: start, to: end, by: interval, unit: unit, timeZone: timeZone)
            values["unit"] = unitText ?? ""
            values["svg"] = HealthChart(statistics: statistics, timeZone: timeZone).svg()
            values["from"] = dayText(start)
            values["to"] = dayText(end.addingTimeInterval(-1))
            values["by"] = interval.rawValue
            values["intervals"] = HealthStatisticsInterval.allCases.map {
                ["value": $0.rawValue, "selected": $0 == interval] as [String: any Sendable]
            }
            values["zooms"] = [("7 days", 7), ("30 days", 30), ("90 days", 90), ("1 year", 365), ("3 years", 1096)].map {
                let from = dayText(end.addingTimeInterval(-Double($0.1) * 86_400))
                let href = context.href(
                    [("type", type), ("from", from), ("to", dayText(end.addingTimeInterval(-1)))]
                        + (unitText.map { [("unit", $0)] } ?? []))
                return ["label": $0.0, "href": href] as [String: any Sendable]
            }
            values["rows"] = statistics.buckets.filter { $0.sampleCount > 0 }.map { bucket -> [String: any Sendable] in
                let figures = statistics.aggregation == .cumulative
                    ? Self.number(bucket.sum)
                    : "\(Self.number(bucket.minimum)) – \(Self.number(bucket.average)) – \(Self.number(bucket.maximum))"
                return ["start": dayText(bucket.start), "value": figures, "count": bucket.sampleCount]
            }
            values["figureHeading"] = statistics.aggregation == .cumulative
                ? "Total (\(statistics.unit))" : "Minimum – average – maximum (\(statistics.unit))"
        }
        values["workouts"] = try await workouts(store, context: context)
        values["cdas"] = try await cdaDocuments(store, context: context)
        return DashboardPanelContent(heading: "Health in \(context.database)", template: Self.chartTemplate, values: values)
    }

    static let chartTemplate = """
        <form method="get" action="{{path}}" class="row" id="chart-form">
        <label>Type <input name="type" list="health-types" value="{{type}}" required size="44"></label>
        <datalist id="health-types">{{#types}}<option value="{{id}}">{{name}}</option>{{/types}}</datalist>
        <label>From <input type="date" name="from" value="{{from}}"></label>
        <label>To <input type="date" name="to" value="{{to}}"></label>
        <label>Unit <input name="unit" value="{{unit}}" size="8" placeholder="as stored"></label>
        <label>Per <select name="by">{{#intervals}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/intervals}}</select></label>
        <button type="submit">Draw</button>
        </form>
        {{#svg}}<p class="pager">Zoom: {{#zooms}}<a href="{{href}}">{{label}}</a> {{/zooms}}</p>
        <figure id="health-chart">{{{svg}}}</figure>
        <details><summary>Figures</summary><table class="grid" id="chart-figures"><thead><tr><th>From</th><th>{{figureHeading}}</th><th class="num">Samples</th></tr></thead><tbody>
        {{#rows}}<tr><td>{{start}}</td><td>{{value}}</td><td class="num">{{count}}</td></tr>{{/rows}}
        </tbody></table></details>{{/svg}}
        {{^svg}}<p>No quantity samples of the common types here; name a type above.</p>{{/svg}}
        <h2>Workouts</h2>
        <table class="grid" id="workouts"><thead><tr><th>Start</th><th>Activity</th><th class="num">Duration</th><th class="num">Distance</th><th></th></tr></thead><tbody>
        {{#workouts}}<tr><td>{{start}}</td><td>{{activity}}</td><td class="num">{{duration}}</td><td class="num">{{distance}}</td><td>{{#hasRoute}}<a href="{{href}}">Route</a>{{/hasRoute}}</td></tr>
        {{/workouts}}{{^workouts}}<tr><td colspan="5">None.</td></tr>{{/workouts}}
        </tbody></table>
        <h2>Clinical documents (CDA)</h2>
        <ul id="cda-documents">{{#cdas}}<li><a href="{{href}}">{{title}}</a> {{date}}</li>{{/cdas}}{{^cdas}}<li>None.</li>{{/cdas}}</ul>
        """

    /// When the newest sample of `type` starts: one row from the end of the quantity projection's index when
    /// the store keeps it, else the newest document by the samples' Mango index.
    private func latestStart(of type: String, in store: DocumentStore, projected: Bool) async throws -> Date? {
        if projected {
            let query = ProjectionQuery(
                projection: HealthPlugin.quantityProjection.name,
                where: [.init(HealthPlugin.QuantityColumn.typeIdentifier.name, .equal, .text(type))], descending: true,
                limit: 1)
            return try await store.projectedRows(query) { $0.date(at: HealthPlugin.QuantityColumn.start.rawValue) }.first ?? nil
        }
        let newest = try await HealthStore(store: store).collection(healthKitSampleType: .quantity).where(typeIdentifier: type)
            .sort(descending: "startDate").limit(1).get()
        return newest.first?["startDate"]?.stringValue.flatMap(ISO8601Timestamp.date(from:))
    }

    // MARK: Workouts and routes

    /// The 20 latest workouts.
    private func workouts(_ store: DocumentStore, context: DashboardPanelContext) async throws -> [[String: any Sendable]] {
        let latest = try await HealthStore(store: store).collection(healthKitSampleType: .workout).sort(descending: "startDate").limit(20)
            .get(WorkoutSample.self)
        return latest.map { workout in
            [
                "start": dateTimeText(workout.startDate),
                "activity": workout.activityType.replacingOccurrences(of: "HKWorkoutActivityType", with: ""),
                "duration": RouteDrawing.duration(workout.duration),
                "distance": workout.totalDistance.map { "\(Self.number($0.value)) \($0.unit)" } ?? "",
                "hasRoute": !workout.routeIDs.isEmpty, "href": context.href([("workout", workout.id)]),
            ]
        }
    }

    private func routePage(_ context: DashboardPanelContext, store: DocumentStore, workout: String) async throws -> DashboardPanelContent {
        let (found, locations) = try await HealthStore(store: store).route(ofWorkout: workout)
        let title = found.activityType.replacingOccurrences(of: "HKWorkoutActivityType", with: "") + " "
            + dateTimeText(found.startDate)
        let summary = RouteSummary(locations)
        return DashboardPanelContent(
            heading: title,
            template: """
                <p><a href="{{path}}">Back to the health page</a></p>
                <figure id="route">{{{svg}}}</figure>
                <dl class="facts"><dt>Distance</dt><dd>{{distance}} km</dd><dt>Duration</dt><dd>{{duration}}</dd><dt>Climb</dt><dd>{{climb}} m</dd><dt>Points</dt><dd>{{points}}</dd></dl>
                """,
            values: [
                "svg": RouteDrawing(locations: locations, title: title).svg(),
                "distance": Self.number(summary.distance / 1000), "duration": RouteDrawing.duration(summary.duration),
                "climb": Self.number(summary.elevationGain), "points": summary.pointCount,
            ])
    }

    // MARK: CDA documents

    private func cdaDocuments(_ store: DocumentStore, context: DashboardPanelContext) async throws -> [[String: any Sendable]] {
        let documents = try await HealthStore(store: store).collection(healthKitSampleType: .cdaDocument).sort(descending: "startDate").limit(20)
            .get(CDADocumentSample.self)
        return documents.map {
            ["title": $0.document.title ?? "Untitled document", "date": dayText($0.startDate), "href": context.href([("cda", $0.id)])]
        }
    }

    private func cdaPage(_ context: DashboardPanelContext, store: DocumentStore, id: String) async throws -> DashboardPanelContent {
        let found = try await store.get(CDADocumentSample.self, ids: [id])
        guard let sample = found.first else {
            throw CloudantError(.notFound, "No CDA document with this id.", context: .init(documentID: id))
        }
        let document = sample.document
        let sections = document.sections.map { section -> [String: any Sendable] in
            [
                "title": section.title ?? section.code?.displayName ?? "\(section.kind)",
                "entries": section.entries.map { entry -> [String: any Sendable] in
                    let name = entry.code?.displayName ?? entry.substance?.displayName ?? entry.code?.code ?? ""
                    let value = [entry.value, entry.unit].compactMap { $0 }.joined(separator: " ")
                    return [
                        "name": name, "value": value.isEmpty ? (entry.valueCode?.displayName ?? "") : value,
                        "time": entry.time.map(Self.timestampText) ?? "",
                    ]
                },
            ]
        }
        return DashboardPanelContent(
            heading: document.title ?? "Clinical document",
            template: """
                <p><a href="{{path}}">Back to the health page</a></p>
                <dl class="facts"><dt>Patient</dt><dd>{{patient}}</dd><dt>Author</dt><dd>{{author}}</dd><dt>Custodian</dt><dd>{{custodian}}</dd><dt>Effective</dt><dd>{{effective}}</dd></dl>
                {{#sections}}<section class="cda-section"><h2>{{title}}</h2>
                <table class="grid"><thead><tr><th>Entry</th><th>Value</th><th>Time</th></tr></thead><tbody>
                {{#entries}}<tr><td>{{name}}</td><td>{{value}}</td><td>{{time}}</td></tr>{{/entries}}
                </tbody></table></section>{{/sections}}
                """,
            values: [
                "patient": document.patientName ?? "", "author": document.authorName ?? "",
                "custodian": document.custodianName ?? "", "effective": document.effectiveTime.map(Self.timestampText) ?? "",
                "sections": sections,
            ])
    }

    // MARK: Formatting

    private func day(_ text: String?) throws -> Date? {
        guard let text, !text.isEmpty else { return nil }
        guard let day = CalendarDay(parsing: text) else {
            throw CloudantError(.invalidInput, "'\(text)' is not a day (2024-06-01).", context: .init(field: "from"))
        }
        return day.interval(in: timeZone).start
    }

    private func dayText(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    private func dateTimeText(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return dayText(date) + String(format: " %02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    static func number(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.1f", value)
    }

    /// An HL7 timestamp as ISO 8601 in the offset it was written with (`2023-06-08T00:32:00-07:00`).
    static func timestampText(_ time: HL7Timestamp) -> String {
        LocalTimestamp(date: time.date, utcOffset: time.utcOffset ?? 0).iso8601 ?? time.text
    }
}
