internal import CloudantCore
internal import Foundation

/// Routes each top-level element of `export.xml` to its decoder and records the outcome in the report.
enum ExportElementImporter {
    static func handle(
        _ element: XMLElementView, line: Int, folder: URL, cache: ExportValueCache, report: inout HealthImportReport,
        writer: inout BatchWriter
    ) {
        do {
            switch element.name {
            case "Record":
                report.recordsRead += 1
                let decoded = try ExportRecordDecoder.record(element, cache: cache)
                report.metadataEntries += decoded.metadata
                report.heartbeatEntries += decoded.beats
                report.samplesByType[decoded.sample.typeIdentifier, default: 0] += 1
                if let exportDate = report.exportDate, decoded.sample.startDate > exportDate {
                    report.futureDatedSamples += 1  // Kept as written; flagged because real exports carry them.
                }
                try add(decoded.sample, to: &writer)
            case "Correlation":
                let decoded = try ExportRecordDecoder.correlation(element, cache: cache)
                report.metadataEntries += decoded.metadata
                report.correlationMemberRecords += decoded.members
                report.correlationsByType[decoded.sample.typeIdentifier, default: 0] += 1
                try add(.correlation(decoded.sample), to: &writer)
            case "Workout":
                let decoded = try ExportWorkoutDecoder.workout(element, exportFolder: folder)
                report.metadataEntries += decoded.metadataEntries
                report.workoutsByType[decoded.workout.activityType, default: 0] += 1
                report.workoutRoutes += decoded.routes.count
                report.routePoints += decoded.routes.reduce(0) { $0 + $1.locations.count }
                for note in decoded.notes { report.skip("WorkoutRoute", line: line, reason: note.reason) }
                try add(.workout(decoded.workout), to: &writer)
                for route in decoded.routes { try add(.workoutRoute(route), to: &writer) }
            case "ExportDate":
                report.exportDate = element.attribute("value").flatMap(LocalTimestamp.init(parsing:))?.date
            case "Me":
                return  // The owner's characteristics (birth date, sex): not samples.
            case "ActivitySummary":
                try add(.activitySummary(try ExportActivitySummaryDecoder.summary(element)), to: &writer)
                report.activitySummaries += 1
            case "ClinicalRecord":
                let decoded = try ExportClinicalRecordDecoder.record(element, exportFolder: folder)
                try add(.clinicalRecord(decoded.sample), to: &writer)
                report.clinicalRecordsByType[decoded.exportType, default: 0] += 1
            default:
                report.skip(element.name, line: line, reason: "an element the importer does not know")
            }
        } catch let skip as ImportSkip {
            report.skip(skip.subject ?? element.name, line: line, reason: skip.reason)
        } catch {
            report.skip(element.name, line: line, reason: "could not be encoded: \(error)")
        }
    }

    private static func add(_ sample: AnyHealthSample, to writer: inout BatchWriter) throws {
        try writer.add(sample)
    }
}
