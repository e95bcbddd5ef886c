internal import CloudantCore
public import CloudantStore
public import Foundation

/// Imports an Apple Health export ("Export All Health Data") into a store: `export.xml` streamed with
/// libxml2's reader in constant memory, the route files its workouts name, the FHIR resources its
/// `<ClinicalRecord>`s name, `export_cda.xml` and `electrocardiograms/*.csv`.
///
/// ```swift
/// let importer = AppleHealthImporter(store: store, batchSize: 5_000)
/// let report = try await importer.importExport(at: URL(fileURLWithPath: "Downloads/export.zip"))
/// print(report.documentsNew, report.documentsUnchanged, report.documentsChanged, report.skippedByType)
/// ```
///
/// - Any layout: `export.zip`, the unzipped folder, a bare `export.xml` (its side files looked up beside it),
///   gzip-compressed files, or standard input (``importExport(reading:name:workDirectory:progress:)``).
///   Formats are told apart by their first bytes. See ``HealthImportReport`` for what is counted.
/// - Nothing is dropped silently: a record of a type the store does not model is kept as a ``GenericSample``;
///   what cannot be kept at all is listed once in ``HealthImportReport/skipped`` with its file and line.
/// - Idempotent: each record's id is a stable key (``HealthImportReport`` explains new, unchanged and
///   changed). Importing the same export again adds nothing; a newer export adds what is new and updates what
///   changed. A sample deleted since an earlier import stays deleted.
/// - Resumable: an import that stops before the end of `export.xml` (a cut-short or damaged file, a
///   cancelled task) keeps what it committed, and the next import of the same export continues after it
///   (``HealthImportReport/resumedFrom``) instead of reading it all again.
/// - Tolerant of real export defects: the broken `<!ATTLIST>` of iOS 16, forbidden control characters
///   (replaced and counted), trailing content in `export_cda.xml`, missing route files, missing or malformed
///   FHIR resource files. A `resourceFilePath` that would leave the export folder is refused.
/// - Apple's internal DTD is accepted; external entities and DTDs are never loaded.
/// - Samples from different sources stay separate documents; statistics merge them by source priority.
/// - Cancel the calling task to stop between batches; what was written stays written.
public struct AppleHealthImporter: Sendable {
    /// The store written to; it must have ``HealthPlugin`` installed for typed reads.
    public let store: DocumentStore
    /// Documents per transaction.
    public let batchSize: Int

    /// Creates an importer.
    public init(store: DocumentStore, batchSize: Int = 2_000) {
        self.store = store
        self.batchSize = max(1, batchSize)
    }

    /// Imports the export at `location`: `export.zip`, the export folder (`apple_health_export/`, or a folder
    /// containing it), a bare `export.xml`, or any of them gzip-compressed.
    ///
    /// From a zip, `export.xml` is parsed as it is inflated; the small members (route files, the CDA) are
    /// unpacked into a fresh folder under `workDirectory` first, and that folder is removed after.
    /// - Parameters:
    ///   - location: The export: `export.zip`, its folder, a bare `export.xml`, or any of them gzipped.
    ///   - workDirectory: Where a zip's small members are unpacked for the import.
    ///   - progress: called after each batch.
    /// - Throws: `CloudantError` `.notFound` when nothing is at `location`; `.invalidHealthExport` when it is
    ///   not an Apple Health export (no `export.xml`, another root element, not XML), naming the file and the
    ///   line; or a store error when a batch cannot be written (earlier batches stay written).
    public func importExport(
        at location: URL, workDirectory: URL = FileManager.default.temporaryDirectory,
        progress: (@Sendable (HealthImportProgress) -> Void)? = nil
    ) async throws -> HealthImportReport {
        var locator = ExportLocator(workDirectory: workDirectory)
        defer { locator.removeTemporaryFiles() }
        return try await importLocated(try locator.locate(location), progress: progress)
    }

    /// Imports the export read from `handle` (standard input: `cat export.xml | cloudant health import -`), as
    /// XML, gzip or zip. Without a folder, route files and FHIR resources named by `export.xml` are reported
    /// as not read (unless a zip brought them).
    /// - Parameters:
    ///   - handle: The input, read to its end.
    ///   - name: what errors and the report call the input.
    ///   - workDirectory: Where a zip's small members are unpacked for the import.
    ///   - progress: Called after each batch.
    /// - Throws: as ``importExport(at:workDirectory:progress:)``.
    public func importExport(
        reading handle: FileHandle, name: String = "standard input",
        workDirectory: URL = FileManager.default.temporaryDirectory,
        progress: (@Sendable (HealthImportProgress) -> Void)? = nil
    ) async throws -> HealthImportReport {
        var locator = ExportLocator(workDirectory: workDirectory)
        defer { locator.removeTemporaryFiles() }
        return try await importLocated(try locator.locate(reading: handle, name: name), progress: progress)
    }

    private func importLocated(
        _ located: ExportLocator.Located, progress: (@Sendable (HealthImportProgress) -> Void)?
    ) async throws -> HealthImportReport {
        let stream = try HealthExportStream(input: SanitizingFileInput(located.input), name: located.name)
        var report = try await importStream(stream, located: located, progress: progress)
        for name in located.refusedMembers {
            report.skip(.init(element: name, file: located.name, reason: "an archive member whose path leaves the export folder"))
        }
        return report
    }

    /// Imports `export.xml` from `stream` (continuing after a checkpoint), then the side files.
    private func importStream(
        _ stream: HealthExportStream, located: ExportLocator.Located,
        progress: (@Sendable (HealthImportProgress) -> Void)?
    ) async throws -> HealthImportReport {
        var report = HealthImportReport()
        let checkpoints = ImportCheckpointStore(store: store, head: stream.headBytes)
        let startSequence = try await store.info().updateSeq
        var writer = BatchWriter(
            store: store, batchSize: batchSize, startSequence: startSequence, checkpoints: checkpoints)
        let importer = ExportElementImporter(folder: located.folder, file: located.name)
        // The writer pages for a bulk load meanwhile (no memory map, a larger cache); see `bulkLoading`.
        try await store.bulkLoading {
            do {
                var elements = 0
                var line: Int?
                var resumedElements = 0
                if let resumed = await checkpoints?.load() {
                    report = resumed.report
                    report.resumedFrom = .init(elements: resumed.elements, line: resumed.line)
                    // This run reads the export's head again and recounts what libxml2 recovers from.
                    report.parserDiagnostics = []
                    report.parserDiagnosticCount = 0
                    resumedElements = resumed.elements
                    while elements < resumed.elements, try stream.skipNext() { elements += 1 }
                    line = resumed.line
                }
                // A checkpoint only ever moves forward (a shorter copy of the export leaves the last one as it is).
                func position() -> (elements: Int, line: Int?)? { elements >= resumedElements ? (elements, line) : nil }
                while let (element, elementLine) = try stream.next() {
                    importer.handle(element, line: elementLine, report: &report, writer: &writer)
                    elements += 1
                    line = elementLine
                    if writer.isFull {
                        try await writer.flush(into: &report, checkpointAt: position())
                        try Task.checkCancellation()
                        progress?(HealthImportProgress(
                            bytesRead: stream.bytesRead, totalBytes: located.totalBytes, documentsProcessed: writer.processed))
                    }
                }
                // The last of export.xml goes in its own batch, so the checkpoint counts none of the side files.
                try await writer.flush(into: &report, checkpointAt: position())
                if let folder = located.folder {
                    importCDA(in: folder, report: &report, writer: &writer)
                    importElectrocardiograms(in: folder, report: &report, writer: &writer)
                }
                try await writer.finish(into: &report)
                if stream.stoppedEarly == nil { try await checkpoints?.clear() }
            } catch {
                await writer.abandon()
                throw error
            }
        }
        report.replacedControlCharacters = stream.replacedCharacters
        report.repairedDTDDeclarations = stream.repairedDeclarations
        report.parserDiagnostics = stream.diagnostics + report.parserDiagnostics
        report.parserDiagnosticCount += stream.diagnosticCount
        report.bytesRead = stream.bytesRead
        report.stoppedEarly = stream.stoppedEarly
        progress?(HealthImportProgress(
            bytesRead: stream.bytesRead, totalBytes: located.totalBytes, documentsProcessed: writer.processed))
        return report
    }

    /// `export_cda.xml`, keyed by its patient and title: a newer export's CDA (a superset) replaces the last.
    private func importCDA(in folder: URL, report: inout HealthImportReport, writer: inout BatchWriter) {
        let file = folder.appendingPathComponent("export_cda.xml")
        guard let data = try? Data(contentsOf: file) else { return }
        do {
            let limits = XMLParseLimits(maximumBytes: 512 << 20, recover: true)
            let document = try CDADocument(parsing: data, limits: limits)
            let start = document.effectiveTime?.date ?? Date(timeIntervalSince1970: 0)
            let uuid = ImportKey.uuid(
                ["export_cda.xml", document.title ?? "", document.patientName ?? ""], startingAt: Date(timeIntervalSince1970: 0))
            let sample = try CDADocumentSample(uuid: uuid, xml: data, startDate: start, limits: limits)
            for diagnostic in sample.document.recoveredErrors {
                report.parserDiagnostics.append("export_cda.xml: \(diagnostic)")
                report.parserDiagnosticCount += 1
            }
            report.cdaDocuments += 1
            try writer.add(.cdaDocument(sample))
        } catch {
            report.skip(.init(element: "ClinicalDocument", file: file.path, reason: "an unreadable CDA document: \(error)"))
        }
    }

    /// `electrocardiograms/*.csv`, each kept as a ``GenericSample``.
    private func importElectrocardiograms(in folder: URL, report: inout HealthImportReport, writer: inout BatchWriter) {
        let directory = folder.appendingPathComponent("electrocardiograms")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.lowercased().hasSuffix(".csv") }.sorted()
        for name in names {
            let file = directory.appendingPathComponent(name)
            do {
                guard let data = try? Data(contentsOf: file) else {
                    throw ImportSkip("an unreadable electrocardiogram file", subject: name)
                }
                let sample = try ElectrocardiogramReader.sample(data, file: "electrocardiograms/" + name)
                try writer.add(.generic(sample))
                report.electrocardiograms += 1
            } catch let skip as ImportSkip {
                report.skip(.init(
                    element: "Electrocardiogram", type: ElectrocardiogramReader.typeIdentifier, file: file.path,
                    reason: skip.reason))
            } catch {
                report.skip(.init(
                    element: "Electrocardiogram", type: ElectrocardiogramReader.typeIdentifier, file: file.path,
                    reason: "could not be encoded: \(error)"))
            }
        }
    }
}
