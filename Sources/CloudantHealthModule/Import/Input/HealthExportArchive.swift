internal import CloudantCore
internal import Foundation
internal import ZIPFoundation

/// Unpacks `export.zip` into a working folder so the streaming reader can read `export.xml` from disk in
/// constant memory (a zip member cannot be handed to libxml2's pull reader without buffering it).
enum HealthExportArchive {
    /// What ``unpack(_:into:keepingMainXMLInArchive:)`` did.
    struct Unpacked {
        /// Members refused because their path would leave the folder.
        var refused: [String] = []
        /// The export folder: `folder/apple_health_export` when the archive has it, else `folder`.
        var exportFolder: URL
        /// The main XML's member path and inflated size, when it was left in the archive to be streamed.
        var mainXML: (member: String, size: Int)?
    }

    /// Extracts every member under `folder`, refusing members whose path would leave it (`../`, absolute).
    /// With `keepingMainXMLInArchive`, the main XML (what ``ExportLocator/mainXML(in:)`` would pick)
    /// is left in the archive for ``ProducedByteStream``; routes, the CDA and the rest are small and unpacked.
    /// - Throws: `CloudantError` `.invalidHealthExport` when the file is not a readable zip archive.
    static func unpack(_ zip: URL, into folder: URL, keepingMainXMLInArchive: Bool) throws -> Unpacked {
        let archive: Archive
        do {
            archive = try Archive(url: zip, accessMode: .read)
        } catch {
            throw CloudantError(
                .invalidHealthExport, "The file is not a readable zip archive; pass export.zip or its unzipped folder.",
                context: .init(field: zip.lastPathComponent), underlying: error)
        }
        let root = folder.standardizedFileURL.path + "/"
        let nested = archive.contains { $0.path.hasPrefix("apple_health_export/") }
        var unpacked = Unpacked(exportFolder: nested ? folder.appendingPathComponent("apple_health_export") : folder)
        try? FileManager.default.createDirectory(at: unpacked.exportFolder, withIntermediateDirectories: true)
        if keepingMainXMLInArchive, let main = mainXML(in: archive, exportPrefix: nested ? "apple_health_export/" : "") {
            unpacked.mainXML = (main.path, Int(clamping: main.uncompressedSize))
        }
        for entry in archive where entry.type == .file && entry.path != unpacked.mainXML?.member {
            let destination = folder.appendingPathComponent(entry.path).standardizedFileURL
            guard destination.path.hasPrefix(root), !entry.path.hasPrefix("/") else {
                unpacked.refused.append(entry.path)
                continue
            }
            do {
                try extract(entry, of: archive, to: destination)
            } catch {
                throw CloudantError(
                    .invalidHealthExport, "A member of the archive could not be extracted; the zip may be truncated.",
                    context: .init(field: entry.path), underlying: error)
            }
        }
        return unpacked
    }

    /// Writes a file member to `destination` (its folders made as needed), checking its CRC-32 with zlib's
    /// (``RunningCRC32``).
    private static func extract(_ entry: Entry, of archive: Archive, to destination: URL) throws {
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
        }
        let file = try FileHandle(forWritingTo: destination)
        defer { try? file.close() }
        var checksum = RunningCRC32()
        _ = try archive.extract(entry, skipCRC32: true) { data in
            checksum.update(with: data)
            try file.write(contentsOf: data)
        }
        guard checksum.value == entry.checksum else { throw Archive.ArchiveError.invalidCRC32 }
    }

    /// `export.xml` directly in the export folder, else the first other XML there that is not the CDA
    /// (a localised `导出.xml`), as ``ExportLocator/mainXML(in:)`` chooses on disk.
    private static func mainXML(in archive: Archive, exportPrefix: String) -> Entry? {
        let candidates = archive.filter { entry in
            guard entry.type == .file, entry.path.hasPrefix(exportPrefix) else { return false }
            let name = entry.path.dropFirst(exportPrefix.count)
            return !name.contains("/") && name.hasSuffix(".xml") && !name.hasSuffix("_cda.xml")
        }
        return candidates.first { $0.path == exportPrefix + "export.xml" }
            ?? candidates.min { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }
}
