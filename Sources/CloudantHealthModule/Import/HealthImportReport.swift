public import Foundation

/// What an Apple Health import read, wrote and skipped, and why. Nothing is dropped without a line here.
///
/// ```swift
/// let report = try await AppleHealthImporter(store: store).importExport(at: exportURL)
/// print(report.samplesByType["HKQuantityTypeIdentifierHeartRate"] ?? 0, report.skippedByReason)
/// ```
public struct HealthImportReport: Codable, Hashable, Sendable {
    /// One element that was not imported (or imported only in part).
    public struct Skipped: Codable, Hashable, Sendable {
        /// The element (`Record`, `ActivitySummary`, `WorkoutRoute`), or the file at fault (an archive member,
        /// a `<ClinicalRecord>`'s `resourceFilePath`).
        public var element: String
        /// The line in `export.xml`, when the element came from it.
        public var line: Int?
        /// Why.
        public var reason: String
    }

    /// Where the XML parser stopped before the end of a document, and why.
    public struct ParseStop: Codable, Hashable, Sendable {
        /// The line of `export.xml` where parsing stopped.
        public var line: Int?
        /// libxml2's message, or what was missing.
        public var reason: String

        /// Creates a stop.
        public init(line: Int?, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    /// Set when `export.xml` could not be read to its end (a damaged or cut-short file): everything before
    /// ``ParseStop/line`` was imported, nothing after it was read. `nil` for a complete import.
    public var stoppedEarly: ParseStop?

    /// Whether the whole of `export.xml` was read.
    public var isComplete: Bool { stoppedEarly == nil }

    /// The export's `<ExportDate>`, when present.
    public var exportDate: Date?
    /// Records starting after ``exportDate``: imported as written, counted because they are suspicious.
    public var futureDatedSamples = 0
    /// Top-level `<Record>` elements read (the generator's `records_total`).
    public var recordsRead = 0
    /// Top-level records imported, by HealthKit type identifier.
    public var samplesByType: [String: Int] = [:]
    /// Correlations imported, by type identifier.
    public var correlationsByType: [String: Int] = [:]
    /// Records embedded in correlations.
    public var correlationMemberRecords = 0
    /// Workouts imported, by activity type.
    public var workoutsByType: [String: Int] = [:]
    /// `<WorkoutRoute>` elements imported.
    public var workoutRoutes = 0
    /// Route points read from GPX files.
    public var routePoints = 0
    /// `<MetadataEntry>` elements read.
    public var metadataEntries = 0
    /// Heart-rate-variability beats read.
    public var heartbeatEntries = 0
    /// CDA documents imported (`export_cda.xml`).
    public var cdaDocuments = 0
    /// `<ActivitySummary>` elements imported, one per day.
    public var activitySummaries = 0
    /// `<ClinicalRecord>` elements imported with their FHIR resource, by the export's `type` (`Observation`,
    /// `MedicationOrder`, or an `HKClinicalTypeIdentifier…`, as the export writes it).
    public var clinicalRecordsByType: [String: Int] = [:]
    /// Documents newly written to the store.
    public var documentsWritten = 0
    /// Documents already in the store with the same content-derived id: a re-import, or a record the export
    /// repeats. They are left as they are.
    public var documentsAlreadyStored = 0
    /// Forbidden control characters replaced by spaces before parsing (iOS 16's U+000B in source names).
    public var replacedControlCharacters = 0
    /// Declarations of `export.xml`'s internal DTD that had lost their closing `>` (iOS 16) and were closed.
    public var repairedDTDDeclarations = 0
    /// What libxml2 recovered from (a broken DTD, trailing content), first ``HealthImportReport/diagnosticLimit`` only.
    public var parserDiagnostics: [String] = []
    /// How many diagnostics there were in all.
    public var parserDiagnosticCount = 0
    /// Skipped elements, first ``HealthImportReport/skippedLimit`` only; ``skippedByReason`` counts all.
    public var skipped: [Skipped] = []
    /// Every skip, counted by reason.
    public var skippedByReason: [String: Int] = [:]
    /// Bytes of `export.xml` read.
    public var bytesRead = 0

    /// How many skipped elements are listed one by one.
    public static let skippedLimit = 1000
    /// How many parser diagnostics are listed.
    public static let diagnosticLimit = 100

    /// Creates an empty report.
    public init() {}

    /// Skipped elements in all.
    public var skippedCount: Int { skippedByReason.values.reduce(0, +) }

    mutating func skip(_ element: String, line: Int?, reason: String) {
        skippedByReason[reason, default: 0] += 1
        if skipped.count < Self.skippedLimit { skipped.append(Skipped(element: element, line: line, reason: reason)) }
    }
}

/// How far an import has got, for progress bars.
public struct HealthImportProgress: Sendable, Hashable {
    /// Bytes of `export.xml` read so far.
    public var bytesRead: Int
    /// Its size in bytes.
    public var totalBytes: Int
    /// Documents written or found already stored so far.
    public var documentsProcessed: Int
}
