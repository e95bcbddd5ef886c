internal import CloudantCore
public import CloudantStore
public import Foundation

/// Imports an Apple Health export ("Export All Health Data") into a store: `export.xml` streamed with
/// libxml2's reader in constant memory, `workout-routes/*.gpx`, the FHIR resources in `clinical-records/*.json`
/// its `<ClinicalRecord>` elements name, and `export_cda.xml`.
///
/// ```swift
/// let importer = AppleHealthImporter(store: store, batchSize: 5_000)
/// let report = try await importer.importExport(at: URL(fileURLWithPath: "apple_health_export"))
/// print(report.documentsWritten, report.skippedByReason)
/// ```
///
/// - Documents are written with ``DocumentStore/insertNew(_:)`` in batches of ``batchSize``, one transaction
///   each, while the next batch is parsed (two batches in memory at most).
/// - Ids are derived from each element's content, so importing the same export again writes nothing
///   (``HealthImportReport/documentsAlreadyStored`` counts those). A sample deleted since an earlier import
///   stays deleted.
/// - Tolerant of real export defects: the broken `<!ATTLIST>` of iOS 16 (libxml2 recovers), forbidden control
///   characters (replaced and counted), trailing content in `export_cda.xml` (recovered), missing route
///   files, missing or malformed FHIR resource files. Everything not imported is listed in the report with a
///   reason. A `resourceFilePath` that would leave the export folder is refused.
/// - Activity summaries get one id per day, so a later export does not add a second summary of a day already
///   stored (the stored one is kept, like every other already-stored document).
/// - Apple's internal DTD is accepted; external entities and DTDs are never loaded.
/// - Samples from different sources stay separate documents; nothing is merged across sources.
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

    /// Imports `export.zip`, or the export folder (`apple_health_export/`, or a folder containing it).
    ///
    /// From a zip, `export.xml` is parsed as it is inflated; the small members (route files, the CDA) are
    /// unpacked into a fresh folder under `workDirectory` first, and that folder is removed after.
    /// - Parameter progress: called after each batch.
    /// - Throws: ``CloudantError`` `.invalidHealthExport` when no `export.xml` is found or it cannot be opened,
    ///   or a store error when a batch cannot be written (earlier batches stay written).
    public func importExport(
        at location: URL, workDirectory: URL = FileManager.default.temporaryDirectory,
        progress: (@Sendable (HealthImportProgress) -> Void)? = nil
    ) async throws -> HealthImportReport {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location.path, isDirectory: &isDirectory), !isDirectory.boolValue
        else { return try await importFolder(at: location, progress: progress) }
        let folder = workDirectory.appendingPathComponent("health-import-\(RevisionHash.mint(body: ["zip": .string(location.path)], parentRevision: nil, deleted: false, attachments: []))-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let unpacked = try HealthExportArchive.unpack(location, into: folder, keepingMainXMLInArchive: true)
        var report: HealthImportReport
        if let main = unpacked.mainXML {
            // export.xml is read as it is inflated, never written to disk.
            let input = try SanitizingFileInput(
                zip: ZipMemberStream(archive: location, member: main.member, uncompressedSize: main.size))
            let stream = try HealthExportStream(input: input, name: main.member)
            report = try await importStream(stream, folder: unpacked.exportFolder, totalBytes: main.size, progress: progress)
        } else {
            report = try await importFolder(at: folder, progress: progress)
        }
        for name in unpacked.refused {
            report.skip(name, line: nil, reason: "an archive member whose path leaves the export folder")
        }
        return report
    }

    private func importFolder(
        at location: URL, progress: (@Sendable (HealthImportProgress) -> Void)?
    ) async throws -> HealthImportReport {
        let folder = try Self.exportFolder(at: location)
        let exportXML = try Self.mainXML(in: folder)
        let totalBytes = (try? FileManager.default.attributesOfItem(atPath: exportXML.path)[.size] as? Int) ?? 0
        return try await importStream(
            try HealthExportStream(url: exportXML), folder: folder, totalBytes: totalBytes, progress: progress)
    }

    /// Imports the main XML from `stream`, then `export_cda.xml` from `folder` (where route files are too).
    private func importStream(
        _ stream: HealthExportStream, folder: URL, totalBytes: Int, progress: (@Sendable (HealthImportProgress) -> Void)?
    ) async throws -> HealthImportReport {
        var report = HealthImportReport()
        var writer = BatchWriter(store: store, batchSize: batchSize)
        let cache = ExportValueCache()
        // The writer pages for a bulk load meanwhile (no memory map, a larger cache); see `bulkLoading`.
        try await store.bulkLoading {
            do {
                while let (element, line) = try stream.next() {
                    ExportElementImporter.handle(
                        element, line: line, folder: folder, cache: cache, report: &report, writer: &writer)
                    if writer.isFull {
                        try await writer.flush(into: &report)
                        try Task.checkCancellation()
                        progress?(HealthImportProgress(
                            bytesRead: stream.bytesRead, totalBytes: totalBytes, documentsProcessed: writer.processed))
                    }
                }
                if stream.rootName != "HealthData" {
                    report.skip(stream.rootName ?? "(none)", line: nil, reason: "the root element is not <HealthData>")
                }
                try importCDA(in: folder, report: &report, writer: &writer)
                try await writer.finish(into: &report)
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
        progress?(HealthImportProgress(bytesRead: stream.bytesRead, totalBytes: totalBytes, documentsProcessed: writer.processed))
        return report
    }

    private func importCDA(in folder: URL, report: inout HealthImportReport, writer: inout BatchWriter) throws {
        let file = folder.appendingPathComponent("export_cda.xml")
        guard let data = try? Data(contentsOf: file) else { return }
        do {
            let digest = RevisionHash.mint(body: ["cda": .string(data.base64EncodedString())], parentRevision: nil, deleted: false, attachments: [])
            let sample = try CDADocumentSample(
                uuid: digest.uppercased(), xml: data, limits: XMLParseLimits(maximumBytes: 512 << 20, recover: true))
            for diagnostic in sample.document.recoveredErrors {
                report.parserDiagnostics.append("export_cda.xml: \(diagnostic)")
                report.parserDiagnosticCount += 1
            }
            report.cdaDocuments += 1
            try writer.add(.cdaDocument(sample))
        } catch {
            report.skip("export_cda.xml", line: nil, reason: "unreadable CDA document: \(error)")
        }
    }

    /// The folder holding `export.xml`: `location` itself or its `apple_health_export` child.
    static func exportFolder(at location: URL) throws -> URL {
        let nested = location.appendingPathComponent("apple_health_export")
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: nested.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return nested
        }
        guard FileManager.default.fileExists(atPath: location.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CloudantError(
                .invalidHealthExport, "No export folder at this path; unzip export.zip and pass the apple_health_export folder.",
                context: .init(field: location.lastPathComponent))
        }
        return location
    }

    /// `export.xml`, or the localised main file (`导出.xml`, `exportar.xml`): the XML that is not the CDA.
    static func mainXML(in folder: URL) throws -> URL {
        let standard = folder.appendingPathComponent("export.xml")
        if FileManager.default.fileExists(atPath: standard.path) { return standard }
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".xml") && !$0.hasSuffix("_cda.xml") }.sorted()
        guard let name = candidates.first else {
            throw CloudantError(
                .invalidHealthExport, "The folder has no export.xml; pass the apple_health_export folder.",
                context: .init(field: folder.lastPathComponent))
        }
        return folder.appendingPathComponent(name)
    }
}
