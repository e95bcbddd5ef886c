internal import CloudantCareModule
internal import CloudantCore
internal import CloudantStore
public import CloudantServer
public import Foundation

/// The dashboard's care page for a database: a patient's tasks as a month calendar of their events, each
/// marked done when it has an outcome, with the day's adherence (events done of those that count).
public struct CareDashboardPanel: DashboardPanel {
    /// `care`.
    public let name = "care"
    /// `Care`.
    public let title = "Care"
    /// The zone schedules are computed and days are drawn in.
    public var timeZone: TimeZone

    /// Creates the panel; days follow `timeZone` (the server's zone by default).
    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    /// Renders `?patient=ID&month=YYYY-MM` (the first patient and the current month by default).
    public func render(_ context: DashboardPanelContext) async throws -> DashboardPanelContent {
        let care = CareStore(
            store: try context.openReadOnly(registry: EntityRegistry(plugins: [CarePlugin()])), timeZone: timeZone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2
        let now = Date()
        let patients = try await care.fetchInEffect(Patient.self, at: now).sorted { Self.name(of: $0) < Self.name(of: $1) }
        let patient = patients.first { $0.id == context.parameters["patient"] } ?? patients.first
        let month = try Self.month(context.parameters["month"], calendar: calendar) ?? calendar.dateInterval(of: .month, for: now)!

        var tasks = Self.latestVersions(try await care.fetch(CareTask.self))
        if let patient {
            let plans = try await care.fetch(CarePlan.self).filter { $0.patientUUID == patient.uuid }.map(\.uuid)
            tasks = tasks.filter { task in task.carePlanUUID.map(plans.contains) ?? false }
        }
        // Every event of the month, by day.
        var days: [String: [(title: String, done: Bool, counts: Bool)]] = [:]
        for task in tasks.sorted(by: { ($0.title ?? $0.id) < ($1.title ?? $1.id) }) {
            for event in try await care.events(forTask: task.id, from: month.start, to: month.end, in: timeZone) {
                let key = Self.dayKey(event.scheduleEvent.start, calendar: calendar)
                days[key, default: []].append(
                    (event.task.title ?? event.task.id, event.outcome != nil, event.task.impactsAdherence))
            }
        }
        let cells = Self.cells(of: month, calendar: calendar, now: now, days: days)
        let previous = calendar.date(byAdding: .month, value: -1, to: month.start)!
        let next = month.end
        let patientQuery = patient.map { [("patient", $0.id)] } ?? []
        let values: [String: any Sendable] = [
            "patients": patients.map { candidate -> [String: any Sendable] in
                ["id": candidate.id, "name": Self.name(of: candidate), "selected": candidate.id == patient?.id]
            },
            "hasPatients": !patients.isEmpty,
            "month": Self.monthText(month.start, calendar: calendar),
            "previous": context.href(patientQuery + [("month", Self.monthText(previous, calendar: calendar))]),
            "next": context.href(patientQuery + [("month", Self.monthText(next, calendar: calendar))]),
            "taskCount": tasks.count,
            "weekdays": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
            "cells": cells,
        ]
        let heading = patient.map { "Care of \(Self.name(of: $0))" } ?? "Care in \(context.database)"
        return DashboardPanelContent(heading: heading, template: Self.template, values: values)
    }

    static let template = """
        <form method="get" action="{{path}}" class="row" id="care-form">
        {{#hasPatients}}<label>Patient <select name="patient">{{#patients}}<option value="{{id}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/patients}}</select></label>{{/hasPatients}}
        <label>Month <input type="month" name="month" value="{{month}}"></label>
        <button type="submit">Show</button>
        </form>
        <p class="pager"><a href="{{previous}}" rel="prev">Previous month</a> <strong>{{month}}</strong> <a href="{{next}}" rel="next">Next month</a> · {{taskCount}} tasks</p>
        <div class="calendar" id="care-calendar" role="grid" aria-label="Events of {{month}}">
        {{#weekdays}}<div class="weekday" role="columnheader">{{.}}</div>{{/weekdays}}
        {{#cells}}<div class="day {{state}}" role="gridcell">{{#date}}<strong>{{day}}</strong>{{#hasEvents}} <span class="adherence">{{done}}/{{total}}</span>
        <ul>{{#events}}<li>{{#done}}✓{{/done}}{{^done}}○{{/done}} {{title}}</li>{{/events}}</ul>{{/hasEvents}}{{/date}}</div>
        {{/cells}}
        </div>
        """

    /// The calendar's cells: blanks up to the month's first weekday, then one per day with its events and
    /// adherence; `state` is `full`, `partial` or `none` for past days with events that count.
    static func cells(
        of month: DateInterval, calendar: Calendar, now: Date, days: [String: [(title: String, done: Bool, counts: Bool)]]
    ) -> [[String: any Sendable]] {
        var cells: [[String: any Sendable]] = []
        let leading = (calendar.component(.weekday, from: month.start) - calendar.firstWeekday + 7) % 7
        for _ in 0..<leading { cells.append(["date": false, "state": "blank"]) }
        var day = month.start
        while day < month.end {
            let key = dayKey(day, calendar: calendar)
            let events = days[key] ?? []
            let counted = events.filter(\.counts)
            let done = counted.filter(\.done).count
            var state = ""
            if !counted.isEmpty, day <= now { state = done == counted.count ? "full" : done > 0 ? "partial" : "none" }
            cells.append([
                "date": true, "day": calendar.component(.day, from: day), "state": state, "hasEvents": !events.isEmpty,
                "done": done, "total": counted.count,
                "events": events.map { ["title": $0.title, "done": $0.done] as [String: any Sendable] },
            ])
            day = calendar.date(byAdding: .day, value: 1, to: day)!
        }
        return cells
    }

    /// One version per task: the newest by effective date.
    static func latestVersions(_ versions: [CareTask]) -> [CareTask] {
        var latest: [String: CareTask] = [:]
        for version in versions where latest[version.id].map({ $0.effectiveDate < version.effectiveDate }) ?? true {
            latest[version.id] = version
        }
        return Array(latest.values)
    }

    static func name(of patient: Patient) -> String {
        let parts = [patient.name.givenName, patient.name.familyName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? patient.id : parts.joined(separator: " ")
    }

    static func month(_ text: String?, calendar: Calendar) throws -> DateInterval? {
        guard let text, !text.isEmpty else { return nil }
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, (1...12).contains(parts[1]),
            let start = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: 1))
        else {
            throw CloudantError(.invalidInput, "'\(text)' is not a month (2024-06).", context: .init(field: "month"))
        }
        return calendar.dateInterval(of: .month, for: start)
    }

    static func dayKey(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    static func monthText(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month], from: date)
        return String(format: "%04d-%02d", parts.year ?? 0, parts.month ?? 0)
    }
}
