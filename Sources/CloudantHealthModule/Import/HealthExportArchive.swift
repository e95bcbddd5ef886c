internal import CloudantCore
internal import Foundation
internal import ZIPFoundation

/// Unpacks `export.zip` into a working folder so the streaming reader can read `export.xml` from disk in
/// constant memory (a zip member cannot be handed to libxml2's pull reader without buffering it).
enum HealthExportArchive {
    /// Extracts every member under `folder`, refusing members whose path would leave it (`../`, absolute).
    /// - Returns: the names of refused members, for the report.
    /// - Throws: ``CloudantError`` `.invalidHealthExport` when the file is not a readable zip archive.
    static func unpack(_ zip: URL, into folder: URL) throws -> [String] {
        let archive: Archive
        do {
            archive = try Archive(url: zip, accessMode: .read)
        } catch {
            throw CloudantError(
                .invalidHealthExport, "The file is not a readable zip archive; pass export.zip or its unzipped folder.",
                context: .init(field: zip.lastPathComponent), underlying: error)
        }
        let root = folder.standardizedFileURL.path + "/"
        var refused: [String] = []
        for entry in archive where entry.type == .file {
            let destination = folder.appendingPathComponent(entry.path).standardizedFileURL
            guard destination.path.hasPrefix(root), !entry.path.hasPrefix("/") else {
                refused.append(entry.path)
                continue
            }
            do {
                _ = try archive.extract(entry, to: destination, skipCRC32: false)
            } catch {
                throw CloudantError(
                    .invalidHealthExport, "A member of the archive could not be extracted; the zip may be truncated.",
                    context: .init(field: entry.path), underlying: error)
            }
        }
        return refused
    }
}
