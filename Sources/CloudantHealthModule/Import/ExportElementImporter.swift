internal import CloudantCore
internal import Foundation

/// Routes each top-level element of `export.xml` to its decoder and records the outcome in the report.
struct ExportElementImporter {
    /// Where route and FHIR files are looked up; `nil` when `export.xml` came alone (standard input).
    let folder: URL?
    /// What the report calls `export.xml` (the path as given, or `standard input`).
    let file: String
    let cache = ExportValueCache()

    func handle(_ element: XMLElementView, line: Int, report: inout HealthImportReport, writer: inout BatchWriter) {
        do {
            switch element.name {
            case "Record":
                report.recordsRead += 1
                let decoded = try ExportRecordDecoder.record(element, cache: cache)
                report.metadataEntries += decoded.metadata
                report.heartbeatEntries += decoded.beats
                if decoded.isGeneric {
                    report.genericSamplesByType[decoded.sample.typeIdentifier, default: 0] += 1
                } else {
                    report.samplesByType[decoded.sample.typeIdentifier, default: 0] += 1
                }
                if let exportDate = report.exportDate, decoded.sample.startDate > exportDate {
                    report.futureDatedSamples += 1  // Kept as written; flagged because real exports carry them.
                }
                try writer.add(decoded.sample)
            case "Correlation":
                let decoded = try ExportRecordDecoder.correlation(element, cache: cache)
                report.metadataEntries += decoded.metadata
                report.correlationMemberRecords += decoded.members
                report.correlationsByType[decoded.sample.typeIdentifier, default: 0] += 1
                try writer.add(.correlation(decoded.sample))
            case "Workout":
                let decoded = try ExportWorkoutDecoder.workout(element, exportFolder: folder, cache: cache)
                report.metadataEntries += decoded.metadataEntries
                report.workoutsByType[decoded.workout.activityType, default: 0] += 1
                report.workoutRoutes += decoded.routes.count
                report.routePoints += decoded.routes.reduce(0) { $0 + $1.locations.count }
                report.workoutMemberRecords += decoded.members.count
                for skip in decoded.skips { report.skip(entry(for: skip, element: "WorkoutRoute", line: line)) }
                for warning in decoded.warnings { report.warn(entry(for: warning, element: "WorkoutRoute", line: line)) }
                try writer.add(.workout(decoded.workout))
                for route in decoded.routes { try writer.add(.workoutRoute(route)) }
                for member in decoded.members {
                    report.heartbeatEntries += member.beats
                    try writer.add(member.sample)
                }
            case "ExportDate":
                report.exportDate = element.attribute("value").flatMap(LocalTimestamp.init(parsing:))?.date
            case "Me":
                return  // The owner's characteristics (birth date, sex): not samples.
            case "ActivitySummary":
                try writer.add(.activitySummary(try ExportActivitySummaryDecoder.summary(element)))
                report.activitySummaries += 1
            case "ClinicalRecord":
                let decoded = try ExportClinicalRecordDecoder.record(element, exportFolder: folder)
                try writer.add(.clinicalRecord(decoded.sample))
                report.clinicalRecordsByType[decoded.exportType, default: 0] += 1
            default:
                let decoded = try ExportRecordDecoder.otherElement(element, cache: cache)
                report.metadataEntries += decoded.metadata
                report.genericSamplesByType[decoded.sample.typeIdentifier, default: 0] += 1
                try writer.add(decoded.sample)
            }
        } catch let skip as ImportSkip {
            report.skip(entry(for: skip, element: element.name, line: line, type: Self.type(of: element)))
        } catch {
            report.skip(.init(
                element: element.name, type: Self.type(of: element), file: file, line: line,
                reason: "could not be encoded: \(error)"))
        }
    }

    private func entry(for skip: ImportSkip, element: String, line: Int, type: String? = nil) -> HealthImportReport.Skipped {
        // A skip about another file (a route, a FHIR resource) names that file; the line is still export.xml's.
        HealthImportReport.Skipped(
            element: skip.subject.map { _ in element } ?? element, type: skip.type ?? type,
            file: skip.subject.map { "\(file) → \($0)" } ?? file, line: line, reason: skip.reason)
    }

    /// The type identifier an element names, for the report's totals by type.
    static func type(of element: XMLElementView) -> String? {
        element.attribute("type") ?? element.attribute("workoutActivityType")
    }
}
