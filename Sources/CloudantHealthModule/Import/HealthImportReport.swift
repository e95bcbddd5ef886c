public import Foundation

/// What an Apple Health import read, wrote and skipped, and why. Nothing is dropped without a line here.
///
/// ```swift
/// let report = try await AppleHealthImporter(store: store).importExport(at: exportURL)
/// print(report.samplesByType["HKQuantityTypeIdentifierHeartRate"] ?? 0, report.genericSamplesByType)
/// print(report.documentsNew, report.documentsUnchanged, report.documentsChanged)
/// for skip in report.skipped { print("\(skip.file ?? "?"):\(skip.line ?? 0): \(skip.reason)") }
/// ```
///
/// Every top-level `<Record>` read ends up in exactly one of ``samplesByType`` (a quantity or category
/// sample), ``genericSamplesByType`` (kept as a ``GenericSample``) or ``skippedByType`` (not imported, with
/// its line in ``skipped``).
public struct HealthImportReport: Codable, Hashable, Sendable {
    /// One element that was not imported, or imported without something it names.
    public struct Skipped: Codable, Hashable, Sendable {
        /// The element (`Record`, `ActivitySummary`, `WorkoutRoute`), or the file at fault (an archive member,
        /// a `<ClinicalRecord>`'s `resourceFilePath`, a route file).
        public var element: String
        /// The record's type identifier (`type`, or a workout's activity type), when it has one.
        public var type: String?
        /// The file the element is in (`export.xml` as given, `standard input`, a side file).
        public var file: String?
        /// The line in that file, when the element came from `export.xml`.
        public var line: Int?
        /// Why.
        public var reason: String

        /// Creates an entry.
        public init(element: String, type: String? = nil, file: String? = nil, line: Int? = nil, reason: String) {
            self.element = element
            self.type = type
            self.file = file
            self.line = line
            self.reason = reason
        }
    }

    /// Where the XML parser stopped before the end of a document, and why.
    public struct ParseStop: Codable, Hashable, Sendable {
        /// The file (`export.xml` as given, or `standard input`).
        public var file: String?
        /// The line where parsing stopped.
        public var line: Int?
        /// libxml2's message, or what was missing.
        public var reason: String

        /// Creates a stop.
        public init(file: String? = nil, line: Int?, reason: String) {
            self.file = file
            self.line = line
            self.reason = reason
        }
    }

    /// Where a resumed import started: the earlier run committed everything before it.
    public struct ResumePoint: Codable, Hashable, Sendable {
        /// Top-level elements of `export.xml` passed over without being read again.
        public var elements: Int
        /// The line the earlier run had committed up to.
        public var line: Int?

        /// Creates a resume point.
        public init(elements: Int, line: Int?) {
            self.elements = elements
            self.line = line
        }
    }

    /// Set when `export.xml` could not be read to its end (a damaged or cut-short file): everything before
    /// ``ParseStop/line`` was imported, nothing after it was read. `nil` for a complete import. Importing
    /// again continues after what was committed (``resumedFrom``).
    public var stoppedEarly: ParseStop?

    /// Whether the whole of `export.xml` was read.
    public var isComplete: Bool { stoppedEarly == nil }

    /// Set when this import continued one that stopped early or was cancelled: the counts are the whole
    /// export's, the earlier run's part included.
    public var resumedFrom: ResumePoint?

    /// The export's `<ExportDate>`, when present.
    public var exportDate: Date?
    /// Records starting after ``exportDate``: imported as written, counted because they are suspicious.
    public var futureDatedSamples = 0
    /// Top-level `<Record>` elements read (the generator's `records_total`).
    public var recordsRead = 0
    /// Top-level records imported as quantity or category samples, by HealthKit type identifier.
    public var samplesByType: [String: Int] = [:]
    /// Top-level records of a type the store does not model (`HKDataTypeSleepDurationGoal`, an app's own
    /// identifier), or whose value the typed sample cannot hold, kept as ``GenericSample``s: by type as written.
    public var genericSamplesByType: [String: Int] = [:]
    /// Correlations imported, by type identifier.
    public var correlationsByType: [String: Int] = [:]
    /// Records embedded in correlations.
    public var correlationMemberRecords = 0
    /// Records inside `<Workout>` elements (iOS 18's effort score), each stored as its own sample.
    public var workoutMemberRecords = 0
    /// Workouts imported, by activity type.
    public var workoutsByType: [String: Int] = [:]
    /// Workout routes stored (a route file a workout lists twice is one route).
    public var workoutRoutes = 0
    /// Route points read from GPX files or, in exports before iOS 13, from `<Location>` elements.
    public var routePoints = 0
    /// `<MetadataEntry>` elements read.
    public var metadataEntries = 0
    /// Heart-rate-variability beats read.
    public var heartbeatEntries = 0
    /// CDA documents imported (`export_cda.xml`).
    public var cdaDocuments = 0
    /// Electrocardiograms imported from `electrocardiograms/*.csv` (as ``GenericSample``s).
    public var electrocardiograms = 0
    /// `<ActivitySummary>` elements imported, one per day.
    public var activitySummaries = 0
    /// `<ClinicalRecord>` elements imported with their FHIR resource, by the export's `type` (`Observation`,
    /// `MedicationOrder`, or an `HKClinicalTypeIdentifier…`, as the export writes it).
    public var clinicalRecordsByType: [String: Int] = [:]
    /// Documents that were not in the store.
    public var documentsNew = 0
    /// Documents already stored with the same content: a re-import, a record the export repeats, or one a
    /// user deleted since (it stays deleted).
    public var documentsUnchanged = 0
    /// Documents stored under the same key with other content (a source renamed, a sample edited through
    /// its sync identifier, a day's activity completed, a workout in a newer export format): updated to a
    /// new revision.
    public var documentsChanged = 0
    /// Documents written: new and changed.
    public var documentsWritten = 0
    /// Forbidden control characters replaced by spaces before parsing (iOS 16's U+000B in source names).
    public var replacedControlCharacters = 0
    /// Declarations of `export.xml`'s internal DTD that had lost their closing `>` (iOS 16) and were closed.
    public var repairedDTDDeclarations = 0
    /// What libxml2 recovered from (a broken DTD, trailing content), first ``HealthImportReport/diagnosticLimit`` only.
    public var parserDiagnostics: [String] = []
    /// How many diagnostics there were in all.
    public var parserDiagnosticCount = 0
    /// Elements not imported, each once, first ``HealthImportReport/skippedLimit`` only; ``skippedByReason``
    /// and ``skippedByType`` count all.
    public var skipped: [Skipped] = []
    /// Every skip, counted by reason.
    public var skippedByReason: [String: Int] = [:]
    /// Every skip, counted by the record's type (or the element's name when it has none).
    public var skippedByType: [String: Int] = [:]
    /// Elements imported without something they name (a route whose file is missing is stored without
    /// locations), first ``HealthImportReport/skippedLimit`` only.
    public var warnings: [Skipped] = []
    /// Every warning, counted by reason.
    public var warningsByReason: [String: Int] = [:]
    /// Bytes of `export.xml` read.
    public var bytesRead = 0

    /// How many skipped elements (and warnings) are listed one by one.
    public static let skippedLimit = 1000
    /// How many parser diagnostics are listed.
    public static let diagnosticLimit = 100

    /// Creates an empty report.
    public init() {}

    /// Skipped elements in all.
    public var skippedCount: Int { skippedByReason.values.reduce(0, +) }

    /// Documents already stored as they are (the name before ``documentsUnchanged``).
    @available(*, deprecated, renamed: "documentsUnchanged")
    public var documentsAlreadyStored: Int { documentsUnchanged }

    mutating func skip(_ entry: Skipped) {
        skippedByReason[entry.reason, default: 0] += 1
        skippedByType[entry.type ?? entry.element, default: 0] += 1
        if skipped.count < Self.skippedLimit { skipped.append(entry) }
    }

    mutating func warn(_ entry: Skipped) {
        // Once per element, file and reason: a workout naming one missing file twice is one warning.
        if warnings.last == entry { return }
        warningsByReason[entry.reason, default: 0] += 1
        if warnings.count < Self.skippedLimit { warnings.append(entry) }
    }
}

/// How far an import has got, for progress bars.
public struct HealthImportProgress: Sendable, Hashable {
    /// Bytes of `export.xml` read so far.
    public var bytesRead: Int
    /// Its size in bytes (0 when unknown: standard input).
    public var totalBytes: Int
    /// Documents written or found already stored so far.
    public var documentsProcessed: Int
}
