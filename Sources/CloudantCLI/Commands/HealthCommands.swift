internal import ArgumentParser
internal import CloudantHealth
internal import Foundation

// The health commands: `cloudant health import|samples`, `cloudant cda`, `cloudant route export`
// (`health stats` is in HealthStatsCommand.swift). One file because they share the store helper, the date
// parsing and the progress bar; each command is small.

/// `cloudant health …`: Apple Health exports and HealthKit-style samples in a store.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Import Apple Health exports and read HealthKit-style samples.",
        discussion: """
            Every health command uses the store `health` unless --db names another.

            Examples:
              cloudant health import ~/Downloads/export.zip
              cloudant health samples --type HKQuantityTypeIdentifierHeartRate \\
                --from 2024-06-01T00:00:00Z
              cloudant health stats --type HKQuantityTypeIdentifierStepCount \\
                --from 2024-06-01 --to 2024-07-01 --by day --tz America/Los_Angeles
              cloudant health chart --type HKQuantityTypeIdentifierHeartRate \\
                --from 2024-01-01 --to 2025-01-01 --out heart-rate.svg
              cloudant health route --workout 6F1C2B1E-0E52-4C43-9D0E-0A8E7A4C9F10 --out run.svg
            """,
        subcommands: [
            HealthImportCommand.self, HealthSamplesCommand.self, HealthStatsCommand.self, HealthChartCommand.self,
            HealthRouteCommand.self,
        ])
}

/// `cloudant health import PATH|- [--db NAME] [--batch-size N]`.
struct HealthImportCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an Apple Health export: export.zip, its folder, export.xml, gzipped, or - for standard input.",
        discussion: """
            Formats are told apart by their first bytes. Beside a bare export.xml, export_cda.xml, \
            workout-routes/, electrocardiograms/ and clinical-records/ are read when present. Records of types \
            the store does not model are kept as generic samples (HKSample) and counted.

            A progress bar goes to standard error when it is a terminal, then a summary table; the full import \
            report is JSON on standard output, with how many documents were new, unchanged and changed. \
            Importing the same export again adds nothing; a newer export adds what is new. When export.xml cannot \
            be read to its end (a damaged or cut-short file), what came before is imported, the report says \
            where it stopped ("stoppedEarly": file, line, reason), and the exit status is 2 (invalid input); \
            importing it again continues after what was committed ("resumedFrom"). A file that is not an Apple \
            Health export is refused with exit status 2 and nothing written.

            Examples:
              cloudant --data ./me health import ~/Downloads/export.zip
              cloudant health import apple_health_export/export.xml
              gunzip -c export.xml.gz | cloudant health import -
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: HealthDatabaseOption
    @Option(name: .customLong("batch-size"), help: "Documents per transaction.") var batchSize = 2_000
    @Argument(help: "export.zip, the apple_health_export folder (or one holding it), export.xml, any of them gzipped, or - for standard input.")
    var path: String

    func execute() async throws {
        let store = try global.openHealth(database.db)
        let importer = AppleHealthImporter(store: store, batchSize: batchSize)
        let clock = ContinuousClock()
        let started = clock.now
        let report: HealthImportReport
        do {
            if path == "-" {
                report = try await importer.importExport(reading: .standardInput) { HealthProgressBar.show($0) }
            } else {
                report = try await importer.importExport(at: URL(fileURLWithPath: path)) { HealthProgressBar.show($0) }
            }
        } catch {
            HealthProgressBar.finish()
            throw error
        }
        HealthProgressBar.finish()
        let elapsed = clock.now - started
        StandardStreams.error(Data(HealthImportSummary.table(report, elapsed: elapsed).utf8))
        Output.print(try JSONValue(encoding: report))
        if let stop = report.stoppedEarly {
            // What was read is imported (and printed above), but the export was not read to its end.
            let file = stop.file ?? "export.xml"
            throw CloudantError(
                .invalidHealthExport,
                "\(file) could not be read past line \(stop.line.map(String.init) ?? "?") (\(stop.reason)); the "
                    + "elements before it were imported, none after it. Import the complete file (or a new export "
                    + "from the Health app): the import continues after what was committed.",
                context: .init(field: file))
        }
    }
}

/// `cloudant health samples --db NAME --type ID [--from ISO8601] [--to ISO8601]`.
struct HealthSamplesCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "Print the samples of one HealthKit type as a JSON array, ordered by start date.",
        discussion: """
            --from includes samples starting at that instant, --to excludes them. Dates are ISO 8601 \
            (2024-06-01T13:00:00-07:00, 2024-06-01T20:00:00Z or 2024-06-01 for midnight UTC).

            Example:
              cloudant health samples --type HKQuantityTypeIdentifierStepCount \\
                --from 2024-06-01 --to 2024-06-02
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: HealthDatabaseOption
    @Option(help: ArgumentHelp("A HealthKit type identifier.", valueName: "HK…Identifier")) var type: String
    @Option(help: "Only samples starting at or after this instant (ISO 8601).") var from: String?
    @Option(help: "Only samples starting before this instant (ISO 8601).") var to: String?

    func execute() async throws {
        let store = try global.openHealth(database.db, mustExist: true)
        var interval: DateInterval?
        if from != nil || to != nil {
            let start = try from.map { try HealthCLIDates.parse($0, field: "from") } ?? .distantPast
            let end = try to.map { try HealthCLIDates.parse($0, field: "to") } ?? .distantFuture
            guard end >= start else {
                throw CloudantError(.invalidInput, "--to must not be before --from.", context: .init(field: "to"))
            }
            interval = DateInterval(start: start, end: end)
        }
        let samples = try await HealthStore(store: store).samples(ofType: type, in: interval)
        Output.print(.array(try samples.map(Self.json)))
    }

    /// The sample's document, with its start and end as they were written (`startLocal`, `endLocal`: ISO 8601
    /// in the offset the sample was recorded in) beside the UTC instants.
    static func json(_ sample: AnyHealthSample) throws -> JSONValue {
        guard case .object(var object) = try JSONValue(encoding: sample.sample) else { return .null }
        if let start = sample.sample.localStartDate?.iso8601 { object["startLocal"] = .string(start) }
        if let end = sample.sample.localEndDate?.iso8601 { object["endLocal"] = .string(end) }
        return .object(object)
    }
}

/// `cloudant cda PATH`: the fields of an HL7 CDA document, as JSON.
struct CDACommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "cda",
        abstract: "Print an HL7 CDA document's title, names, effective time, type and sections as JSON.",
        discussion: """
            The names are HKCDADocument's: title, patientName, authorName, custodianName. XML that is not a CDA \
            document exits non-zero with a CouchDB-style {"error","reason"} on standard error. A CDA document \
            that libxml2 can only read by recovering (Apple's export_cda.xml from iOS 13 to 17 goes on after \
            </ClinicalDocument>) is printed with "recoveredErrors" and a warning on standard error.

            Example: cloudant cda ~/Downloads/apple_health_export/export_cda.xml
            """)
    @Argument(help: "A CDA XML file (export_cda.xml, a C-CDA document).") var path: String

    func execute() async throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CloudantError(.notFound, "Cannot read \(path); check the path.", context: .init(field: "PATH"))
        }
        let document: CDADocument
        do {
            document = try Self.read(data)
        } catch let error as CloudantError {
            throw error.adding { $0.field = $0.field ?? "PATH" }
        }
        var object: JSONObject = [
            "title": document.title.map(JSONValue.string) ?? .null,
            "patientName": document.patientName.map(JSONValue.string) ?? .null,
            "authorName": document.authorName.map(JSONValue.string) ?? .null,
            "custodianName": document.custodianName.map(JSONValue.string) ?? .null,
            "effectiveTime": document.effectiveTime.map { .string($0.text) } ?? .null,
            "documentType": try JSONValue(encoding: document.documentType),
            "sections": try JSONValue(encoding: document.sections),
        ]
        if let time = document.effectiveTime { object["effectiveDate"] = try JSONValue(encoding: time.date) }
        if !document.recoveredErrors.isEmpty {
            object["recoveredErrors"] = try JSONValue(encoding: document.recoveredErrors)
            let why = document.recoveredErrors.joined(separator: "; ")
            let warning = "warning: \(path) is not well-formed XML; read by recovering: \(why)\n"
            StandardStreams.error(Data(warning.utf8))
        }
        Output.print(.object(object))
    }

    /// Reads strictly, and recovering only when strict reading fails on malformed XML and what libxml2 recovers
    /// is a CDA document; otherwise the strict error stands, so other XML is still refused.
    private static func read(_ data: Data) throws -> CDADocument {
        do {
            return try CDADocument(parsing: data)
        } catch let strict as CloudantError where strict.code == .invalidXML {
            guard let recovered = try? CDADocument(parsing: data, limits: XMLParseLimits(recover: true)) else {
                throw strict
            }
            return recovered
        }
    }
}

/// `cloudant route …`: workout routes.
struct RouteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route", abstract: "Export workout routes.",
        discussion: """
            Example:
              cloudant route export --gpx \\
                --workout 6F1C2B1E-0E52-4C43-9D0E-0A8E7A4C9F10 > run.gpx
            """,
        subcommands: [RouteExportCommand.self])
}

/// `cloudant route export --db NAME --workout ID --gpx`.
struct RouteExportCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print a workout's route as GPX 1.1 on standard output.",
        discussion: """
            ID is the workout's document id or its uuid. A workout with several routes prints one track with \
            all their points in time order. Reads the store `health` unless --db names another.

            Example:
              cloudant route export --gpx \\
                --workout 6F1C2B1E-0E52-4C43-9D0E-0A8E7A4C9F10 > run.gpx
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: HealthDatabaseOption
    @Option(help: "The workout's document id or uuid.") var workout: String
    @Flag(help: "Write GPX 1.1 (the only format so far).") var gpx = false

    func execute() async throws {
        guard gpx else {
            throw CloudantError(.invalidInput, "Name the format: pass --gpx.", context: .init(field: "gpx"))
        }
        let store = try global.openHealth(database.db, mustExist: true)
        let (found, locations) = try await HealthStore(store: store).route(ofWorkout: workout)
        let name = "\(found.activityType) \(HealthCLIDates.format(found.startDate))"
        StandardStreams.output(GPXRoute(name: name, locations: locations).gpxData())
    }
}

extension GlobalOptions {
    /// Opens `name` with the health kinds registered, so their indexes exist; creates it unless `mustExist`.
    func openHealth(_ name: String, mustExist: Bool = false) throws -> DocumentStore {
        if mustExist, try !stores.containsStore(name) {
            throw CloudantError(.notFound, "Database does not exist.", context: .init(database: name))
        }
        let registry = try EntityRegistry(plugins: [HealthPlugin()])
        return try DocumentStore.open(name: name, in: stores, options: try storeOptions(registry: registry))
    }
}

/// ISO 8601 dates on the command line, read and written by the store's own ISO 8601 code
/// (``ISO8601Timestamp``): an RFC 3339 date-time, or a day alone (midnight UTC).
enum HealthCLIDates {
    static func parse(_ text: String, field: String) throws -> Date {
        let isDayAlone = text.utf8.count == 10 && text.utf8.allSatisfy { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) }
        if let date = ISO8601Timestamp.date(from: isDayAlone ? text + "T00:00:00Z" : text) { return date }
        throw CloudantError(
            .invalidInput, "'\(text)' is not an ISO 8601 date; write 2024-06-01T13:00:00-07:00 or 2024-06-01.",
            context: .init(field: field))
    }

    static func format(_ date: Date) -> String {
        ISO8601Timestamp.string(from: date, fractionalSeconds: false) ?? "\(date.timeIntervalSince1970)"
    }
}

/// An import's progress: the share of the export read, and the documents made.
enum HealthProgressBar {
    static func show(_ step: HealthImportProgress) {
        let fraction = step.totalBytes > 0 ? Double(step.bytesRead) / Double(step.totalBytes) : 0
        TerminalProgressBar.show(fraction: fraction, "\(step.documentsProcessed) documents")
    }

    static func finish() { TerminalProgressBar.finish() }
}

/// The human-readable table that ends `cloudant health import`.
enum HealthImportSummary {
    static func table(_ report: HealthImportReport, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var rows: [(String, String)] = []
        if let resumed = report.resumedFrom {
            rows.append(("resumed after line", "\(resumed.line.map(String.init) ?? "?") (\(resumed.elements) elements)"))
        }
        rows.append(("records read", "\(report.recordsRead)"))
        rows += byKey(report.samplesByType)
        rows.append(("kept as generic samples", total(report.genericSamplesByType)))
        rows += byKey(report.genericSamplesByType)
        rows.append(("correlations", total(report.correlationsByType)))
        rows.append(("correlation member records", "\(report.correlationMemberRecords)"))
        rows.append(("workouts", total(report.workoutsByType)))
        rows.append(("workout routes", "\(report.workoutRoutes)"))
        rows.append(("route points", "\(report.routePoints)"))
        rows.append(("CDA documents", "\(report.cdaDocuments)"))
        rows.append(("electrocardiograms", "\(report.electrocardiograms)"))
        rows.append(("activity summaries", "\(report.activitySummaries)"))
        rows.append(("clinical records", total(report.clinicalRecordsByType)))
        rows += byKey(report.clinicalRecordsByType)
        rows.append(("documents new", "\(report.documentsNew)"))
        rows.append(("documents unchanged", "\(report.documentsUnchanged)"))
        rows.append(("documents changed", "\(report.documentsChanged)"))
        rows.append(("skipped", "\(report.skippedCount)"))
        rows += byKey(report.skippedByType)
        if !report.warningsByReason.isEmpty {
            rows.append(("warnings", total(report.warningsByReason)))
            rows += byKey(report.warningsByReason)
        }
        if report.parserDiagnosticCount > 0 { rows.append(("parser diagnostics", "\(report.parserDiagnosticCount)")) }
        if let stop = report.stoppedEarly {
            rows.append(("INCOMPLETE: stopped at line", "\(stop.line.map(String.init) ?? "?"): \(stop.reason)"))
        }
        // Each skipped element once, with its file and line (the JSON report has them all, up to its limit).
        for skip in report.skipped.prefix(20) {
            let place = "\(skip.file ?? "?"):\(skip.line.map(String.init) ?? "-")"
            rows.append(("  skipped \(skip.type ?? skip.element)", "\(place) \(skip.reason)"))
        }
        if report.skipped.count > 20 { rows.append(("  …", "\(report.skipped.count - 20) more in the JSON report")) }
        let rate = seconds > 0 ? Int(Double(report.recordsRead) / seconds) : 0
        rows.append(("time", String(format: "%.2f s (%ld records/s)", seconds, rate)))
        let keyWidth = rows.map(\.0.count).max() ?? 0
        let valueWidth = rows.map(\.1.count).max() ?? 0
        let rule = String(repeating: "-", count: keyWidth + valueWidth + 3) + "\n"
        let body = rows.map { key, value in
            key.padding(toLength: keyWidth, withPad: " ", startingAt: 0) + "   "
                + String(repeating: " ", count: valueWidth - value.count) + value + "\n"
        }.joined()
        return "Apple Health import\n" + rule + body + rule
    }

    /// One indented row per key, in key order: a count's breakdown under its total.
    private static func byKey(_ counts: [String: Int]) -> [(String, String)] {
        counts.sorted { $0.key < $1.key }.map { ("  \($0.key)", "\($0.value)") }
    }

    /// The sum of a breakdown's counts, as its row shows it.
    private static func total(_ counts: [String: Int]) -> String { "\(counts.values.reduce(0, +))" }
}
