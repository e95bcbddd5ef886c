internal import CloudantCore
internal import Foundation

/// Finds `export.xml` and the folder of its side files in whatever the user passed, telling formats apart by
/// their first bytes, not their names:
///
/// | passed | `export.xml` read from | side files looked up in |
/// |---|---|---|
/// | `export.zip` | the archive, inflated as it is read | the archive (unpacked to a work folder) |
/// | the unzipped folder, or a folder holding `apple_health_export/` | its `export.xml` (or localised `导出.xml`) | that folder |
/// | a bare `export.xml` | the file | the folder it is in |
/// | `export.xml.gz` (or a gzipped zip) | the file, inflated as it is read | the folder it is in |
/// | standard input (XML, gzip or zip) | the stream (a zip is spooled to the work folder first) | none, or the archive's |
///
/// Side files are `export_cda.xml`, `workout-routes/`, `electrocardiograms/` and `clinical-records/`.
struct ExportLocator {
    /// Where `export.xml`'s bytes come from, what to call it, and where its side files are.
    struct Located {
        var input: any ExportByteSource
        var name: String
        var folder: URL?
        /// Its size once inflated, for progress (0 when unknown).
        var totalBytes: Int
        /// Archive members refused because their path would leave the export folder.
        var refusedMembers: [String] = []
    }

    let workDirectory: URL
    /// Temporary files and folders made while locating, removed by ``removeTemporaryFiles()``.
    private(set) var temporaryItems: [URL] = []

    init(workDirectory: URL) { self.workDirectory = workDirectory }

    /// Locates the export at `location` (a file or a folder).
    /// - Throws: `CloudantError` `.notFound` when nothing is there; `.invalidHealthExport` when it cannot be
    ///   an export (an unreadable archive, a folder or archive without `export.xml`).
    mutating func locate(_ location: URL) throws -> Located {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location.path, isDirectory: &isDirectory) else {
            throw CloudantError(
                .notFound, "There is no file or folder at \(location.path).", context: .init(field: location.path))
        }
        if isDirectory.boolValue {
            let folder = try Self.exportFolder(at: location)
            let xml = try Self.mainXML(in: folder)
            return try locateFile(xml, name: xml.path)
        }
        return try locateFile(location, name: location.path)
    }

    /// Locates the export read from `handle` (standard input), called `name` in errors and the report.
    mutating func locate(reading handle: FileHandle, name: String) throws -> Located {
        try locateStream(HandleByteSource(handle, closes: false), name: name, folder: nil, totalBytes: 0)
    }

    /// Removes what locating made in the work folder.
    func removeTemporaryFiles() {
        for item in temporaryItems { try? FileManager.default.removeItem(at: item) }
    }

    private mutating func locateFile(_ file: URL, name: String) throws -> Located {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: file) } catch {
            throw CloudantError(
                .invalidHealthExport, "\(name) cannot be read; check its permissions.", context: .init(field: name),
                underlying: error)
        }
        let magic = (try? handle.read(upToCount: ExportFormat.magicLength)) ?? Data()
        try? handle.seek(toOffset: 0)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        switch ExportFormat(magic: magic) {
        case .zip:
            try? handle.close()
            return try locateZip(file, name: name)
        case .gzip:
            let inflated = GzipInflater.stream(of: HandleByteSource(handle, closes: true), name: name)
            return try locateStream(
                inflated, name: name, folder: file.deletingLastPathComponent(),
                totalBytes: GzipInflater.inflatedLength(ofFile: file) ?? 0, alreadyInflated: true)
        case .xml:
            return Located(
                input: HandleByteSource(handle, closes: true), name: name, folder: file.deletingLastPathComponent(),
                totalBytes: size)
        }
    }

    /// A stream whose format is known only from its first bytes: XML is read as it comes, gzip inflated, a zip
    /// (which needs its end first) spooled to the work folder.
    private mutating func locateStream(
        _ source: any ExportByteSource, name: String, folder: URL?, totalBytes: Int, alreadyInflated: Bool = false
    ) throws -> Located {
        let magic = try source.readFully(ExportFormat.magicLength)
        let stream = PrefixedByteSource(prefix: magic, rest: source)
        switch ExportFormat(magic: magic) {
        case .xml:
            return Located(input: stream, name: name, folder: folder, totalBytes: totalBytes)
        case .gzip where !alreadyInflated:
            return try locateStream(
                GzipInflater.stream(of: stream, name: name), name: name, folder: folder, totalBytes: 0, alreadyInflated: true)
        case .gzip:
            throw CloudantError(
                .invalidHealthExport, "\(name) is gzip inside gzip; inflate it once and import what comes out.",
                context: .init(field: name))
        case .zip:
            let spool = workDirectory.appendingPathComponent("health-import-\(UUID().uuidString).zip")
            temporaryItems.append(spool)
            _ = FileManager.default.createFile(atPath: spool.path, contents: nil)
            let output = try FileHandle(forWritingTo: spool)
            defer { try? output.close() }
            while true {
                let chunk = try stream.read(upTo: ProducedByteStream.chunkSize)
                if chunk.isEmpty { break }
                try output.write(contentsOf: chunk)
            }
            stream.stop()
            return try locateZip(spool, name: name)
        }
    }

    /// `export.xml` streamed out of the archive; its other members unpacked into a fresh work folder.
    private mutating func locateZip(_ zip: URL, name: String) throws -> Located {
        let folder = workDirectory.appendingPathComponent("health-import-\(UUID().uuidString)")
        temporaryItems.append(folder)
        let unpacked = try HealthExportArchive.unpack(zip, into: folder, keepingMainXMLInArchive: true)
        guard let main = unpacked.mainXML else {
            throw CloudantError(
                .invalidHealthExport,
                "\(name) holds no export.xml, so it is not an Apple Health export; pass the export.zip the Health "
                    + "app's \"Export All Health Data\" writes.", context: .init(field: name))
        }
        return Located(
            input: ProducedByteStream.zipMember(archive: zip, member: main.member), name: "\(name) → \(main.member)",
            folder: unpacked.exportFolder, totalBytes: main.size, refusedMembers: unpacked.refused)
    }

    /// The folder holding `export.xml`: `location` itself or its `apple_health_export` child.
    static func exportFolder(at location: URL) throws -> URL {
        let nested = location.appendingPathComponent("apple_health_export")
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: nested.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return nested
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
                .invalidHealthExport,
                "\(folder.path) has no export.xml, so it is not an Apple Health export folder; pass the "
                    + "apple_health_export folder, export.zip or export.xml.", context: .init(field: folder.path))
        }
        return folder.appendingPathComponent(name)
    }
}
